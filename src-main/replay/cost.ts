// What a run's model steps cost, from the price table of @pydantic/genai-prices (shipped in the package, used
// offline, never updated at run time). Nothing is invented: a step is priced only when its run's config names a
// model the table knows (`config.model`, with `config.provider` when it names one) and its usage carries token
// counts that add up; every other step with usage is counted as unpriced, and the total says so.
//
// The table is asked once per model and quarter hour (its prices change by date, and some by time of day) for
// its rates: the price of nothing, and of tokens of each kind, over each range of input counts its tiers set (a
// tiered price charges a higher rate past a context size). A step is then priced by those rates, which is the
// table's own arithmetic (a property test holds the two equal); asking the table per step costs ~60 µs.
import { calcPrice, type PriceCalculation, type Usage } from '@pydantic/genai-prices';
import type { Cost, EpisodeFold, JsonPayload, JsonValue, StepFold } from '../../src-shared/replay.js';

/** The price table shipped with this build: the package's version and the day it was published. A test holds
 *  the version to the installed package's, so a bump of the package must say its date here too. */
export const PRICE_TABLE = { name: '@pydantic/genai-prices', version: '0.1.8', published: '2026-09-23' } as const;

export const PRICE_TABLE_WORDS = `${PRICE_TABLE.name} ${PRICE_TABLE.version}, prices as of ${PRICE_TABLE.published}`;

/** Prices are looked up per quarter hour of the step's time: time-of-day prices change on the half hour. */
const PRICE_BUCKET_MS = 15 * 60 * 1000;
/** Model × quarter-hour lookups kept; past this the memo starts again (a lookup is ~0.3 ms). */
const PRICE_MEMO_ENTRIES_MAX = 4_096;
const MILLION = 1_000_000;
/** Names a cost lists at most (models, what they were priced as, unknown ones): a WAL may name any number. */
export const COST_NAMES_MAX = 16;

/** The model a run's config names, and the provider when it names one; null when it names none. */
export interface PricedModel {
  model: string;
  provider: string | null;
}

export function modelOfConfig(config: JsonValue): PricedModel | null {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return null;
  const model = config['model'];
  const provider = config['provider'];
  if (typeof model !== 'string' || model.length === 0 || model.length > 200) return null;
  return { model, provider: typeof provider === 'string' && provider.length > 0 ? provider : null };
}

export interface TableUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** A step's usage as the table counts it: input includes the cached tokens read and written. Anthropic's names
 *  (`cache_read_input_tokens`, `cache_creation_input_tokens`) come beside an input count that leaves them out;
 *  DeepSeek's `prompt_cache_hit_tokens` is part of its input count. Null when the counts are missing, not
 *  finite, negative or do not add up. */
export function tableUsage(usage: JsonPayload | null): TableUsage | null {
  if (usage === null || (usage['input_tokens'] === undefined && usage['output_tokens'] === undefined)) return null;
  const input = tokenCount(usage['input_tokens']);
  const output = tokenCount(usage['output_tokens']);
  const anthropic_read = tokenCount(usage['cache_read_input_tokens']);
  const anthropic_write = tokenCount(usage['cache_creation_input_tokens']);
  const deepseek_hit = tokenCount(usage['prompt_cache_hit_tokens']);
  if (Number.isNaN(input + output + anthropic_read + anthropic_write + deepseek_hit) || deepseek_hit > input) return null;
  return { input_tokens: input + anthropic_read + anthropic_write, output_tokens: output, cache_read_tokens: anthropic_read + deepseek_hit, cache_write_tokens: anthropic_write };
}

/** A count as the table takes it: absent is 0; NaN where it is not a finite count (so the sum says so). */
function tokenCount(value: JsonValue | undefined): number {
  if (value === undefined) return 0;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : Number.NaN;
}

/** Rates in dollars per token over one range of a step's input count: a tiered price (a higher rate past a
 *  context size) changes its rates at the counts its tiers start above, and is linear between them. */
interface Segment {
  /** Applies to a step whose input count is above this (−1: from none). */
  input_above: number;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/** How one model is priced at one time: by its segments' rates and a price per request, or not at all (the
 *  table does not know the model). */
export type Pricer = { kind: 'priced'; priced_as: string; per_request: number; segments: Segment[] } | { kind: 'unknown' };

const price_memo = new Map<string, Pricer>();

export function pricerFor(model: PricedModel, at_ms: number | null): Pricer {
  const bucket = at_ms === null ? null : Math.floor(at_ms / PRICE_BUCKET_MS);
  const key = `${model.provider ?? ''}\u0000${model.model}\u0000${bucket ?? 'now'}`;
  let pricer = price_memo.get(key);
  if (pricer === undefined) {
    if (price_memo.size >= PRICE_MEMO_ENTRIES_MAX) price_memo.clear();
    pricer = makePricer(model, bucket === null ? undefined : new Date(bucket * PRICE_BUCKET_MS));
    price_memo.set(key, pricer);
  }
  return pricer;
}

function makePricer(model: PricedModel, at: Date | undefined): Pricer {
  const ask = (usage: Usage): number => tableCalc(usage, model, at)?.total_price ?? Number.NaN;
  const nothing = tableCalc({ input_tokens: 0, output_tokens: 0 }, model, at);
  if (nothing === null) return { kind: 'unknown' };
  const per_request = nothing.total_price;
  const starts = tierStarts(nothing.model_price);
  const segments = [-1, ...starts].map((input_above, index): Segment => {
    // A count inside the range: the first tier's start itself (the base rates hold up to it), one above a
    // tier's start, or a million where nothing is tiered.
    const at_count = index === 0 ? (starts[0] ?? MILLION) : input_above + 1;
    const input_only = ask({ input_tokens: at_count });
    return {
      input_above,
      input: (input_only - per_request) / at_count,
      output: (ask({ input_tokens: at_count, output_tokens: MILLION }) - input_only) / MILLION,
      cache_read: (ask({ input_tokens: at_count, cache_read_tokens: at_count }) - per_request) / at_count,
      cache_write: (ask({ input_tokens: at_count, cache_write_tokens: at_count }) - per_request) / at_count,
    };
  });
  const priced = segments.every((segment) => [segment.input, segment.output, segment.cache_read, segment.cache_write].every(Number.isFinite));
  return priced && !starts.includes(0) ? { kind: 'priced', priced_as: `${nothing.provider.id} ${nothing.model.id}`, per_request, segments } : { kind: 'unknown' };
}

/** The input counts a model's tiered prices start above, ascending. */
function tierStarts(model_price: PriceCalculation['model_price']): number[] {
  const starts = new Set<number>();
  for (const price of Object.values(model_price)) if (typeof price === 'object') for (const tier of price.tiers) starts.add(tier.start);
  return [...starts].sort((a, b) => a - b);
}

/** The table's answer; null when it knows no such model. A "provider/model" name (LiteLLM's) is tried as
 *  written, then as the provider it names and the model after the slash. */
function tableCalc(usage: Usage, model: PricedModel, at: Date | undefined): PriceCalculation | null {
  const options = (providerId: string | null) => ({ ...(providerId === null ? {} : { providerId }), ...(at === undefined ? {} : { timestamp: at }) });
  try {
    const direct = calcPrice(usage, model.model, options(model.provider));
    if (direct !== null) return direct;
    const slash = model.model.indexOf('/');
    if (model.provider !== null || slash <= 0) return null;
    return calcPrice(usage, model.model.slice(slash + 1), options(model.model.slice(0, slash)));
  } catch {
    return null;
  }
}

/** The pricer of one run's model, kept while its steps stay in one quarter hour: a run's steps are priced in
 *  order, and most of them share their neighbour's pricer. */
export class PriceCursor {
  private bucket: number | null = null;
  private pricer: Pricer | null = null;

  constructor(readonly model: PricedModel | null) {}

  /** The pricer at a step's time; null when the run names no model. */
  at(at_ms: number | null): Pricer | null {
    if (this.model === null) return null;
    const bucket = at_ms === null ? -1 : Math.floor(at_ms / PRICE_BUCKET_MS);
    if (this.pricer === null || bucket !== this.bucket) {
      this.pricer = pricerFor(this.model, at_ms);
      this.bucket = bucket;
    }
    return this.pricer;
  }
}

/** One step's price in US dollars, or null when it cannot be priced. */
export function stepPrice(pricer: Pricer, usage: JsonPayload | null): number | null {
  return pricedCounts(pricer, tableUsage(usage));
}

function pricedCounts(pricer: Pricer, counts: TableUsage | null): number | null {
  if (counts === null || pricer.kind === 'unknown') return null;
  const uncached = counts.input_tokens - counts.cache_read_tokens - counts.cache_write_tokens;
  if (uncached < 0) return null;
  const segment = pricer.segments.findLast((candidate) => counts.input_tokens > candidate.input_above)!;
  const price =
    pricer.per_request +
    segment.input * uncached +
    segment.cache_read * counts.cache_read_tokens +
    segment.cache_write * counts.cache_write_tokens +
    segment.output * counts.output_tokens;
  return Number.isFinite(price) ? price : null;
}

export function noCost(): Cost {
  return { usd: null, models: [], priced_as: [], unknown_models: [], steps_priced: 0, steps_unpriced: 0, undated_steps: 0, from_run_totals: false };
}

/** Adds one step's price (or its being unpriced) to a cost. A step that recorded no usage costs nothing we know
 *  of and is not counted either way. */
export function addStepCost(cost: Cost, prices: PriceCursor, usage: JsonPayload | null, at_ms: number | null): void {
  const counts = tableUsage(usage);
  if (counts === null) return;
  const name = prices.model?.model ?? null;
  if (name !== null) addName(cost.models, name);
  const pricer = prices.at(at_ms);
  const price = pricer === null ? null : pricedCounts(pricer, counts);
  if (pricer === null || pricer.kind === 'unknown' || price === null) {
    cost.steps_unpriced += 1;
    if (name !== null && pricer?.kind === 'unknown') addName(cost.unknown_models, name);
    return;
  }
  addName(cost.priced_as, pricer.priced_as);
  cost.usd = (cost.usd ?? 0) + price;
  cost.steps_priced += 1;
  if (at_ms === null) cost.undated_steps += 1;
}

/** When a step is priced: its last model attempt's time, or null (no time recorded: the table's current prices). */
export function stepPriceTime(step: StepFold): number | null {
  let last_ms: number | null = null;
  for (const attempt of step.attempts) if (attempt.ts_ms !== null && (last_ms === null || attempt.ts_ms > last_ms)) last_ms = attempt.ts_ms;
  return last_ms;
}

/** One step's price as its episode's cost sums it; null when it cannot be priced. */
export function stepCostIn(episode: EpisodeFold, step: StepFold): number | null {
  const model = modelOfConfig(episode.config);
  return model === null ? null : stepPrice(pricerFor(model, stepPriceTime(step)), step.usage);
}

/** An episode's cost in full: its steps', or, when none recorded usage, its run's own totals (run_finished). The
 *  timing's sum (timing.ts) goes on step by step and ends with `withRunTotals`, as this does. */
export function episodeCost(episode: EpisodeFold): Cost {
  const cost = noCost();
  const prices = new PriceCursor(modelOfConfig(episode.config));
  for (const step of episode.steps) addStepCost(cost, prices, step.usage, stepPriceTime(step));
  return withRunTotals(cost, episode);
}

export function withRunTotals(cost: Cost, episode: EpisodeFold): Cost {
  const totals = episode.finished?.usage ?? null;
  if (cost.steps_priced + cost.steps_unpriced > 0 || tableUsage(totals) === null) return cost;
  const priced = copyCost(cost);
  addStepCost(priced, new PriceCursor(modelOfConfig(episode.config)), totals, null);
  priced.from_run_totals = true;
  return priced;
}

export function addCost(into: Cost, cost: Cost): void {
  if (cost.usd !== null) into.usd = (into.usd ?? 0) + cost.usd;
  for (const name of cost.models) addName(into.models, name);
  for (const name of cost.priced_as) addName(into.priced_as, name);
  for (const name of cost.unknown_models) addName(into.unknown_models, name);
  into.from_run_totals ||= cost.from_run_totals;
  into.steps_priced += cost.steps_priced;
  into.steps_unpriced += cost.steps_unpriced;
  into.undated_steps += cost.undated_steps;
}

export function copyCost(cost: Cost): Cost {
  return { ...cost, models: cost.models.slice(), priced_as: cost.priced_as.slice(), unknown_models: cost.unknown_models.slice() };
}

function addName(names: string[], name: string): void {
  if (names.length < COST_NAMES_MAX && !names.includes(name)) names.push(name);
}

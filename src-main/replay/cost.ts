// What a run's model steps cost, from the price table of @pydantic/genai-prices (shipped in the package, used
// offline, never updated at run time). Nothing is invented: a step is priced only when its run's config names a
// model the table knows (`config.model`, with `config.provider` when it names one) and its usage carries token
// counts that add up; every other step with usage is counted as unpriced, and the total says so.
//
// The table is asked once per model and quarter hour (its prices change by date, and some by time of day), for
// the price of nothing and of a million tokens of each kind; a step is then priced by those rates, which is what
// the table computes for a price that is linear in the tokens. A tiered price (a higher rate past a context
// size) is not linear: such a step is priced by the table itself, one call per step (~60 µs).
import { calcPrice, type PriceCalculation, type Usage } from '@pydantic/genai-prices';
import { largest } from '../../src-shared/arrays.js';
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
  if (usage === null) return null;
  const count = (key: string): number | null => {
    const value = usage[key];
    if (value === undefined) return 0;
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
  };
  const input = count('input_tokens');
  const output = count('output_tokens');
  const anthropic_read = count('cache_read_input_tokens');
  const anthropic_write = count('cache_creation_input_tokens');
  const deepseek_hit = count('prompt_cache_hit_tokens');
  if (input === null || output === null || anthropic_read === null || anthropic_write === null || deepseek_hit === null) return null;
  if (usage['input_tokens'] === undefined && usage['output_tokens'] === undefined) return null;
  if (deepseek_hit > input) return null;
  const input_tokens = input + anthropic_read + anthropic_write;
  return { input_tokens, output_tokens: output, cache_read_tokens: anthropic_read + deepseek_hit, cache_write_tokens: anthropic_write };
}

/** How one model is priced at one time: by rates (a linear price), by the table per step (a tiered one), or not
 *  at all (the table does not know the model). */
type Pricer =
  | { kind: 'linear'; priced_as: string; base: number; input: number; output: number; cache_read: number; cache_write: number }
  | { kind: 'tiered'; priced_as: string; model: PricedModel; at: Date | undefined }
  | { kind: 'unknown' };

const price_memo = new Map<string, Pricer>();

export function pricerFor(model: PricedModel, at_ms: number | null): Pricer {
  const bucket = at_ms === null ? 'now' : String(Math.floor(at_ms / PRICE_BUCKET_MS));
  const key = `${model.provider ?? ''}\u0000${model.model}\u0000${bucket}`;
  let pricer = price_memo.get(key);
  if (pricer === undefined) {
    if (price_memo.size >= PRICE_MEMO_ENTRIES_MAX) price_memo.clear();
    pricer = makePricer(model, at_ms === null ? undefined : new Date(Math.floor(at_ms / PRICE_BUCKET_MS) * PRICE_BUCKET_MS));
    price_memo.set(key, pricer);
  }
  return pricer;
}

function makePricer(model: PricedModel, at: Date | undefined): Pricer {
  const ask = (usage: Usage): PriceCalculation | null => tableCalc(usage, model, at);
  const base = ask({ input_tokens: 0, output_tokens: 0 });
  if (base === null) return { kind: 'unknown' };
  const priced_as = `${base.provider.id} ${base.model.id}`;
  const tiered = Object.values(base.model_price).some((price) => typeof price === 'object');
  if (tiered) return { kind: 'tiered', priced_as, model, at };
  const rate = (usage: Usage) => (ask(usage)?.total_price ?? Number.NaN) - base.total_price;
  return {
    kind: 'linear',
    priced_as,
    base: base.total_price,
    input: rate({ input_tokens: MILLION }),
    output: rate({ output_tokens: MILLION }),
    cache_read: rate({ input_tokens: MILLION, cache_read_tokens: MILLION }),
    cache_write: rate({ input_tokens: MILLION, cache_write_tokens: MILLION }),
  };
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

/** One step's price in US dollars, or null when it cannot be priced. */
export function stepPrice(pricer: Pricer, usage: JsonPayload | null): number | null {
  const counts = tableUsage(usage);
  if (counts === null || pricer.kind === 'unknown') return null;
  if (pricer.kind === 'tiered') return tableCalc({ ...counts }, pricer.model, pricer.at)?.total_price ?? null;
  const uncached = counts.input_tokens - counts.cache_read_tokens - counts.cache_write_tokens;
  if (uncached < 0) return null;
  const price =
    pricer.base +
    (pricer.input * uncached + pricer.cache_read * counts.cache_read_tokens + pricer.cache_write * counts.cache_write_tokens + pricer.output * counts.output_tokens) / MILLION;
  return Number.isFinite(price) ? price : null;
}

export function noCost(): Cost {
  return { usd: null, models: [], priced_as: [], unknown_models: [], steps_priced: 0, steps_unpriced: 0, undated_steps: 0, from_run_totals: false };
}

/** Adds one step's price (or its being unpriced) to a cost. `usage` null: the step recorded none, so it costs
 *  nothing we know of and is not counted either way. */
export function addStepCost(cost: Cost, model: PricedModel | null, usage: JsonPayload | null, at_ms: number | null): void {
  if (tableUsage(usage) === null) return;
  const name = model === null ? null : model.model;
  if (name !== null) addName(cost.models, name);
  const pricer = model === null ? null : pricerFor(model, at_ms);
  const price = pricer === null ? null : stepPrice(pricer, usage);
  if (pricer === null || price === null) {
    cost.steps_unpriced += 1;
    if (name !== null && pricer?.kind === 'unknown') addName(cost.unknown_models, name);
    return;
  }
  if (pricer.kind !== 'unknown') addName(cost.priced_as, pricer.priced_as);
  cost.usd = (cost.usd ?? 0) + price;
  cost.steps_priced += 1;
  if (at_ms === null) cost.undated_steps += 1;
}

/** When a step is priced: its last model attempt's time, or null (no time recorded: the table's current prices). */
export function stepPriceTime(step: StepFold): number | null {
  return largest(step.attempts.map((attempt) => attempt.ts_ms).filter((ms): ms is number => ms !== null));
}

/** An episode's cost in full: its steps', or, when none recorded usage, its run's own totals (run_finished). The
 *  timing's sum (timing.ts) goes on step by step and ends with `withRunTotals`, as this does. */
export function episodeCost(episode: EpisodeFold): Cost {
  const cost = noCost();
  const model = modelOfConfig(episode.config);
  for (const step of episode.steps) addStepCost(cost, model, step.usage, stepPriceTime(step));
  return withRunTotals(cost, episode);
}

export function withRunTotals(cost: Cost, episode: EpisodeFold): Cost {
  const totals = episode.finished?.usage ?? null;
  if (cost.steps_priced + cost.steps_unpriced > 0 || tableUsage(totals) === null) return cost;
  const priced = copyCost(cost);
  addStepCost(priced, modelOfConfig(episode.config), totals, null);
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

// Cost from the shipped price table: a step's usage mapped as the table counts it, the rates the table gives
// equal to its own answer for any usage on every model it prices (tiered prices included),
// nothing priced where the run names no model or one the table does not know, and an episode's cost the same
// whether summed step by step (the timing) or in full (episodeCost).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { episodeCost, modelOfConfig, PRICE_TABLE, pricerFor, stepPrice, stepPriceTime, tableUsage } from '../../src-main/replay/cost.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { replayJson } from '../../src-main/replay/report.js';
import { episodeTiming } from '../../src-main/replay/timing.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { costText, formatUsd } from '../../src-shared/format.js';
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';

describe('the price table', () => {
  it('is the installed package, at the version and date the code names', () => {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@pydantic/genai-prices');
    const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(main), '..', 'package.json'), 'utf8')) as { name: string; version: string };
    expect({ name: manifest.name, version: manifest.version }).toEqual({ name: PRICE_TABLE.name, version: PRICE_TABLE.version });
    expect(PRICE_TABLE.published).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('is used offline: nothing of ours asks the package to fetch newer prices', () => {
    const sources = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [path.join(dir, entry.name)] : []));
    const repo = path.resolve(import.meta.dirname, '../..');
    const fetching = ['src-main', 'src-shared', 'src-renderer'].flatMap((dir) => sources(path.join(repo, dir))).filter((file) => /\b(updatePrices|enableAutoUpdate|waitForUpdate)\b/.test(fs.readFileSync(file, 'utf8')));
    expect(fetching).toEqual([]);
  });
});

describe('a step usage as the table counts it', () => {
  it("adds Anthropic's cache counts to its input, keeps DeepSeek's inside it", () => {
    expect(tableUsage({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 })).toEqual({ input_tokens: 130, output_tokens: 5, cache_read_tokens: 100, cache_write_tokens: 20 });
    expect(tableUsage({ input_tokens: 300, output_tokens: 7, prompt_cache_hit_tokens: 200, prompt_cache_miss_tokens: 100 })).toEqual({ input_tokens: 300, output_tokens: 7, cache_read_tokens: 200, cache_write_tokens: 0 });
    expect(tableUsage({ input_tokens: 3, output_tokens: 4 })).toEqual({ input_tokens: 3, output_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 0 });
  });

  it('is none where the counts are missing, negative, not numbers or do not add up', () => {
    for (const usage of [null, {}, { total_tokens: 9 }, { input_tokens: -1, output_tokens: 2 }, { input_tokens: '5', output_tokens: 1 }, { input_tokens: 5, output_tokens: 1, prompt_cache_hit_tokens: 6 }, { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: Number.POSITIVE_INFINITY }] as (JsonPayload | null)[]) {
      expect(tableUsage(usage)).toBeNull();
    }
  });
});

describe('a step price', () => {
  /** Every model of these providers the table prices: linear ones, tiered ones, ones with a price per request. */
  const PROVIDERS = ['anthropic', 'openai', 'google', 'deepseek', 'mistral', 'x-ai', 'groq', 'aws'];
  const MODELS = PROVIDERS.flatMap((provider) => (findProvider({ providerId: provider })?.models ?? []).map((model) => ({ model: model.id, provider })));
  const usage = fc.record({
    input_tokens: fc.oneof(fc.integer({ min: 0, max: 400_000 }), fc.constantFrom(0, 1, 128_000, 200_000, 200_001, 272_000, 272_001)),
    output_tokens: fc.integer({ min: 0, max: 50_000 }),
    cache_read_input_tokens: fc.integer({ min: 0, max: 150_000 }),
    cache_creation_input_tokens: fc.integer({ min: 0, max: 50_000 }),
  });
  const at_ms = Date.UTC(2026, 5, 1, 12);
  const table = (step: JsonPayload, model: { model: string; provider: string }) =>
    calcPrice({ ...tableUsage(step)! }, model.model, { providerId: model.provider, timestamp: new Date(Math.floor(at_ms / 900_000) * 900_000) })?.total_price ?? null;

  it("by the table's rates, equals the table's own answer for any usage, on every model it prices, tiered or not", () => {
    expect(MODELS.length).toBeGreaterThan(100);
    let priced = 0;
    for (const model of MODELS) {
      const pricer = pricerFor(model, at_ms);
      if (table({ input_tokens: 1, output_tokens: 1 }, model) === null) continue;
      priced += 1;
      expect(pricer.kind, model.model).toBe('priced');
      fc.assert(
        fc.property(usage, (step) => {
          const expected = table(step, model)!;
          expect(Math.abs(stepPrice(pricer, step)! - expected), `${model.model} ${JSON.stringify(step)}`).toBeLessThanOrEqual(1e-9 * Math.max(1, expected));
        }),
        { numRuns: 40, seed: 7 },
      );
    }
    expect(priced).toBeGreaterThan(100);
  });

  it('of a tiered price charges the higher rate past the tier, as the table does', () => {
    const pricer = pricerFor({ model: 'gemini-2.5-pro', provider: null }, null);
    expect(pricer.kind === 'priced' && pricer.segments.length).toBe(2);
    expect(stepPrice(pricer, { input_tokens: 300_000, output_tokens: 10 })).toBeGreaterThan(2 * stepPrice(pricer, { input_tokens: 150_000, output_tokens: 10 })!);
    expect(stepPrice(pricer, { input_tokens: 200_001, output_tokens: 0 })).toBeCloseTo(calcPrice({ input_tokens: 200_001 }, 'gemini-2.5-pro')!.total_price, 12);
  });

  it('names the model the run names, a "provider/model" name priced as that provider\'s model', () => {
    expect(modelOfConfig({ model: 'deepseek/deepseek-chat', max_steps: 3 })).toEqual({ model: 'deepseek/deepseek-chat', provider: null });
    expect(pricerFor({ model: 'deepseek/deepseek-chat', provider: null }, null)).toMatchObject({ kind: 'priced', priced_as: 'deepseek deepseek-chat' });
    expect(pricerFor({ model: 'scripted-model-1', provider: null }, null)).toEqual({ kind: 'unknown' });
    for (const config of [null, 'gpt-4o', ['gpt-4o'], {}, { model: 4 }, { model: '' }, { model: 'x'.repeat(201) }] as JsonValue[]) expect(modelOfConfig(config)).toBeNull();
  });
});

describe("an episode's cost", () => {
  let root = '';
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-cost-'));
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("is the table's answer summed over its steps, the same step by step as in full", () => {
    const [target] = resolveTargets(sessionDir(root, 'coding-agent'));
    const { fold } = replayTarget(target!);
    const episode = fold.episodes[0]!;
    let oracle = 0;
    for (const step of episode.steps) {
      const at_ms = stepPriceTime(step);
      oracle += calcPrice({ ...tableUsage(step.usage)! }, 'claude-sonnet-4-5', at_ms === null ? {} : { timestamp: new Date(Math.floor(at_ms / 900_000) * 900_000) })!.total_price;
    }
    const cost = episodeCost(episode);
    expect(cost).toMatchObject({ models: ['claude-sonnet-4-5'], priced_as: ['anthropic claude-sonnet-4-5'], unknown_models: [], steps_priced: episode.steps.length, steps_unpriced: 0, undated_steps: 0, from_run_totals: false });
    expect(cost.usd).toBeCloseTo(oracle, 12);
    expect(episodeTiming(episode).cost).toEqual(cost);
    expect(replayJson('coding-agent', replayTarget(target!)).episodes[0]!.cost).toEqual(cost);
  });

  it('says what it could not price, and why, never a figure for it', () => {
    const [target] = resolveTargets(sessionDir(root, 'finished'));
    const cost = episodeCost(replayTarget(target!).fold.episodes[0]!);
    expect(cost).toMatchObject({ usd: null, models: ['scripted-model-1'], unknown_models: ['scripted-model-1'], steps_priced: 0 });
    expect(cost.steps_unpriced).toBeGreaterThan(0);
    expect(costText(cost)).toBe('not priced: unknown model scripted-model-1');
  });
});

describe('cost in words', () => {
  it('gives cents from a cent up, two figures below, and what was left unpriced', () => {
    expect([formatUsd(0), formatUsd(0.004_23), formatUsd(0.4249), formatUsd(1234.5)]).toEqual(['$0.00', '$0.0042', '$0.42', '$1,234.50']);
    const base = { models: ['m'], priced_as: ['p m'], unknown_models: [], steps_priced: 3, steps_unpriced: 0, undated_steps: 0, from_run_totals: false };
    expect(costText({ ...base, usd: 0.5 })).toBe('$0.50');
    expect(costText({ ...base, usd: 0.5, steps_unpriced: 1, undated_steps: 2 })).toBe("$0.50 · 1 step not priced: token counts that do not add up · 2 at the table's current prices (no time recorded)");
    expect(costText({ ...base, models: [], priced_as: [], usd: null, steps_priced: 0, steps_unpriced: 4 })).toBe('not priced: the run names no model');
    expect(costText({ ...base, usd: 2, from_run_totals: true })).toBe("$2.00 (from the run's totals)");
    expect(costText({ ...base, usd: null, steps_priced: 0 })).toBe('no usage recorded');
  });
});

// A run's config as it is frozen into run_started, and read back from it: on resume the recorded config is
// authoritative (contract §4 step 2), never the script's.
import assert from 'node:assert/strict';
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';
import { CEILING_WAIT_MS_MAX, STEPS_PER_RUN_MAX } from './limits.js';
import type { RunConfig } from './script.js';

export function configPayload(config: RunConfig): JsonPayload {
  assertConfig(config);
  return {
    model: config.model,
    max_steps: config.max_steps,
    ...(config.tool_times ? { tool_times: true } : {}),
    ...(config.compaction ? { compaction: { provider: 'scripted-compactor' } } : {}),
    ...(config.ceiling_wait_ms !== null ? { context_ceiling: ceilingPayload(config.ceiling_wait_ms, config.ceiling_window_tokens) } : {}),
    // render_tags in a run config is itself gated (runner-tags/v1): the writer raises the floor for it.
    ...(config.render_tags ? { render_tags: true } : {}),
  };
}

function ceilingPayload(wait_ms: number, window_tokens: number | null): JsonPayload {
  return window_tokens === null ? { wait_ms } : { wait_ms, window_tokens };
}

export class RecordedConfigError extends Error {
  override name = 'RecordedConfigError';
  readonly code = 'recorded_config_invalid';
}

export function parseConfig(value: JsonValue): RunConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RecordedConfigError('run_started.config is not a map');
  const model = value['model'];
  const max_steps = value['max_steps'];
  if (typeof model !== 'string' || typeof max_steps !== 'number') throw new RecordedConfigError('run_started.config lacks model or max_steps');
  const ceiling = value['context_ceiling'];
  const ceiling_map = typeof ceiling === 'object' && ceiling !== null && !Array.isArray(ceiling) ? ceiling : {};
  const wait_ms = ceiling_map['wait_ms'];
  const window_tokens = ceiling_map['window_tokens'];
  const config: RunConfig = {
    model,
    max_steps,
    tool_times: value['tool_times'] === true,
    compaction: typeof value['compaction'] === 'object' && value['compaction'] !== null,
    ceiling_wait_ms: typeof wait_ms === 'number' ? wait_ms : null,
    ceiling_window_tokens: typeof window_tokens === 'number' ? window_tokens : null,
    render_tags: value['render_tags'] === true,
  };
  try {
    assertConfig(config);
  } catch (error) {
    throw new RecordedConfigError(`run_started.config is out of bounds: ${(error as Error).message}`);
  }
  return config;
}

function assertConfig(config: RunConfig): void {
  assert.ok(config.model.length > 0, 'model must be named');
  assert.ok(Number.isSafeInteger(config.max_steps) && config.max_steps >= 1 && config.max_steps <= STEPS_PER_RUN_MAX, `max_steps ${config.max_steps}`);
  if (config.ceiling_wait_ms !== null) {
    assert.ok(Number.isSafeInteger(config.ceiling_wait_ms) && config.ceiling_wait_ms >= 0 && config.ceiling_wait_ms <= CEILING_WAIT_MS_MAX, `ceiling wait ${config.ceiling_wait_ms}`);
  }
  if (config.ceiling_window_tokens !== null) {
    assert.ok(config.ceiling_wait_ms !== null, 'a ceiling window needs a ceiling wait');
    assert.ok(Number.isSafeInteger(config.ceiling_window_tokens) && config.ceiling_window_tokens >= 1, `ceiling window ${config.ceiling_window_tokens}`);
  }
}

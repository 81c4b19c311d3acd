// What every part of one run shares: its journal, its frozen config, the world's ports, the clock, the
// planted bugs (tests only) and the run's cancel state. Also the small record helpers that depend on the
// config: runner tags and tool-times observations are added only where the run opted into them, so a run
// without them writes the same frames, byte for byte, as a runtime that never knew the features.
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import type { Clock } from './clock.js';
import type { Journal } from './journal.js';
import type { Plants } from './plants.js';
import type { Compactor, Model, Owner, ToolPlane, ToolPolicy, ToolUse } from './ports.js';
import type { RunConfig } from './script.js';

export interface Ports {
  model: Model;
  policy: ToolPolicy;
  plane: ToolPlane;
  owner: Owner;
  compactor: Compactor;
}

export interface RunContext {
  journal: Journal;
  run_id: string;
  config: RunConfig;
  clock: Clock;
  ports: Ports;
  plants: Plants;
  /** The strongest cancel requested for this run so far (durable before it was acknowledged). */
  cancel: { at: 'now' | 'step_boundary' | null };
}

/** `payload` with a runner tag (one number) when the run renders tags. */
export function tagged(ctx: RunContext, payload: Payload): Payload {
  return ctx.config.render_tags ? { ...payload, tags: ctx.journal.nextTag() } : payload;
}

/** One tag per item (per block of an assistant message, per input message), when the run renders tags. */
export function taggedEach(ctx: RunContext, payload: Payload, count: number, nested: boolean): Payload {
  if (!ctx.config.render_tags) return payload;
  const first = ctx.journal.nextTag();
  const tags = Array.from({ length: count }, (_, index) => (nested ? [first + index] : first + index));
  return { ...payload, tags };
}

/** `payload` with a tool-times observation in `field`, when the run records tool times. */
export function timed(ctx: RunContext, payload: Payload, field: string): Payload {
  return ctx.config.tool_times ? { ...payload, [field]: ctx.clock.now_ms() } : payload;
}

export function userMessage(text: string): JsonPayload {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** The tool_use blocks of an assistant message, with their inputs, in source order. */
export function toolUsesOf(message: JsonValue): ToolUse[] {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return [];
  const content = message['content'];
  if (!Array.isArray(content)) return [];
  const uses: ToolUse[] = [];
  for (const block of content) {
    if (typeof block !== 'object' || block === null || Array.isArray(block) || block['type'] !== 'tool_use') continue;
    const id = block['id'];
    const name = block['name'];
    if (typeof id === 'string' && typeof name === 'string') uses.push({ id, name, input: block['input'] ?? null });
  }
  return uses;
}

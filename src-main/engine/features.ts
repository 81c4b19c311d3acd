// The features this build knows (wal-format §7) and the gating rules that decide which of them a record
// requires (wal-format §6 and the contract §2). The writer gates every append through `requiredFeatures`, so a
// record carrying a gated field or value can only ever be written as a ver 3 frame naming its feature.
import type { CborValue, Payload } from '../../src-shared/wal.js';

export const KNOWN_FEATURES: ReadonlySet<string> = new Set([
  'scope/v1',
  'plan-manifest/v1',
  'dispatch-module/v1',
  'steer-queue/v1',
  'google-rpc-error-details/v1',
  'run-cancel-at/v1',
  'provider-held/v1',
  'tool-times/v1',
  'provider-text-state/v1',
  'media-content/v1',
  'openrouter-reasoning/v1',
  'chatgpt-codex-wire/v1',
  'compaction/v1',
  'compaction-view/v1',
  'context-ceiling/v1',
  'runner-tags/v1',
]);

/** Record types replay knows by name; any other type in a frame with known features is shown, not acted on. */
export const KNOWN_RECORD_TYPES: ReadonlySet<string> = new Set([
  'run_started',
  'model_attempt_finished',
  'model_step_finished',
  'tool_batch_started',
  'tool_dispatch_intent',
  'tool_no_dispatch',
  'tool_result',
  'tool_batch_finished',
  'turn_finished',
  'resume_started',
  'steered',
  'run_finished',
  'run_cancel_requested',
  'tool_call_provider_held',
  'run_paused',
  'queued',
  'retracted',
  'send_delivered',
  'approval_requested',
  'approval_resolved',
  'approval_recorded',
  'late_result',
  'tool_call_deferred',
  'compaction_view_applied',
  'compaction_notice',
  'compaction_message',
  'context_ceiling_wait',
  'context_ceiling_decided',
  'budget_fired',
  'compaction_request',
  'compaction_answer',
  'compaction_wait',
]);

export function unknownFeatures(features: readonly string[]): string[] {
  return features.filter((feature) => !KNOWN_FEATURES.has(feature));
}

type Gate = (payload: Payload, add: (feature: string) => void) => void;

const has = (payload: Payload, field: string): boolean => Object.hasOwn(payload, field) && payload[field] !== undefined && payload[field] !== null;

const always =
  (feature: string): Gate =>
  (_payload, add) =>
    add(feature);

function gateTags(payload: Payload, add: (feature: string) => void): void {
  if (has(payload, 'tags')) add('runner-tags/v1');
}

function gateProviderDetails(error: CborValue | undefined, add: (feature: string) => void): void {
  if (isMap(error) && has(error, 'provider_details')) add('google-rpc-error-details/v1');
}

/** Content features of messages, blocks and outputs anywhere in `value` (media, provider state, reasoning). */
function gateContent(value: CborValue | undefined, add: (feature: string) => void, depth = 0): void {
  if (depth > 16 || value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) gateContent(item, add, depth + 1);
    return;
  }
  if (!isMap(value)) return;
  const type = value['type'];
  if (type === 'media') add('media-content/v1');
  if (type === 'text_with_state') add('provider-text-state/v1');
  if (type === 'redacted_reasoning' && value['provider_format'] === 'open_router') add('openrouter-reasoning/v1');
  if (isMap(value['output']) && Array.isArray(value['output']['parts'])) add('media-content/v1');
  for (const key of ['content', 'input', 'output', 'parts', 'assistant_message', 'request', 'replacement', 'subject', 'message', 'messages']) {
    if (Object.hasOwn(value, key)) gateContent(value[key], add, depth + 1);
  }
}

function gateConfig(config: CborValue | undefined, add: (feature: string) => void): void {
  if (!isMap(config)) return;
  if (config['provider_text_state'] === true) add('provider-text-state/v1');
  if (isMap(config['reasoning_echo']) && config['reasoning_echo']['format'] === 'open_router_details') {
    add('openrouter-reasoning/v1');
  }
  if (has(config, 'chatgpt_wire')) add('chatgpt-codex-wire/v1');
  if (config['render_tags'] === true) add('runner-tags/v1');
}

function isParts(output: CborValue | undefined): boolean {
  return isMap(output) && Array.isArray(output['parts']);
}

function isMap(value: CborValue | undefined): value is { [key: string]: CborValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

// A Map, not an object literal: a record type is WAL text, and one named "constructor", "__proto__" or
// "hasOwnProperty" must find no gate (an unknown type, §5.5), never a member of Object.prototype.
const GATES: ReadonlyMap<string, Gate> = new Map(Object.entries({
  run_started(payload, add) {
    if (has(payload, 'scope')) add('scope/v1');
    if (has(payload, 'manifest')) add('plan-manifest/v1');
    gateTags(payload, add);
    gateConfig(payload['config'], add);
    gateContent(payload['input'], add);
    gateContent(payload['hooks'], add);
  },
  model_step_finished(payload, add) {
    gateTags(payload, add);
    gateContent(payload['assistant_message'], add);
  },
  tool_dispatch_intent(payload, add) {
    if (has(payload, 'module_id') || has(payload, 'schema_pin')) add('dispatch-module/v1');
    if (has(payload, 'dispatched_at_ms')) add('tool-times/v1');
  },
  tool_no_dispatch(payload, add) {
    if (has(payload, 'dispatched_at_ms')) add('tool-times/v1');
    gateTags(payload, add);
  },
  tool_result(payload, add) {
    if (has(payload, 'finished_at_ms')) add('tool-times/v1');
    if (isParts(payload['output'])) add('media-content/v1');
    gateContent(payload['hooks'], add);
    gateTags(payload, add);
  },
  steered(payload, add) {
    add('steer-queue/v1');
    gateTags(payload, add);
    gateContent(payload['input'], add);
    gateContent(payload['hooks'], add);
  },
  run_finished(payload, add) {
    if (payload['reason'] === 'context_ceiling') add('context-ceiling/v1');
    gateProviderDetails(payload['error'], add);
  },
  run_cancel_requested: always('run-cancel-at/v1'),
  tool_call_provider_held: always('provider-held/v1'),
  run_paused(payload, add) {
    if (payload['reason'] === 'tool_held') add('provider-held/v1');
    gateProviderDetails(payload['error'], add);
  },
  queued(payload, add) {
    gateContent(payload['request'], add);
    gateContent(payload['hooks'], add);
  },
  retracted(payload, add) {
    const failure = payload['failure'];
    if (isMap(failure)) gateProviderDetails(failure['error'], add);
  },
  send_delivered(payload, add) {
    gateTags(payload, add);
    gateContent(payload['input'], add);
  },
  approval_recorded(payload, add) {
    if (has(payload, 'closed_at_ms')) add('tool-times/v1');
    if (isParts(payload['output']) || (isMap(payload['result']) && isParts(payload['result']['output']))) {
      add('media-content/v1');
    }
    gateTags(payload, add);
  },
  late_result(payload, add) {
    if (isParts(payload['output'])) add('media-content/v1');
  },
  tool_call_deferred(payload, add) {
    if (has(payload, 'deferred_at_ms')) add('tool-times/v1');
  },
  compaction_view_applied(payload, add) {
    add('compaction-view/v1');
    gateContent(payload['view'], add);
    gateContent(payload['replacement'], add);
  },
  compaction_notice: always('compaction-view/v1'),
  compaction_message(payload, add) {
    add(has(payload, 'ceiling_policy') ? 'compaction-view/v1' : 'compaction/v1');
    gateContent(payload['replacement'], add);
    gateContent(payload['message'], add);
  },
  context_ceiling_wait: always('context-ceiling/v1'),
  context_ceiling_decided: always('context-ceiling/v1'),
  budget_fired: gateTags,
  compaction_request: always('compaction/v1'),
  compaction_answer: always('compaction/v1'),
  compaction_wait: always('compaction/v1'),
} satisfies Record<string, Gate>));

/** The features a record requires, sorted and unique: empty for a plain (ver 2) frame. */
export function requiredFeatures(type: string, payload: Payload): string[] {
  const features = new Set<string>();
  GATES.get(type)?.(payload, (feature) => features.add(feature));
  return [...features].sort();
}

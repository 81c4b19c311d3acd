// One model step: the boundary records a configured session writes before model I/O (compaction view and
// notice, context-ceiling wait and decision), the request rendered turn by turn by the replay library, one
// model_attempt_finished per provider attempt, and the assembled model_step_finished. Nothing of the model
// leg is synced on its own: re-running an interrupted step is idempotent, so its records become durable at
// the next barrier (the batch start or the run's terminal).
//
// The request is rendered by the same function `walscope replay --at` uses, and request_len/request_sha256
// count and digest its canonical bytes (the CBOR of its messages), so the WAL proves what the model was sent.
import assert from 'node:assert/strict';
import type { JsonPayload, RenderedMessage, StepFold, StepNote } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { checkProviderValid } from '../replay/provider-validity.js';
import { replacementDigest, requestBytes, requestSize, sha256Bytes, VIEW_RECORD_TYPE, viewRecords } from '../replay/views.js';
import { taggedEach, toolUsesOf, type RunContext } from './context.js';
import { ProviderInvalidRequestError } from './errors.js';
import { MODEL_ATTEMPTS_MAX } from './limits.js';
import type { PublishedView, ToolUse } from './ports.js';

export interface StepResult {
  assistant_message: JsonPayload;
  uses: ToolUse[];
}

/** What a step boundary decided: send the step's request, or refuse the step (the run ends there). */
export type BoundaryDecision = { kind: 'send' } | { kind: 'ceiling_refused' } | { kind: 'view_refused'; message: string };

const SEND: BoundaryDecision = { kind: 'send' };

/** Requests are sized in estimated tokens: four bytes of the canonical encoding a token. */
export function estimatedTokens(size_bytes: number): number {
  return Math.ceil(size_bytes / 4);
}

/** Writes what the step boundary owes before model I/O, and decides whether the step may send. Recovery keeps
 *  what is already durable: a recorded view is rendered from its record (the provider is not asked again),
 *  a recorded wait keeps its deadline, a recorded decision is honoured. */
export function writeStepBoundary(ctx: RunContext, step_id: number): BoundaryDecision {
  const { config, journal } = ctx;
  if (!config.compaction && config.ceiling_wait_ms === null) return SEND;
  const notes = stepFold(ctx, step_id)?.notes ?? [];
  const wrote_view = config.compaction && writeViewAndNotice(ctx, step_id, notes);
  const rendering = journal.renderRequest();
  const view_problem = rendering.problems.find((problem) => problem.kind === 'view_not_assembled');
  const ceiling = view_problem === undefined && config.ceiling_wait_ms !== null ? decideCeiling(ctx, step_id, notes, rendering.messages) : null;
  if (wrote_view || ceiling?.wrote === true) journal.barrier();
  if (view_problem !== undefined) return { kind: 'view_refused', message: view_problem.message };
  return ceiling?.decision ?? SEND;
}

/** The boundary's view (when the provider published one) and its notice. The notice follows the view: once it
 *  is recorded, the view question was settled, and a recorded view is never asked for again. */
function writeViewAndNotice(ctx: RunContext, step_id: number, notes: readonly StepNote[]): boolean {
  const has = (type: string) => notes.some((note) => note.type === type);
  const replanted = ctx.plants.reask_recorded_view === true;
  if (has('compaction_notice') && !replanted) return false;
  if (!has(VIEW_RECORD_TYPE) || replanted) {
    const published = ctx.ports.compactor.view(ctx.run_id, step_id);
    if (published !== null) ctx.journal.append(VIEW_RECORD_TYPE, viewPayload(step_id, published));
  }
  ctx.journal.append('compaction_notice', { step_id, notice_seq: ctx.journal.nextNoticeSeq(), headers: noticeHeaders(ctx, 'step') });
  return true;
}

/** The ceiling wait and decision over the rendered request: permission when its estimated tokens fit the
 *  window, else the terminal refusal. A recorded wait keeps its deadline; a recorded decision is honoured. */
function decideCeiling(ctx: RunContext, step_id: number, notes: readonly StepNote[], messages: readonly RenderedMessage[]): { decision: BoundaryDecision; wrote: boolean } {
  const decided = notes.find((note) => note.type === 'context_ceiling_decided');
  if (decided !== undefined) return { decision: refusedDecision(decided) ? { kind: 'ceiling_refused' } : SEND, wrote: false };
  const wait_ms = ctx.config.ceiling_wait_ms!;
  if (!notes.some((note) => note.type === 'context_ceiling_wait')) ctx.journal.append('context_ceiling_wait', { step_id, deadline_ms: ctx.clock.now_ms() + wait_ms });
  const size = estimatedTokens(requestSize(messages.map((rendered) => rendered.message), ctx.journal.sums));
  const window = ctx.config.ceiling_window_tokens;
  const detail = window !== null && size > window ? { window, size, cause: 'over_window' } : null;
  ctx.journal.append('context_ceiling_decided', { step_id, detail });
  return { decision: detail === null ? SEND : { kind: 'ceiling_refused' }, wrote: true };
}

function refusedDecision(decided: StepNote): boolean {
  const detail = decided.payload['detail'];
  return detail !== null && detail !== undefined;
}

function viewPayload(step_id: number, published: PublishedView): Payload {
  const replacement = published.replacement as Payload[];
  const view = {
    view_id: published.view_id,
    version: published.version,
    through_step: published.through_step,
    replacement,
    replacement_sha256: replacementDigest(replacement),
  };
  return { step_id, view, applied: published.applied };
}

/** A notice names the boundary and the view in force after it (the provider's duplicate check keys on it). */
function noticeHeaders(ctx: RunContext, boundary: 'step' | 'final'): Payload {
  const latest = viewRecords(ctx.journal.fold().episodes.at(-1)!, ctx.journal.sums).at(-1);
  return latest === undefined ? { boundary } : { boundary, view_id: latest.view_id, view_version: latest.version };
}

/** The notice recorded after a run's last step, before its terminal (compaction sessions only). */
export function writeFinalNotice(ctx: RunContext, step_id: number): void {
  if (!ctx.config.compaction) return;
  ctx.journal.append('compaction_notice', { step_id, notice_seq: ctx.journal.nextNoticeSeq(), headers: noticeHeaders(ctx, 'final') });
}

export function runModelStep(ctx: RunContext, step_id: number): StepResult {
  const journal = ctx.journal;
  const prior_attempts = stepFold(ctx, step_id)?.attempts.length ?? 0;
  const rendering = journal.renderRequest();
  // The boundary refused a view that no longer assembles; a rendering problem here is a runtime bug.
  const problem = rendering.problems[0];
  if (problem !== undefined) throw new ProviderInvalidRequestError(ctx.run_id, step_id, problem.message);
  const request = rendering.messages.map((rendered) => rendered.message);
  const validity = checkProviderValid(request);
  journal.request(ctx.run_id, step_id, request);
  if (!validity.valid) {
    const invalid = validity.problems[0]!;
    throw new ProviderInvalidRequestError(ctx.run_id, step_id, `${invalid.kind} for ${invalid.tool_use_id} at message ${invalid.message_index}`);
  }
  const answer = ctx.ports.model.answer(ctx.run_id, step_id, request);
  assert.ok(answer.failed_attempts >= 0 && answer.failed_attempts < MODEL_ATTEMPTS_MAX, `failed attempts ${answer.failed_attempts}`);
  const request_bytes = requestBytes(request);
  const response_bytes = Buffer.from(JSON.stringify(answer.assistant_message), 'utf8');
  const error_bytes = Buffer.from('{"type":"error","error":{"type":"overloaded_error"}}', 'utf8');
  for (let attempt = 1; attempt <= answer.failed_attempts + 1; attempt++) {
    const failed = attempt <= answer.failed_attempts;
    const response = failed ? error_bytes : response_bytes;
    journal.append('model_attempt_finished', {
      step_id,
      attempt: prior_attempts + attempt,
      request_len: request_bytes.length,
      request_sha256: sha256Bytes(request_bytes),
      response_len: response.length,
      response_sha256: sha256Bytes(response),
      http_status: failed ? 529 : 200,
      content_type: 'application/json',
      outcome: failed ? 'http_error' : 'completed',
      ts_ms: ctx.clock.now_ms(),
    });
  }
  const blocks = Array.isArray(answer.assistant_message['content']) ? answer.assistant_message['content'].length : 0;
  const usage = { input_tokens: estimatedTokens(request_bytes.length), output_tokens: estimatedTokens(response_bytes.length) };
  journal.append('model_step_finished', taggedEach(ctx, { step_id, assistant_message: answer.assistant_message, usage }, blocks, false));
  return { assistant_message: answer.assistant_message, uses: toolUsesOf(answer.assistant_message) };
}

function stepFold(ctx: RunContext, step_id: number): StepFold | undefined {
  return ctx.journal.fold().episodes.at(-1)?.steps.find((step) => step.step_id === step_id);
}

// One model step: the boundary records a configured session writes before model I/O (compaction view and
// notice, context-ceiling wait and decision), the request rendered turn by turn by the replay library, one
// model_attempt_finished per provider attempt, and the assembled model_step_finished. Nothing of the model
// leg is synced on its own: re-running an interrupted step is idempotent, so its records become durable at
// the next barrier (the batch start or the run's terminal).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { JsonPayload, StepFold } from '../../src-shared/replay.js';
import { checkProviderValid, renderTranscript } from '../replay/transcript.js';
import { taggedEach, toolUsesOf, type RunContext } from './context.js';
import { ProviderInvalidRequestError } from './errors.js';
import { MODEL_ATTEMPTS_MAX } from './limits.js';
import type { ToolUse } from './ports.js';

export interface StepResult {
  assistant_message: JsonPayload;
  uses: ToolUse[];
}

/** Writes what the step boundary owes before model I/O; recovery keeps a decision or view already durable. */
export function writeStepBoundary(ctx: RunContext, step_id: number): void {
  const { config, journal, clock } = ctx;
  if (!config.compaction && config.ceiling_wait_ms === null) return;
  const notes = stepFold(ctx, step_id)?.notes ?? [];
  const has = (type: string) => notes.some((note) => note.type === type);
  let wrote = false;
  // A view covers the turns before this step, so there is none before the first step.
  if (config.compaction && step_id >= 2 && !has('compaction_view_applied')) {
    const view = { view_id: `${ctx.run_id}.v${step_id}`, version: step_id - 1, covers_steps: step_id - 1 };
    journal.append('compaction_view_applied', { step_id, view, applied: 'as_published' });
    journal.append('compaction_notice', { step_id, notice_seq: journal.nextNoticeSeq(), headers: { view_version: view.version } });
    wrote = true;
  }
  if (config.ceiling_wait_ms !== null && !has('context_ceiling_decided')) {
    journal.append('context_ceiling_wait', { step_id, deadline_ms: clock.now_ms() + config.ceiling_wait_ms });
    journal.append('context_ceiling_decided', { step_id, detail: null });
    wrote = true;
  }
  if (wrote) journal.barrier();
}

/** The notice recorded after a run's last step, before its terminal (compaction sessions only). */
export function writeFinalNotice(ctx: RunContext, step_id: number): void {
  if (!ctx.config.compaction) return;
  ctx.journal.append('compaction_notice', { step_id, notice_seq: ctx.journal.nextNoticeSeq(), headers: { final: true } });
}

export function runModelStep(ctx: RunContext, step_id: number): StepResult {
  const journal = ctx.journal;
  const prior_attempts = stepFold(ctx, step_id)?.attempts.length ?? 0;
  const request = renderTranscript(journal.fold(), journal.payloads);
  const validity = checkProviderValid(request);
  journal.request(ctx.run_id, step_id, request);
  if (!validity.valid) {
    const problem = validity.problems[0]!;
    throw new ProviderInvalidRequestError(ctx.run_id, step_id, `${problem.kind} for ${problem.tool_use_id} at message ${problem.message_index}`);
  }
  const answer = ctx.ports.model.answer(ctx.run_id, step_id, request);
  assert.ok(answer.failed_attempts >= 0 && answer.failed_attempts < MODEL_ATTEMPTS_MAX, `failed attempts ${answer.failed_attempts}`);
  const request_bytes = Buffer.from(JSON.stringify(request), 'utf8');
  const response_bytes = Buffer.from(JSON.stringify(answer.assistant_message), 'utf8');
  const error_bytes = Buffer.from('{"type":"error","error":{"type":"overloaded_error"}}', 'utf8');
  for (let attempt = 1; attempt <= answer.failed_attempts + 1; attempt++) {
    const failed = attempt <= answer.failed_attempts;
    const response = failed ? error_bytes : response_bytes;
    journal.append('model_attempt_finished', {
      step_id,
      attempt: prior_attempts + attempt,
      request_len: request_bytes.length,
      request_sha256: sha256(request_bytes),
      response_len: response.length,
      response_sha256: sha256(response),
      http_status: failed ? 529 : 200,
      content_type: 'application/json',
      outcome: failed ? 'http_error' : 'completed',
      ts_ms: ctx.clock.now_ms(),
    });
  }
  const blocks = Array.isArray(answer.assistant_message['content']) ? answer.assistant_message['content'].length : 0;
  const usage = { input_tokens: Math.ceil(request_bytes.length / 4), output_tokens: Math.ceil(response_bytes.length / 4) };
  journal.append('model_step_finished', taggedEach(ctx, { step_id, assistant_message: answer.assistant_message, usage }, blocks, false));
  return { assistant_message: answer.assistant_message, uses: toolUsesOf(answer.assistant_message) };
}

function stepFold(ctx: RunContext, step_id: number): StepFold | undefined {
  return ctx.journal.fold().episodes.at(-1)?.steps.find((step) => step.step_id === step_id);
}

function sha256(bytes: Buffer): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

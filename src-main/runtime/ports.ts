// The runtime's view of the world outside the process: a model, a tool policy and approver, a tool plane and
// an owner. The scripted implementations (scripted.ts) answer from a SessionScript; the live demo answers
// from a generator. The runtime knows nothing else about them.
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';
import type { EventTrigger, NoDispatchReason, RunConfig, ScopeDrainReason } from './script.js';

export interface ToolUse {
  id: string;
  name: string;
  input: JsonValue;
}

export interface ModelAnswer {
  /** Attempts that failed before the answer (each gets its model_attempt_finished). */
  failed_attempts: number;
  assistant_message: JsonPayload;
}

export interface Model {
  /** The answer for `step_id` of `run_id`, given the request the runtime rendered. Asking again for the same
   *  step (a resumed in-flight step) gives the same answer: re-running a model step is idempotent. */
  answer(run_id: string, step_id: number, request: readonly JsonPayload[]): ModelAnswer;
}

/** A compaction view as its provider published it for one step boundary (wal-format §6). */
export interface PublishedView {
  view_id: string;
  version: number;
  through_step: number;
  replacement: JsonPayload[];
  applied: 'as_published' | 'reasoning_stripped';
}

export interface Compactor {
  /** The view published for the boundary before `step_id`, or null when none is. Asked once per boundary:
   *  once the view is recorded, the record alone renders it (a resumed run never asks again). */
  view(run_id: string, step_id: number): PublishedView | null;
}

export interface CallPlan {
  plan: 'dispatch' | 'no_dispatch';
  reason: NoDispatchReason | null;
  needs_approval: boolean;
  safe: boolean;
}

export interface ToolPolicy {
  /** Capability validation and policy: dispatchable, or no_dispatch with a reason (contract §3 step 1). */
  plan(run_id: string, call: ToolUse): CallPlan;
  /** The approver's decision on a call's card. */
  decide(run_id: string, tool_call_id: string): 'approved' | 'denied';
  /** Whether the batch of these calls dispatches one call at a time. */
  sequential(run_id: string, calls: readonly ToolUse[]): boolean;
}

/** The compound dedup key of a call (contract §2): never the bare tool_call_id. */
export interface CallKey {
  session: string;
  run_id: string;
  batch_id: string;
  tool_call_id: string;
}

export function callKeyText(key: CallKey): string {
  return `${key.session}/${key.run_id}/${key.batch_id}/${key.tool_call_id}`;
}

export type DispatchOutcome =
  | { kind: 'completed'; output: JsonValue }
  | { kind: 'not_sent'; output: string }
  | { kind: 'unknown' }
  | { kind: 'scope_drained'; sent: boolean; reason: ScopeDrainReason }
  | { kind: 'held'; call_key: string; module: string; reason: string; detail_digest: string };

export interface LateDelivery {
  call_key: string;
  output: string;
}

export interface ToolPlane {
  dispatch(key: CallKey, name: string, args: JsonValue): DispatchOutcome;
  /** Late results the providers deliver now, for calls they hold. Delivered again after a crash until the
   *  runtime releases the registration (contract §3 step 8: pruned only once the batch and turn are synced). */
  deliverable(): LateDelivery[];
  release(call_key: string): void;
}

/** What the owner does at a trigger point. A queued send carries the config its run will be frozen with. */
export type OwnerAction =
  | { kind: 'steer'; send_id: string; text: string }
  | { kind: 'queue'; submission_id: string; text: string; delivery: 'plain' | 'interrupt'; config: RunConfig }
  | { kind: 'cancel'; at: 'now' | 'step_boundary' };

export interface Owner {
  actions(run_id: string, trigger: EventTrigger): OwnerAction[];
}

// What a scripted session is: the runs an owner starts, the model's answer at every step, the outcome of every
// tool call, and the owner's steers, sends and cancels at chosen points. A script is plain data, so the crash
// simulator, the demo and the tests describe sessions the same way, and every process of a crashed session
// (the first one and each recovery) reads the same script.
import type { JsonValue } from '../../src-shared/replay.js';

export type NoDispatchReason = 'denied' | 'schema_invalid' | 'oversized' | 'plane_unavailable' | 'policy_blocked';

/** What scope.describe said about a closed route (contract §3 step 3). */
export type ScopeDrainReason = 'scope_ended' | 'scope_not_live' | 'scope_parent_ended' | 'scope_agent_changed' | 'scope_unverifiable';

/** The tool plane's answer to one dispatch (contract §3 step 3, plus the provider-held reply of step 8). */
export type CallOutcomeScript =
  /** Its output: a text, or Parts `{parts: [block]}` (a media block among them is media-content/v1). */
  | { kind: 'completed'; output: JsonValue }
  /** It never left the process: a safe, normal error result. */
  | { kind: 'not_sent' }
  /** SentButOutcomeUnknown: the side effect applied, no result came back. */
  | { kind: 'unknown' }
  | { kind: 'scope_drained'; sent: boolean; reason: ScopeDrainReason }
  /** The provider holds the call; its late result arrives later (late_output), or never (null). */
  | { kind: 'held'; late_output: string | null };

export interface CallScript {
  id: string;
  name: string;
  args: { [key: string]: JsonValue };
  outcome: CallOutcomeScript;
  /** Planned no_dispatch (validation or policy said no before anything was sent). */
  no_dispatch?: NoDispatchReason;
  /** The call needs an approval card; a denial makes it no_dispatch{denied}. */
  approval?: 'approved' | 'denied';
  /** Declared pure/idempotent: it may run beside an unknown outcome in a parallel batch. */
  safe?: boolean;
}

/** What the model thought before it answered (wal-format §6): its reasoning with the provider's signature, or
 *  reasoning the provider redacted (its opaque data only). */
export type ThinkingScript = { text: string; signature: string } | { redacted: string };

export interface StepScript {
  /** Provider attempts that fail (and are retried) before the one that answers. */
  failed_attempts?: number;
  /** The answer's first blocks. */
  thinking?: ThinkingScript[];
  /** The answer's words: alone, a text-only answer (the run ends naturally there); with calls, said before them. */
  text?: string;
  /** A tool-call answer: the step produces a batch. */
  calls?: CallScript[];
  /** The batch dispatches one call at a time. */
  sequential?: boolean;
}

export type OwnerEvent =
  | { kind: 'steer'; send_id: string; text: string }
  | { kind: 'queue'; submission_id: string; text: string; delivery: 'plain' | 'interrupt' }
  | { kind: 'cancel'; at: 'now' | 'step_boundary' };

/** Where an owner event happens: at the boundary before a model step, or once a call's result is durable. */
export type EventTrigger = { before_step: number } | { after_result: string };

/** A compaction view the run's compaction provider publishes for the boundary before step `before_step`: its
 *  summary stands in for the turns of steps 1…through_step. A through_step at or past before_step, or below an
 *  earlier view's, is a view that no longer assembles: the runtime records it as published and refuses the step. */
export interface ViewScript {
  before_step: number;
  version: number;
  through_step: number;
  summary: string;
}

export interface RunConfig {
  model: string;
  max_steps: number;
  /** tool-times/v1 observations on intents, no-dispatch records, results and approval records. */
  tool_times: boolean;
  /** The session's plan names a compaction provider: views and notices at step boundaries. */
  compaction: boolean;
  /** Context-ceiling waits and decisions before model I/O, with this Setup wait; null: none. */
  ceiling_wait_ms: number | null;
  /** The context window, in estimated tokens, a request must fit to be sent (with ceiling_wait_ms); null: no
   *  window is enforced, every ceiling wait ends in permission. */
  ceiling_window_tokens: number | null;
  /** runner-tags/v1: every stored message part gets a per-session tag number. */
  render_tags: boolean;
}

export interface RunScript {
  run_id: string;
  /** 'direct': the owner starts it; 'queued': a queued send starts it (run_id = queuedRunId(submission)). */
  origin: 'direct' | 'queued';
  /** The user input of a direct run; a queued run takes its input from its queued record. */
  input: string;
  config: RunConfig;
  /** The model's answer for step_id n is steps[n - 1]. */
  steps: StepScript[];
  events: { trigger: EventTrigger; event: OwnerEvent }[];
  /** The views the compaction provider publishes (config.compaction); none when absent. */
  views?: ViewScript[];
}

export interface SessionScript {
  session_id: string;
  runs: RunScript[];
}

export function queuedRunId(submission_id: string): string {
  return `run-${submission_id}`;
}

export const DEFAULT_CONFIG: RunConfig = {
  model: 'scripted-model-1',
  max_steps: 8,
  tool_times: false,
  compaction: false,
  ceiling_wait_ms: null,
  ceiling_window_tokens: null,
  render_tags: false,
};

// The demo's live session: a run that takes one model step (one tool call) every interval through the real
// lease, for as long as the process lives. Its world is a generator, not a script: the model always reads
// the clock, the tool plane answers and records the side effect in the ledger inside the demo root. When a
// run reaches its step limit it seals (max_steps) and the next run starts, so the session never ends on its
// own. Stopping drains the writer, syncs, closes it and only then releases the lease.
import assert from 'node:assert/strict';
import type { JsonPayload } from '../../src-shared/replay.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import type { Ports } from '../runtime/context.js';
import { FileLedger, type SideEffectLedger } from '../runtime/ledger.js';
import type { CallKey, DispatchOutcome } from '../runtime/ports.js';
import type { RunLoop } from '../runtime/run-loop.js';
import { AgentRuntime } from '../runtime/runtime.js';
import { DEFAULT_CONFIG, type RunConfig } from '../runtime/script.js';
import { ledgerPathFor } from './paths.js';
import { LIVE_SESSION_ID } from './sessions.js';

/** Steps a live run takes before it seals and the next run starts (about ten minutes at one a second). */
export const LIVE_STEPS_PER_RUN = 600;
export const LIVE_INTERVAL_MS_DEFAULT = 1_000;
export const LIVE_INTERVAL_MS_MIN = 10;

const LIVE_CONFIG: RunConfig = { ...DEFAULT_CONFIG, model: 'demo-live-model', max_steps: LIVE_STEPS_PER_RUN, tool_times: true };

export function livePorts(ledger: SideEffectLedger, clock: Clock): Ports {
  return {
    model: {
      answer: (run_id, step_id) => ({
        failed_attempts: 0,
        assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: `${run_id}.t${step_id}`, name: 'read_clock', input: { step: step_id } }] } as JsonPayload,
      }),
    },
    policy: {
      plan: () => ({ plan: 'dispatch', reason: null, needs_approval: false, safe: true }),
      decide: () => 'approved',
      sequential: () => false,
    },
    plane: {
      dispatch(key: CallKey, name: string): DispatchOutcome {
        const now_ms = clock.now_ms();
        ledger.apply(key, name, now_ms);
        return { kind: 'completed', output: `the time is ${new Date(now_ms).toISOString()}` };
      },
      deliverable: () => [],
      release: () => undefined,
    },
    owner: { actions: () => [] },
    compactor: { view: () => null },
  };
}

export interface LiveOptions {
  interval_ms?: number;
  clock?: Clock;
  /** Called after every step with the WAL's last seq. */
  on_step?: (last_seq: number) => void;
  /** Called if a step fails; the session has stopped (and released its lease) by then. */
  on_error?: (error: unknown) => void;
}

export interface LiveSession {
  readonly session_id: string;
  readonly steps_appended: number;
  /** Stops appending: drains, syncs and closes the writer, then releases the lease. Idempotent. */
  stop(): void;
}

/** Takes the live session's lease (LeaseHeldError when another process appends to it) and appends a step every
 *  interval until stopped. */
export function startLiveSession(root: string, options: LiveOptions = {}): LiveSession {
  const interval_ms = options.interval_ms ?? LIVE_INTERVAL_MS_DEFAULT;
  assert.ok(Number.isSafeInteger(interval_ms) && interval_ms >= LIVE_INTERVAL_MS_MIN, `interval_ms ${interval_ms}`);
  const appender = new LiveAppender(root, options.clock ?? systemClock);
  let stopped = false;
  let steps = 0;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    appender.close();
  };
  const timer = setInterval(() => {
    try {
      // Step first: an optional call would skip evaluating its argument when no on_step is given.
      const last_seq = appender.step();
      steps += 1;
      options.on_step?.(last_seq);
    } catch (error) {
      stop();
      options.on_error?.(error);
    }
  }, interval_ms);
  return {
    session_id: LIVE_SESSION_ID,
    get steps_appended() {
      return steps;
    },
    stop,
  };
}

/** Appends `steps` steps to the live session and closes it: the state the demo leaves when not live. */
export function appendLiveSteps(root: string, steps: number, clock: Clock = systemClock): void {
  const appender = new LiveAppender(root, clock);
  try {
    for (let index = 0; index < steps; index++) appender.step();
  } finally {
    appender.close();
  }
}

class LiveAppender {
  private readonly runtime: AgentRuntime;
  private loop: RunLoop | null;

  constructor(root: string, clock: Clock) {
    this.runtime = AgentRuntime.open({ root, session_id: LIVE_SESSION_ID, clock, ports: livePorts(new FileLedger(ledgerPathFor(root)), clock), writer_name: 'walscope-demo-live' });
    try {
      this.loop = this.runtime.recover().loop;
    } catch (error) {
      this.runtime.close();
      throw error;
    }
  }

  /** One model step and its batch (a new run first when none is open). Returns the WAL's last seq. */
  step(): number {
    if (this.loop === null || this.loop.finished) {
      const runs = this.runtime.journal.fold().episodes.length;
      this.loop = this.runtime.startRun(`live-${runs + 1}`, 'keep an eye on the clock', LIVE_CONFIG);
      assert.ok(this.loop !== null, 'a new live run id');
    }
    this.loop.advance();
    return this.runtime.journal.session.writer.last_seq;
  }

  close(): void {
    this.runtime.close();
  }
}

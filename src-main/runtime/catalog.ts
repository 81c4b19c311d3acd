// The scripted sessions the crash simulator crashes and the demo shows: together they drive every path of
// the runtime — parallel and sequential batches, every dispatch outcome, approvals, held calls with a late
// result or none, steers, queued and interrupting sends, both cancels, max steps, tool times, compaction
// views, ceiling waits and runner tags. Each is small on purpose: the exhaustive suite crashes every
// persistence point of each, several times.
import type { JsonValue } from '../../src-shared/replay.js';
import { DEFAULT_CONFIG, type CallOutcomeScript, type CallScript, type RunConfig, type RunScript, type SessionScript, type StepScript } from './script.js';

export function call(id: string, outcome: CallOutcomeScript, extra: Partial<CallScript> = {}): CallScript {
  const args: { [key: string]: JsonValue } = { target: `${id}.txt` };
  return { id, name: extra.name ?? 'edit_file', args, outcome, ...extra };
}

export const done = (output: JsonValue): CallOutcomeScript => ({ kind: 'completed', output });

export function run(run_id: string, steps: StepScript[], options: Partial<Omit<RunScript, 'run_id' | 'steps'>> & { configure?: Partial<RunConfig> } = {}): RunScript {
  return {
    run_id,
    origin: options.origin ?? 'direct',
    input: options.input ?? `please work on ${run_id}`,
    config: { ...DEFAULT_CONFIG, ...options.configure },
    steps,
    events: options.events ?? [],
    ...(options.views === undefined ? {} : { views: options.views }),
  };
}

/** r2's window: its first request (about 70 tokens) fits; its second, which carries a long tool output, does not. */
const CEILING_DEMO_WINDOW_TOKENS = 150;
const LONG_OUTPUT = 'a long tool output that pushes the next prompt over its window. '.repeat(16);

const finish = (text = 'all done'): StepScript => ({ text });

/** Two steps: a parallel batch of two completed calls after a failed provider attempt, then a text answer. */
export const basicSession: SessionScript = {
  session_id: 'sim-basic',
  runs: [
    run('r1', [
      { failed_attempts: 1, calls: [call('c1', done('wrote c1')), call('c2', done('wrote c2'))] },
      finish(),
    ]),
  ],
};

/** Approval cards (one approved, one denied), a schema-invalid call, tool times on every observation. */
export const approvalsSession: SessionScript = {
  session_id: 'sim-approvals',
  runs: [
    run(
      'r1',
      [
        {
          calls: [
            call('a1', done('deployed'), { name: 'deploy', approval: 'approved' }),
            call('a2', done('never runs'), { name: 'drop_table', approval: 'denied' }),
            call('a3', done('never runs'), { no_dispatch: 'schema_invalid' }),
          ],
        },
        finish('deployed; the drop was denied'),
      ],
      { configure: { tool_times: true } },
    ),
  ],
};

/** A sequential batch behind a provider-held call whose late result arrives: the calls after it wait. */
export const heldSequentialSession: SessionScript = {
  session_id: 'sim-held-sequential',
  runs: [
    run('r1', [
      {
        sequential: true,
        calls: [call('h1', done('read config'), { name: 'read' }), call('h2', { kind: 'held', late_output: 'review approved' }, { name: 'request_review' }), call('h3', done('merged'), { name: 'merge' })],
      },
      finish('merged after review'),
    ]),
  ],
};

/** A parallel batch with an unknown outcome: the side-effecting call after it is stopped, the safe one runs;
 *  the run is interrupted; the owner's next send starts a second run that sees the unknown result. */
export const parallelUnknownSession: SessionScript = {
  session_id: 'sim-parallel-unknown',
  runs: [
    run('r1', [
      {
        calls: [
          call('u1', { kind: 'unknown' }, { name: 'charge_card' }),
          call('u2', done('emailed'), { name: 'send_email' }),
          call('u3', done('listed'), { name: 'list_files', safe: true }),
        ],
      },
    ]),
    run('r2', [finish('the charge may have gone through: check before retrying')], { input: 'what happened to the charge?' }),
  ],
};

/** Route outcomes: a drained route never sent, a plane that could not send, then a drained route that did send. */
export const scopeDrainedSession: SessionScript = {
  session_id: 'sim-scope-drained',
  runs: [
    run('r1', [
      {
        calls: [
          call('s1', { kind: 'scope_drained', sent: false, reason: 'scope_ended' }),
          call('s2', { kind: 'not_sent' }),
          call('s3', done('ok')),
        ],
      },
      { calls: [call('s4', { kind: 'scope_drained', sent: true, reason: 'scope_agent_changed' })] },
    ]),
  ],
};

/** A steer, a plain queued send and an interrupting send: the interrupt cancels at the step boundary and its
 *  run drains before the plain one. */
export const steerQueueSession: SessionScript = {
  session_id: 'sim-steer-queue',
  runs: [
    run(
      'r1',
      [
        { calls: [call('q1', done('step one'))] },
        { calls: [call('q2', done('step two'))] },
        { calls: [call('q3', done('never asked'))] },
      ],
      {
        events: [
          { trigger: { before_step: 2 }, event: { kind: 'steer', send_id: 'steer-1', text: 'also update the changelog' } },
          { trigger: { after_result: 'q2' }, event: { kind: 'queue', submission_id: 'plain-1', text: 'then tag a release', delivery: 'plain' } },
          { trigger: { after_result: 'q2' }, event: { kind: 'queue', submission_id: 'urgent-1', text: 'stop: revert first', delivery: 'interrupt' } },
        ],
      },
    ),
    run('run-urgent-1', [{ calls: [call('q4', done('reverted'))] }, finish('reverted')], { origin: 'queued' }),
    run('run-plain-1', [finish('tagged v1.2.0')], { origin: 'queued' }),
  ],
};

/** cancel{at: now} after the first result of a sequential batch: the rest is closed, the run sealed Cancelled. */
export const cancelNowSession: SessionScript = {
  session_id: 'sim-cancel-now',
  runs: [
    run('r1', [{ sequential: true, calls: [call('k1', done('one')), call('k2', done('two')), call('k3', done('three'))] }], {
      events: [{ trigger: { after_result: 'k1' }, event: { kind: 'cancel', at: 'now' } }],
    }),
  ],
};

/** A model that never stops calling tools, under max_steps 2. */
export const maxStepsSession: SessionScript = {
  session_id: 'sim-max-steps',
  runs: [
    run('r1', [{ calls: [call('m1', done('1'))] }, { calls: [call('m2', done('2'))] }, { calls: [call('m3', done('3'))] }], {
      configure: { max_steps: 2 },
    }),
  ],
};

/** Compaction and the context ceiling: two views superseding each other with a notice at every boundary and
 *  ceiling waits that end in permission (r1), a ceiling wait that ends in refusal (r2), and a stale view that
 *  no longer assembles, refused at its step (r3). */
export const compactionSession: SessionScript = {
  session_id: 'sim-compaction',
  runs: [
    run('r1', [{ calls: [call('v1', done('a'))] }, { calls: [call('v2', done('b'))] }, finish('compacted and done')], {
      configure: { compaction: true, ceiling_wait_ms: 30_000, ceiling_window_tokens: 4_000, render_tags: true },
      views: [
        { before_step: 2, version: 1, through_step: 1, summary: 'Summary of step 1: v1.txt was edited (a).' },
        { before_step: 3, version: 2, through_step: 2, summary: 'Summary of steps 1-2: v1.txt and v2.txt were edited (a, b).' },
      ],
    }),
    run('r2', [{ calls: [call('w1', done(LONG_OUTPUT))] }, finish('never sent')], {
      configure: { ceiling_wait_ms: 30_000, ceiling_window_tokens: CEILING_DEMO_WINDOW_TOKENS },
    }),
    run('r3', [{ calls: [call('x1', done('c'))] }, { calls: [call('x2', done('d'))] }, { calls: [call('x3', done('e'))] }, finish('never sent')], {
      configure: { compaction: true, render_tags: true },
      views: [
        { before_step: 3, version: 2, through_step: 2, summary: 'Summary of steps 1-2: x1.txt and x2.txt were edited (c, d).' },
        { before_step: 4, version: 1, through_step: 1, summary: 'A stale summary of step 1, published again after version 2.' },
      ],
    }),
  ],
};

/** A parallel batch where a provider holds one call and never delivers: the run stays paused tool_held. */
export const heldNeverSession: SessionScript = {
  session_id: 'sim-held-never',
  runs: [run('r1', [{ calls: [call('n1', { kind: 'held', late_output: null }, { name: 'request_review' }), call('n2', done('linted'))] }])],
};

export const CRASH_SESSIONS: readonly SessionScript[] = [
  basicSession,
  approvalsSession,
  heldSequentialSession,
  parallelUnknownSession,
  scopeDrainedSession,
  steerQueueSession,
  cancelNowSession,
  maxStepsSession,
  compactionSession,
  heldNeverSession,
];

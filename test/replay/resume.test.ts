// One WAL per class and per resume action, written with the engine's writer into a real state root. For each:
// the classes replay gives every call (contract §4 table), the action, and the records the resume appends, read
// back from disk, with their barrier grouping observed through a recording FileIO. Then the resume runs again
// and must write nothing, and the conversation it leaves must be provider-valid.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallClass, ResumeAction } from '../../src-shared/replay.js';
import { resumeSession } from '../../src-main/recovery/actions.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';
import { FaultyIO } from '../helpers/faulty-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { batchFinished, closedResult, resumeStarted, runFinished, turnFinished, unknownResult, type ExpectedRecord } from './expect.js';
import { diskFold, diskRecords, lastSeq, maxFence, SessionScript, walBytes, walOf, writesPerBarrier } from './session-script.js';

const tempDir = useTempDirs('walscope-resume-');

const A = { id: 'a', name: 'read_file' };
const B = { id: 'b', name: 'write_file' };
const C = { id: 'c', name: 'bash' };
const D = { id: 'd', name: 'fetch' };

interface ResumeCase {
  name: string;
  /** Writes the history; may return an offset to cut the file at (a torn write). */
  build: (script: SessionScript) => number | void;
  classes: Record<string, CallClass>;
  action: ResumeAction;
  /** The records appended, one array per barrier, given the last seq before the resume. */
  barriers: (last_seq: number) => ExpectedRecord[][];
  redone?: string[];
  /** What the plan tells the operator, where it matters. */
  message?: RegExp;
}

const CASES: ResumeCase[] = [
  {
    name: 'natural end without run_finished: finalize',
    build: (s) => {
      s.start('r1');
      s.step(1);
    },
    classes: {},
    action: 'finalize',
    barriers: () => [[runFinished('completed')]],
  },
  {
    name: 'finished episode: none',
    build: (s) => {
      s.start('r1');
      s.step(1);
      s.runFinished('completed');
    },
    classes: {},
    action: 'none',
    barriers: () => [],
  },
  {
    name: 'parallel batch: completed, no_dispatch, indeterminate and never_left; close_out',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B, C, D]);
      s.batch('b1', 1, [A, { ...B, plan: 'no_dispatch' }, C, D]);
      s.intent('b1', 'a');
      s.intent('b1', 'c');
      s.noDispatch('b1', 'b');
      s.result('b1', 'a');
    },
    classes: { a: 'completed', b: 'no_dispatch', c: 'indeterminate', d: 'never_left' },
    action: 'close_out',
    barriers: (last) => [
      [
        resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 2 }, ['c']),
        unknownResult('b1', 'c'),
        closedResult('b1', 'd', 'interrupted'),
        batchFinished('b1'),
        turnFinished(1),
      ],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'torn write between tool_batch_started and its intents: never_left, continue',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      const intent = s.intent('b1', 'a');
      s.intent('b1', 'b');
      return intent.offset + 20;
    },
    classes: { a: 'never_left', b: 'never_left' },
    action: 'continue',
    barriers: () => [],
    redone: ['a', 'b'],
  },
  {
    name: 'unknown outcome recorded live: no second result, close_out',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.result('b1', 'a', 'unknown', 'unknown_outcome');
      s.result('b1', 'b');
    },
    classes: { a: 'indeterminate', b: 'completed' },
    action: 'close_out',
    barriers: (last) => [
      [resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 2 }, ['a']), batchFinished('b1'), turnFinished(1)],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'sequential batch, held call without a delivered result: held successors, wait_held writes the pause',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B, C]);
      s.batch('b1', 1, [A, B, C], true);
      for (const id of ['a', 'b', 'c']) s.intent('b1', id);
      s.result('b1', 'a');
      s.held('b1', 'b', true);
    },
    classes: { a: 'completed', b: 'provider_held', c: 'held_successor' },
    action: 'wait_held',
    barriers: () => [[{ type: 'run_paused', payload: { run_id: 'r1', reason: 'tool_held' } }]],
  },
  {
    name: 'parallel batch, held call with its pause already durable: wait_held writes nothing',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'a');
      s.result('b1', 'b');
      s.paused('r1');
    },
    classes: { a: 'provider_held', b: 'completed' },
    action: 'wait_held',
    barriers: () => [],
  },
  {
    name: 'sequential batch behind a DELIVERED held result: ordinary indeterminate, close_out',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B], true);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'a', true);
      s.result('b1', 'a');
    },
    classes: { a: 'completed', b: 'indeterminate' },
    action: 'close_out',
    barriers: (last) => [
      [resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 1 }, ['b']), unknownResult('b1', 'b'), batchFinished('b1'), turnFinished(1)],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'mixed crash: an indeterminate call wins over a held one (provider_held_interrupted)',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'a');
    },
    classes: { a: 'provider_held', b: 'indeterminate' },
    action: 'close_out',
    barriers: (last) => [
      [
        resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 0 }, ['b']),
        closedResult('b1', 'a', 'interrupted', 'provider_held_interrupted'),
        unknownResult('b1', 'b'),
        batchFinished('b1'),
        turnFinished(1),
      ],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'successors behind a close-out terminal: held_successor, the close-out goes on',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B, C]);
      s.batch('b1', 1, [A, B, C], true);
      for (const id of ['a', 'b', 'c']) s.intent('b1', id);
      s.held('b1', 'a', true);
      s.result('b1', 'a', 'interrupted', 'provider_held_interrupted');
    },
    classes: { a: 'interrupted', b: 'held_successor', c: 'held_successor' },
    action: 'close_out',
    barriers: (last) => [
      [
        resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 1 }, []),
        closedResult('b1', 'b', 'interrupted'),
        closedResult('b1', 'c', 'interrupted'),
        batchFinished('b1'),
        turnFinished(1),
      ],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'a max_steps close-out cut short beside an indeterminate call: the indeterminate handling wins, sealed interrupted',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B, C]);
      s.batch('b1', 1, [A, B, C]);
      s.intent('b1', 'b');
      s.result('b1', 'a', 'max_steps');
    },
    classes: { a: 'max_steps', b: 'indeterminate', c: 'never_left' },
    action: 'close_out',
    barriers: (last) => [
      [resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 1 }, ['b']), unknownResult('b1', 'b'), closedResult('b1', 'c', 'interrupted'), batchFinished('b1'), turnFinished(1)],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'successor behind a max_steps close-out: sealed max_steps',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B], true);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'a', true);
      s.result('b1', 'a', 'max_steps', 'provider_held_stopped');
    },
    classes: { a: 'max_steps', b: 'held_successor' },
    action: 'close_out',
    barriers: (last) => [
      [resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 1 }, []), closedResult('b1', 'b', 'max_steps'), batchFinished('b1'), turnFinished(1)],
      [runFinished('max_steps')],
    ],
  },
  {
    name: 'cancel requested at now: cancel_close_out, sealed cancelled',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      s.intent('b1', 'a');
      s.result('b1', 'a');
      s.cancel('r1', 'now');
    },
    classes: { a: 'completed', b: 'never_left' },
    action: 'cancel_close_out',
    barriers: (last) => [
      [resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 1 }, []), closedResult('b1', 'b', 'interrupted'), batchFinished('b1'), turnFinished(1)],
      [runFinished('cancelled')],
    ],
  },
  {
    name: 'cancel requested at step_boundary with a held call: an immediate close-out (provider_held_cancelled)',
    build: (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B], true);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'a', true);
      s.cancel('r1', 'step_boundary');
    },
    classes: { a: 'provider_held', b: 'held_successor' },
    action: 'cancel_close_out',
    barriers: (last) => [
      [
        resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 0 }, []),
        closedResult('b1', 'a', 'interrupted', 'provider_held_cancelled'),
        closedResult('b1', 'b', 'interrupted'),
        batchFinished('b1'),
        turnFinished(1),
      ],
      [runFinished('cancelled')],
    ],
  },
  {
    name: 'cancel with an indeterminate call: unknown, then sealed interrupted',
    build: (s) => {
      s.start('r1');
      s.step(1, [A]);
      s.batch('b1', 1, [A]);
      s.intent('b1', 'a');
      s.cancel('r1', 'now');
    },
    classes: { a: 'indeterminate' },
    action: 'cancel_close_out',
    barriers: (last) => [
      [resumeStarted(1, last, { messages: 1, model_steps: 1, tool_results: 0 }, ['a']), unknownResult('b1', 'a'), batchFinished('b1'), turnFinished(1)],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'two episodes: the last one is resumed, the first one is replayed',
    build: (s) => {
      s.start('r1');
      s.step(1);
      s.runFinished('completed');
      s.start('r2', 'and now this');
      s.step(1, [A]);
      s.batch('b2', 1, [A]);
      s.intent('b2', 'a');
    },
    classes: { a: 'indeterminate' },
    action: 'close_out',
    barriers: (last) => [
      [resumeStarted(2, last, { messages: 3, model_steps: 1, tool_results: 0 }, ['a']), unknownResult('b2', 'a'), batchFinished('b2'), turnFinished(1)],
      [runFinished('interrupted')],
    ],
  },
  {
    name: 'committed batch whose turn_finished was torn: continue, the turn boundary is owed before any model step',
    build: (s) => {
      s.start('r1');
      s.step(1, [A]);
      s.batch('b1', 1, [A]);
      s.intent('b1', 'a');
      s.result('b1', 'a');
      s.batchFinished('b1');
      return s.record('turn_finished', { step_id: 1 }).offset + 10;
    },
    classes: { a: 'completed' },
    action: 'continue',
    barriers: () => [],
    message: /the turn boundary \(turn_finished\) of step 1, then a model step/,
  },
  {
    name: 'committed turn: a model step is owed, continue',
    build: (s) => {
      s.start('r1');
      s.step(1, [A]);
      s.batch('b1', 1, [A]);
      s.intent('b1', 'a');
      s.result('b1', 'a');
      s.batchFinished('b1');
      s.turnFinished(1);
    },
    classes: { a: 'completed' },
    action: 'continue',
    barriers: () => [],
  },
];

describe('resume, one WAL per class and action', () => {
  it.each(CASES.map((entry) => [entry.name, entry]))('%s', (_name, entry) => {
    const root = tempDir();
    let cut: number | void = undefined;
    SessionScript.write(root, (script) => (cut = entry.build(script)));
    if (typeof cut === 'number') fs.truncateSync(walOf(root), cut);

    const before = diskFold(root);
    const calls = before.episodes.at(-1)?.batches.flatMap((batch) => batch.calls) ?? [];
    expect(Object.fromEntries(calls.map((call) => [call.tool_call_id, call.class]))).toEqual(entry.classes);

    const last_seq = lastSeq(root);
    const fence_before = maxFence(root);
    const bytes_before = walBytes(root);
    const recorder = new FaultyIO();
    const outcome = resumeSession(root, 's1', { io: recorder.io });
    expect(outcome.kind).toBe('done');
    if (outcome.kind !== 'done') return;
    expect(outcome.plan.action).toBe(entry.action);
    expect(outcome.plan.redone).toEqual(entry.redone ?? []);
    if (entry.message !== undefined) expect(outcome.plan.message).toMatch(entry.message);

    const expected = entry.barriers(last_seq);
    const appended = diskRecords(root).filter((record) => record.seq > last_seq);
    expect(appended.map(({ type, payload }) => ({ type, payload }))).toEqual(expected.flat());
    expect(outcome.appended.map((record) => record.seq)).toEqual(appended.map((record) => record.seq));
    if (expected.length === 0) {
      expect(walBytes(root).equals(bytes_before)).toBe(true);
    } else {
      for (const record of appended) expect(record.fence).toBeGreaterThan(fence_before);
      // The writer's lineage frame rides in the first barrier with the plan's first group.
      expect(writesPerBarrier(recorder, walOf(root))).toEqual(expected.map((group, index) => group.length + (index === 0 ? 1 : 0)));
    }

    const bytes_after = walBytes(root);
    const again = resumeSession(root, 's1');
    expect(again.kind === 'done' && again.appended).toEqual([]);
    expect(walBytes(root).equals(bytes_after)).toBe(true);
    expect(checkProviderValid(renderTranscript(diskFold(root), walPayloadReader(walOf(root))))).toEqual({ valid: true, problems: [] });
  });
});

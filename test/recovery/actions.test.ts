// The operator's and the runtime's closes (cancel, seal, stop), a crash between a close-out's two barriers,
// run_id idempotency, and a live writer holding the lease (a real child process). Every check re-reads the WAL
// from disk.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readArchive } from '../../src-main/engine/archive-reader.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { readHistory } from '../../src-main/engine/lineage-chain.js';
import { hex, readWal } from '../../src-main/engine/reader.js';
import { retireLineage } from '../../src-main/engine/retire.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { cancelSession, resumeSession, sealSession, startRun, stopRun, type RecoveryOutcome } from '../../src-main/recovery/actions.js';
import { WalIoError } from '../../src-main/engine/writer.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';
import { FaultyIO } from '../helpers/faulty-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { batchFinished, closedResult, resumeStarted, runFinished, turnFinished, unknownResult, type ExpectedRecord } from '../replay/expect.js';
import { diskFold, diskRecords, lastSeq, maxFence, SessionScript, userMessage, walBytes, walOf, writesPerBarrier } from '../replay/session-script.js';

const tempDir = useTempDirs('walscope-actions-');

const A = { id: 'a', name: 'read_file' };
const B = { id: 'b', name: 'write_file' };
const C = { id: 'c', name: 'bash' };

/** Episode r1, step 1 plans a, b, c in parallel: a completed, b provider-held, c never left. */
function heldBatch(root: string): void {
  SessionScript.write(root, (s) => {
    s.start('r1');
    s.step(1, [A, B, C]);
    s.batch('b1', 1, [A, B, C]);
    s.intent('b1', 'a');
    s.intent('b1', 'b');
    s.result('b1', 'a');
    s.held('b1', 'b');
  });
}

/** Runs an action through a recording FileIO; returns what it appended (from disk) and its barrier shape. */
function act(root: string, action: (io: FaultyIO['io']) => RecoveryOutcome) {
  const last = lastSeq(root);
  const fence = maxFence(root);
  const recorder = new FaultyIO();
  const outcome = action(recorder.io);
  const appended = diskRecords(root).filter((record) => record.seq > last);
  for (const record of appended) expect(record.fence).toBeGreaterThan(fence);
  return { outcome, appended: appended.map(({ type, payload }) => ({ type, payload })), barriers: writesPerBarrier(recorder, walOf(root)), last };
}

function expectIdempotent(root: string, again: () => RecoveryOutcome): void {
  const bytes = walBytes(root);
  const outcome = again();
  expect(outcome.kind === 'done' && outcome.appended).toEqual([]);
  expect(walBytes(root).equals(bytes)).toBe(true);
}

function expectFinishedAndValid(root: string, reason: string): void {
  const fold = diskFold(root);
  expect(fold.episodes.at(-1)?.finished?.reason).toBe(reason);
  expect(checkProviderValid(renderTranscript(fold, walPayloadReader(walOf(root)))).valid).toBe(true);
}

describe('cancel', () => {
  it('syncs run_cancel_requested{at: now} first, closes the batch, then seals cancelled', () => {
    const root = tempDir();
    heldBatch(root);
    const { outcome, appended, barriers } = act(root, (io) => cancelSession(root, 's1', { io }));
    expect(outcome.kind).toBe('done');
    const expected: ExpectedRecord[][] = [
      [{ type: 'run_cancel_requested', payload: { run_id: 'r1', at: 'now' } }],
      [closedResult('b1', 'b', 'interrupted', 'provider_held_cancelled'), closedResult('b1', 'c', 'interrupted'), batchFinished('b1'), turnFinished(1)],
      [runFinished('cancelled')],
    ];
    expect(appended).toEqual(expected.flat());
    expect(barriers).toEqual([2, 4, 1]);
    expect(diskRecords(root).find((record) => record.type === 'run_cancel_requested')?.payload).toEqual({ run_id: 'r1', at: 'now' });
    expectIdempotent(root, () => cancelSession(root, 's1'));
    expectFinishedAndValid(root, 'cancelled');
  });

  it('escalates a step_boundary request to now; an indeterminate call gets unknown and seals interrupted', () => {
    const root = tempDir();
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.step(1, [A]);
      s.batch('b1', 1, [A]);
      s.intent('b1', 'a');
      s.cancel('r1', 'step_boundary');
    });
    const { appended } = act(root, (io) => cancelSession(root, 's1', { io }));
    expect(appended).toEqual([
      { type: 'run_cancel_requested', payload: { run_id: 'r1', at: 'now' } },
      unknownResult('b1', 'a'),
      batchFinished('b1'),
      turnFinished(1),
      runFinished('interrupted'),
    ]);
    expectIdempotent(root, () => cancelSession(root, 's1'));
  });
});

describe('cancel beside an indeterminate call', () => {
  it('follows the mixed-crash rule: the held call closes provider_held_interrupted and the run seals interrupted', () => {
    const root = tempDir();
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'b');
    });
    const { appended } = act(root, (io) => cancelSession(root, 's1', { io }));
    expect(appended).toEqual([
      { type: 'run_cancel_requested', payload: { run_id: 'r1', at: 'now' } },
      unknownResult('b1', 'a'),
      closedResult('b1', 'b', 'interrupted', 'provider_held_interrupted'),
      batchFinished('b1'),
      turnFinished(1),
      runFinished('interrupted'),
    ]);
    expectIdempotent(root, () => cancelSession(root, 's1'));
    expectFinishedAndValid(root, 'interrupted');
  });
});

describe('a plan that changed under the lease', () => {
  it('appends nothing, not even the lineage frame a writer writes when it opens', () => {
    const root = tempDir();
    heldBatch(root);
    const wal = walOf(root);
    // Another writer's record lands between the preview and the lease (raw bytes: it holds no lease here).
    let after_sneak: Buffer = Buffer.alloc(0);
    const sneak = () => {
      const frame = encodeFrame({ ver: 2, seq: lastSeq(root) + 1, fence: maxFence(root), type: 'tool_result', features: [], payload: { batch_id: 'b1', tool_call_id: 'c', outcome: 'completed', output: 'late', is_error: false } });
      fs.appendFileSync(wal, frame);
      after_sneak = walBytes(root);
    };
    const io = new FaultyIO().before('tryLockExclusive', sneak).io;
    const outcome = sealSession(root, 's1', { io });
    expect(outcome).toMatchObject({ kind: 'refused', message: expect.stringContaining('nothing was appended') });
    expect(after_sneak.length).toBeGreaterThan(0);
    expect(walBytes(root).equals(after_sneak)).toBe(true);
    expect(diskRecords(root).at(-1)).toMatchObject({ type: 'tool_result', payload: { output: 'late' } });
  });
});

describe('seal', () => {
  it('gives every pending call its terminal (held: provider_held_interrupted), then run_finished{interrupted}', () => {
    const root = tempDir();
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.step(1, [A, B, C]);
      s.batch('b1', 1, [A, B, C]);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'b');
    });
    const { appended, barriers } = act(root, (io) => sealSession(root, 's1', { io }));
    expect(appended).toEqual([
      unknownResult('b1', 'a'),
      closedResult('b1', 'b', 'interrupted', 'provider_held_interrupted'),
      closedResult('b1', 'c', 'interrupted'),
      batchFinished('b1'),
      turnFinished(1),
      runFinished('interrupted'),
    ]);
    expect(barriers).toEqual([6, 1]);
    expectIdempotent(root, () => sealSession(root, 's1'));
    expectFinishedAndValid(root, 'interrupted');
  });

  it('keeps a steer acknowledged after a step whose batch never started: the turn stays out, the steer joins at the end', () => {
    const root = tempDir();
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.step(1, [A]);
      s.steer('also update the changelog');
    });
    const { appended } = act(root, (io) => sealSession(root, 's1', { io }));
    expect(appended).toEqual([{ type: 'run_finished', payload: { reason: 'interrupted', usage: { input_tokens: 10, output_tokens: 5 } } }]);
    expect(renderTranscript(diskFold(root), walPayloadReader(walOf(root)))).toEqual([userMessage('do the thing'), userMessage('also update the changelog')]);
    expectFinishedAndValid(root, 'interrupted');
  });
});

describe('stop (max steps)', () => {
  it.each([
    ['max_steps', 'provider_held_stopped'],
    ['interrupted', 'provider_held_interrupted'],
  ] as const)('writes %s results for every pending call, commits the batch, then run_finished', (reason, held_reason) => {
    const root = tempDir();
    heldBatch(root);
    const { appended, barriers } = act(root, (io) => stopRun(root, 's1', reason, { io }));
    expect(appended).toEqual([
      closedResult('b1', 'b', reason, held_reason),
      closedResult('b1', 'c', reason),
      batchFinished('b1'),
      turnFinished(1),
      runFinished(reason),
    ]);
    expect(barriers).toEqual([5, 1]);
    expectIdempotent(root, () => stopRun(root, 's1', reason));
    expectFinishedAndValid(root, reason);
  });
});

describe('stop with every kind of pending call', () => {
  it('gives each its terminal (indeterminate: unknown, never "not sent"), commits, then seals interrupted', () => {
    const root = tempDir();
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.step(1, [A, B, C]);
      s.batch('b1', 1, [A, B, C], true);
      s.intent('b1', 'a');
      s.intent('b1', 'b');
      s.held('b1', 'a', true);
    });
    const { appended, barriers } = act(root, (io) => stopRun(root, 's1', 'max_steps', { io }));
    expect(appended).toEqual([
      closedResult('b1', 'a', 'max_steps', 'provider_held_stopped'),
      closedResult('b1', 'b', 'max_steps'),
      closedResult('b1', 'c', 'max_steps'),
      batchFinished('b1'),
      turnFinished(1),
      runFinished('max_steps'),
    ]);
    expect(barriers).toEqual([6, 1]);
    expectFinishedAndValid(root, 'max_steps');
  });

  it('an indeterminate call gets unknown and the run is sealed interrupted', () => {
    const root = tempDir();
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      s.intent('b1', 'a');
    });
    const { appended, barriers } = act(root, (io) => stopRun(root, 's1', 'max_steps', { io }));
    expect(appended).toEqual([unknownResult('b1', 'a'), closedResult('b1', 'b', 'max_steps'), batchFinished('b1'), turnFinished(1), runFinished('interrupted')]);
    expect(barriers).toEqual([5, 1]);
    expectFinishedAndValid(root, 'interrupted');
  });
});

describe('a crash between the two close-out barriers', () => {
  it('resumes into the same close-out and writes no second result for any call', () => {
    const root = tempDir();
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.step(1, [A, B]);
      s.batch('b1', 1, [A, B]);
      s.intent('b1', 'a');
    });
    const first_last = lastSeq(root);
    // WAL writes: lineage, resume_started, 2 results, batch and turn markers, then run_finished: the 7th.
    const crash = new FaultyIO().fail('write', { path: walOf(root), nth: 7 });
    expect(() => resumeSession(root, 's1', { io: crash.io })).toThrow(WalIoError);
    const after_crash = diskRecords(root).filter((record) => record.seq > first_last).map((record) => record.type);
    expect(after_crash).toEqual(['resume_started', 'tool_result', 'tool_result', 'tool_batch_finished', 'turn_finished']);

    const fold = diskFold(root);
    expect(fold.episodes[0]!.state).toBe('closing');
    const { outcome, appended } = act(root, (io) => resumeSession(root, 's1', { io }));
    expect(outcome.kind === 'done' && outcome.plan.action).toBe('close_out');
    expect(appended).toEqual([resumeStarted(1, first_last + 5, { messages: 3, model_steps: 1, tool_results: 2 }, ['a']), runFinished('interrupted')]);
    const results = diskRecords(root).filter((record) => record.type === 'tool_result');
    expect(results.map((record) => record.payload['tool_call_id'])).toEqual(['a', 'b']);
    expectFinishedAndValid(root, 'interrupted');
  });
});

describe('run_id idempotency', () => {
  it('a start whose run_id is already in the WAL appends nothing', () => {
    const root = tempDir();
    const start = { run_id: 'r1', config: { model: 'test-model' }, input: [userMessage('hi')] };
    const first = startRun(root, 's1', start);
    expect(first).toEqual({ kind: 'started', episode: 1, seq: 1, epoch: 1 });
    const bytes = walBytes(root);
    expect(startRun(root, 's1', start)).toEqual({ kind: 'already_started', episode: 1, seq: 1 });
    expect(walBytes(root).equals(bytes)).toBe(true);
    expect(startRun(root, 's1', { ...start, run_id: 'r2' }).kind).toBe('episode_open');
    expect(diskRecords(root).map((record) => record.type)).toEqual(['run_started']);
    expect(diskRecords(root)[0]!.payload).toEqual({ run_id: 'r1', session: 's1', config: { model: 'test-model' }, input: [userMessage('hi')] });
  });
});

describe('a live writer holding the lease', () => {
  it('refuses every action with "lease held", naming the holder, and writes nothing', async () => {
    const root = tempDir();
    heldBatch(root);
    const holder = runFixture('../replay/fixtures/hold-session.ts', [root, 's1']);
    try {
      const { pid } = JSON.parse(await holder.nextLine()) as { pid: number };
      const bytes = walBytes(root);
      for (const action of [resumeSession, cancelSession, sealSession]) {
        const outcome = action(root, 's1');
        expect(outcome.kind).toBe('lease_held');
        if (outcome.kind !== 'lease_held') continue;
        expect(outcome.message).toMatch(/^lease held: /);
        expect(outcome.holder?.pid).toBe(pid);
      }
      expect(stopRun(root, 's1', 'max_steps').kind).toBe('lease_held');
      expect(walBytes(root).equals(bytes)).toBe(true);
    } finally {
      await killHard(holder);
    }
    const outcome = sealSession(root, 's1');
    expect(outcome.kind === 'done' && outcome.epoch).toBe(3);
  });
});

describe('an approved plan that no longer holds', () => {
  it('appends nothing when the WAL calls for other records than the ones approved', () => {
    const root = tempDir();
    heldBatch(root);
    const bytes = walBytes(root);
    const outcome = sealSession(root, 's1', { expected_records: [{ type: 'run_finished', payload: { reason: 'interrupted' }, barrier: 0 }] });
    expect(outcome.kind).toBe('refused');
    expect(walBytes(root).equals(bytes)).toBe(true);
  });
});

describe('a recovery action after a retire that died between its steps 1 and 2', () => {
  it('finishes the retire under its lease, then finds its plan changed: the run is in the sealed lineage, the successor holds nothing of it', () => {
    const root = tempDir();
    heldBatch(root);
    const dir = sessionDir(root, 's1');
    const wal_id = hex(readWal(walPath(dir)).wal_id!);
    const faulty = new FaultyIO().fail('write', { path: /wal\.successor$/ });
    expect(() => retireLineage(root, 's1', { io: faulty.io, writer_name: 'test', reason: 'sealed' })).toThrow(/EIO/);
    expect(sealSession(root, 's1')).toMatchObject({ kind: 'refused', message: expect.stringContaining('changed') });
    const successor = readWal(walPath(dir));
    expect(hex(successor.wal_id!)).not.toBe(wal_id);
    expect(successor.records).toBe(0);
    expect(readArchive(dir)).toMatchObject({ index: 'valid', members: [expect.objectContaining({ reason: 'sealed' })] });
    expect(readHistory(dir).lineages.map((entry) => [entry.where, entry.wal_id])).toEqual([['live', hex(successor.wal_id!)], ['sealed', wal_id]]);
    // Asked again, the action plans on the successor: nothing to seal there, nothing appended.
    expect(sealSession(root, 's1')).toMatchObject({ kind: 'done', appended: [] });
  });
});

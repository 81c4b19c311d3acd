// The reference runtime on a real state root: every scripted session ends where its script says, through the
// engine's gating and floor; starts are idempotent by run_id; resume goes through the replay library (close-out
// never re-sends, an in-flight step is re-run, a held call's late result is delivered after a crash); the
// lease keeps a second process out.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LeaseHeldError } from '../../src-main/engine/errors.js';
import { readFloor } from '../../src-main/engine/feature-floor.js';
import { nodeFileIO } from '../../src-main/engine/file-io.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { readWal } from '../../src-main/engine/reader.js';
import { resumeSession } from '../../src-main/recovery/actions.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { terminalOutput } from '../../src-main/replay/payloads.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';
import {
  approvalsSession,
  basicSession,
  call,
  done,
  run,
  CRASH_SESSIONS,
  heldSequentialSession,
  parallelUnknownSession,
  steerQueueSession,
  compactionSession,
} from '../../src-main/runtime/catalog.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { driveSession } from '../../src-main/runtime/driver.js';
import { haltingIO, type HaltRule } from '../../src-main/runtime/halt-io.js';
import { duplicateKeys, FileLedger, MemoryLedger, type SideEffectLedger } from '../../src-main/runtime/ledger.js';
import { AgentRuntime } from '../../src-main/runtime/runtime.js';
import { scriptedWorld, type ScriptedWorld } from '../../src-main/runtime/scripted.js';
import type { SessionScript } from '../../src-main/runtime/script.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-runtime-');

function world(script: SessionScript, ledger: SideEffectLedger = new MemoryLedger()): ScriptedWorld {
  return scriptedWorld(script, ledger, steppedClock(1_750_000_000_000));
}

/** One process: open, drive the script (dying at `halt` if given), close. */
function runProcess(root: string, script: SessionScript, ports: ScriptedWorld, halt?: HaltRule) {
  const halting = halt === undefined ? null : haltingIO(nodeFileIO, halt);
  const runtime = AgentRuntime.open({ root, session_id: script.session_id, io: halting?.io ?? nodeFileIO, clock: steppedClock(1_760_000_000_000), ports });
  try {
    return driveSession(runtime, script);
  } catch (error) {
    if (halting?.halted() !== true) throw error;
    return null;
  } finally {
    runtime.close();
  }
}

function replay(root: string, session_id: string) {
  const [target] = resolveTargets(path.join(root, 'sessions', session_id));
  return replayTarget(target!);
}

/** The bytes of every record frame after `seq` (lineage frames, which name their writer, left out). */
function recordBytesAfter(root: string, session_id: string, seq: number): Buffer {
  const wal = path.join(root, 'sessions', session_id, 'wal');
  const bytes = fs.readFileSync(wal);
  const frames: Buffer[] = [];
  readWal(wal, { on_frame: (frame) => frame.seq > seq && frames.push(bytes.subarray(frame.offset, frame.offset + frame.size_bytes)) });
  return Buffer.concat(frames);
}

/** basicSession with runner tags on: a parallel batch of two side-effecting calls. */
const taggedBasicSession: SessionScript = {
  session_id: 'sim-basic-tagged',
  runs: basicSession.runs.map((entry) => ({ ...entry, config: { ...entry.config, render_tags: true } })),
};

const EXPECTED_ENDS: Record<string, string[]> = {
  'sim-basic': ['completed'],
  'sim-approvals': ['completed'],
  'sim-held-sequential': ['completed'],
  'sim-parallel-unknown': ['interrupted', 'completed'],
  'sim-scope-drained': ['interrupted'],
  'sim-steer-queue': ['cancelled', 'completed', 'completed'],
  'sim-cancel-now': ['cancelled'],
  'sim-max-steps': ['max_steps'],
  'sim-compaction': ['completed', 'context_ceiling', 'error'],
  'sim-held-never': [],
};

describe('reference runtime, forward path', () => {
  it.each(CRASH_SESSIONS.map((script) => [script.session_id, script] as const))('%s ends as scripted, provider-valid, with no anomaly', (_id, script) => {
    const root = tempDir();
    const ports = world(script);
    runProcess(root, script, ports);
    const { read, fold, resume } = replay(root, script.session_id);
    expect(read.error).toBeNull();
    expect(fold.anomalies).toEqual([]);
    expect(fold.episodes.flatMap((episode) => episode.anomalies)).toEqual([]);
    expect(fold.episodes.filter((episode) => episode.finished !== null).map((episode) => episode.finished!.reason)).toEqual(EXPECTED_ENDS[script.session_id]);
    expect(checkProviderValid(renderTranscript(fold, walPayloadReader(path.join(root, 'sessions', script.session_id, 'wal')))).valid).toBe(true);
    expect(duplicateKeys(ports.plane.ledger.entries())).toEqual([]);
    expect(resume.action).toBe(script.session_id === 'sim-held-never' ? 'wait_held' : 'none');
  });

  it('parallel unknown: the side-effecting call after it is interrupted, the safe one runs', () => {
    const root = tempDir();
    const ports = world(parallelUnknownSession);
    runProcess(root, parallelUnknownSession, ports);
    const batch = replay(root, parallelUnknownSession.session_id).fold.episodes[0]!.batches.at(0)!;
    expect(batch.calls.map((call) => call.class)).toEqual(['indeterminate', 'interrupted', 'completed']);
    expect(ports.plane.dispatch_log.map((entry) => entry.tool_call_id)).toEqual(['u1', 'u3']);
  });

  it('a cancel beside an unknown outcome follows the mixed-crash rule: the held call closes provider_held_interrupted', () => {
    const script: SessionScript = {
      session_id: 'mixed-cancel',
      runs: [
        run('r1', [{ calls: [call('u1', { kind: 'held', late_output: null }, { name: 'request_review' }), call('u2', { kind: 'unknown' }, { name: 'charge_card' })] }], {
          events: [{ trigger: { after_result: 'u2' }, event: { kind: 'cancel', at: 'now' } }],
        }),
      ],
    };
    const root = tempDir();
    runProcess(root, script, world(script));
    const episode = replay(root, script.session_id).fold.episodes[0]!;
    const held = episode.batches.at(0)!.calls[0]!.terminals[0]!;
    expect([held.outcome, held.reason]).toEqual(['interrupted', 'provider_held_interrupted']);
    expect(episode.finished?.reason).toBe('interrupted');
  });

  it('in a sequential batch no call is sent after an unknown outcome, even one declared safe', () => {
    const script: SessionScript = {
      session_id: 'sequential-unknown',
      runs: [run('r1', [{ sequential: true, calls: [call('u1', { kind: 'unknown' }, { name: 'charge_card' }), call('u2', done('listed'), { name: 'list_files', safe: true })] }])],
    };
    const root = tempDir();
    const ports = world(script);
    runProcess(root, script, ports);
    const batch = replay(root, script.session_id).fold.episodes[0]!.batches.at(0)!;
    expect(ports.plane.dispatch_log.map((entry) => entry.tool_call_id)).toEqual(['u1']);
    expect(batch.calls.map((entry) => entry.class)).toEqual(['indeterminate', 'interrupted']);
    expect(terminalOutput(batch.calls[1]!.terminals[0]!, walPayloadReader(path.join(root, 'sessions', script.session_id, 'wal')))).toContain('another call of its batch has an unknown outcome');
  });

  it('an interrupting send cancels at the step boundary and drains before the plain one', () => {
    const root = tempDir();
    runProcess(root, steerQueueSession, world(steerQueueSession));
    const { fold } = replay(root, steerQueueSession.session_id);
    expect(fold.episodes.map((episode) => episode.run_id)).toEqual(['r1', 'run-urgent-1', 'run-plain-1']);
    expect(fold.episodes[0]!.steers.map((steer) => steer.send_id)).toEqual(['steer-1']);
    expect(fold.episodes[0]!.cancel_requests.map((request) => request.at)).toEqual(['step_boundary']);
    expect(fold.queue.map((entry) => [entry.submission_id, entry.delivery, entry.state])).toEqual([
      ['plain-1', null, 'delivered'],
      ['urgent-1', 'interrupt', 'delivered'],
    ]);
  });

  it('gated records raise the floor; runner tags continue the count across runs, never reused', () => {
    const root = tempDir();
    runProcess(root, compactionSession, world(compactionSession));
    expect(readFloor(root)).toEqual(expect.arrayContaining(['compaction-view/v1', 'context-ceiling/v1', 'runner-tags/v1']));
    const tags: number[] = [];
    const walk = (value: unknown) => {
      if (typeof value === 'number') tags.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
    };
    const { fold } = replay(root, compactionSession.session_id);
    expect(fold.episodes[0]!.steps.flatMap((step) => step.notes.map((note) => note.type))).toEqual(
      expect.arrayContaining(['compaction_view_applied', 'compaction_notice', 'context_ceiling_wait', 'context_ceiling_decided']),
    );
    readWal(path.join(root, 'sessions', compactionSession.session_id, 'wal'), { on_frame: (frame) => walk(frame.payload?.['tags']) });
    // r1: input, three assistant blocks, two results; r2 renders no tags; r3: input, three blocks, three results.
    expect(tags).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it('tool-times observations are on intents, no-dispatch records and results, in a gated frame', () => {
    const root = tempDir();
    runProcess(root, approvalsSession, world(approvalsSession));
    const timed: string[] = [];
    readWal(path.join(root, 'sessions', approvalsSession.session_id, 'wal'), {
      on_frame: (frame) => {
        for (const field of ['dispatched_at_ms', 'finished_at_ms']) {
          if (typeof frame.payload?.[field] === 'number' && frame.features.includes('tool-times/v1')) timed.push(`${frame.type}.${field}`);
        }
      },
    });
    expect(timed).toEqual(['tool_dispatch_intent.dispatched_at_ms', 'tool_no_dispatch.dispatched_at_ms', 'tool_no_dispatch.dispatched_at_ms', 'tool_result.finished_at_ms']);
    const approvals = replay(root, approvalsSession.session_id).fold.episodes[0]!.approvals;
    expect(approvals.map((card) => [card.tool_call_id, card.decision])).toEqual([
      ['a1', 'approved'],
      ['a2', 'denied'],
    ]);
  });

  it('a retried start with the same run_id appends nothing', () => {
    const root = tempDir();
    runProcess(root, basicSession, world(basicSession));
    const runtime = AgentRuntime.open({ root, session_id: basicSession.session_id, clock: steppedClock(1), ports: world(basicSession) });
    try {
      const before = runtime.journal.session.writer.last_seq;
      expect(runtime.startRun('r1', 'again', basicSession.runs[0]!.config)).toBeNull();
      expect(runtime.journal.session.writer.last_seq).toBe(before);
    } finally {
      runtime.close();
    }
  });

  it('a second process cannot take the lease of a live one', () => {
    const root = tempDir();
    const first = AgentRuntime.open({ root, session_id: 'busy', clock: steppedClock(1), ports: world(basicSession) });
    try {
      expect(() => AgentRuntime.open({ root, session_id: 'busy', clock: steppedClock(1), ports: world(basicSession) })).toThrow(LeaseHeldError);
    } finally {
      first.close();
    }
    const again = AgentRuntime.open({ root, session_id: 'busy', clock: steppedClock(1), ports: world(basicSession) });
    expect(again.epoch).toBeGreaterThan(first.epoch);
    again.close();
  });

  it('the file ledger beside the root holds one entry per applied side effect', () => {
    const root = tempDir();
    const ledger = new FileLedger(`${root}.side-effects.jsonl`);
    try {
      runProcess(root, basicSession, world(basicSession, ledger));
      expect(ledger.entries().map((entry) => entry.key)).toEqual(['sim-basic/r1/r1.b1/c1', 'sim-basic/r1/r1.b1/c2']);
    } finally {
      fs.rmSync(ledger.path, { force: true });
    }
  });
});

describe('reference runtime, resume through the replay library', () => {
  it('an indeterminate call is closed out and sealed Interrupted, never re-sent; a second resume is a no-op', () => {
    const root = tempDir();
    const ports = world(basicSession);
    expect(runProcess(root, basicSession, ports, { before_type: 'tool_result', nth: 2 })).toBeNull();
    expect(replay(root, basicSession.session_id).resume.action).toBe('close_out');
    const drive = runProcess(root, basicSession, ports);
    expect(drive?.recovery).toBe('close_out');
    const { fold, resume } = replay(root, basicSession.session_id);
    expect(fold.episodes[0]!.finished?.reason).toBe('interrupted');
    expect(fold.episodes[0]!.batches.at(0)!.calls.map((call) => call.class)).toEqual(['completed', 'indeterminate']);
    expect(ports.plane.dispatch_log.map((entry) => entry.tool_call_id)).toEqual(['c1', 'c2']);
    expect(resume.action).toBe('none');
    const last_seq = fold.last_seq;
    expect(runProcess(root, basicSession, ports)?.recovery).toBe('none');
    expect(replay(root, basicSession.session_id).fold.last_seq).toBe(last_seq);
  });

  it('an in-flight model step is re-run; a batch whose intents never became durable is planned again', () => {
    const root = tempDir();
    const ports = world(basicSession);
    runProcess(root, basicSession, ports, { before_type: 'tool_batch_started' });
    const drive = runProcess(root, basicSession, ports);
    expect(drive?.recovery).toBe('continue');
    const { fold } = replay(root, basicSession.session_id);
    expect(fold.episodes[0]!.finished?.reason).toBe('completed');
    expect(fold.episodes[0]!.resumes).toHaveLength(1);
    expect(duplicateKeys(ports.plane.ledger.entries())).toEqual([]);
    expect(ports.plane.ledger.entries()).toHaveLength(2);
  });

  it('a committed batch whose turn_finished never reached the file: the turn boundary first, then the next step, nothing re-sent', () => {
    const root = tempDir();
    const ports = world(basicSession);
    expect(runProcess(root, basicSession, ports, { before_type: 'turn_finished' })).toBeNull();
    const crashed = replay(root, basicSession.session_id);
    expect(crashed.fold.episodes[0]!.batches.at(0)!.finished_seq).not.toBeNull();
    expect(crashed.resume.action).toBe('continue');
    expect(runProcess(root, basicSession, ports)?.recovery).toBe('continue');
    const episode = replay(root, basicSession.session_id).fold.episodes[0]!;
    expect(episode.finished?.reason).toBe('completed');
    const [first, second] = episode.steps;
    expect(first!.turn_finished_seq).toBeLessThan(second!.seq!);
    expect(episode.anomalies).toEqual([]);
    expect(ports.plane.dispatch_log.map((entry) => entry.tool_call_id)).toEqual(['c1', 'c2']);
  });

  it('recovery appends the same bytes from the runtime and from `walscope resume`, runner tags included', () => {
    const id = taggedBasicSession.session_id;
    const crashed = tempDir();
    expect(runProcess(crashed, taggedBasicSession, world(taggedBasicSession), { before_type: 'tool_result' })).toBeNull();
    const before = replay(crashed, id).fold;
    expect(before.episodes[0]!.tagged).toBe(true);
    const [by_cli, by_runtime] = [tempDir(), tempDir()];
    for (const copy of [by_cli, by_runtime]) fs.cpSync(crashed, copy, { recursive: true });

    expect(resumeSession(by_cli, id)).toMatchObject({ kind: 'done', plan: { action: 'close_out' } });
    const runtime = AgentRuntime.open({ root: by_runtime, session_id: id, clock: steppedClock(1), ports: world(taggedBasicSession) });
    try {
      expect(runtime.recover().plan.action).toBe('close_out');
    } finally {
      runtime.close();
    }
    const written = recordBytesAfter(by_cli, id, before.last_seq);
    expect(written.length).toBeGreaterThan(0);
    expect(recordBytesAfter(by_runtime, id, before.last_seq).equals(written)).toBe(true);
    const results = replay(by_runtime, id).fold.episodes[0]!.batches.at(0)!.calls;
    expect(results.map((call) => call.terminals[0]?.outcome)).toEqual(['unknown', 'unknown']);
    const tags: unknown[] = [];
    readWal(path.join(by_runtime, 'sessions', id, 'wal'), { on_frame: (frame) => frame.type === 'tool_result' && tags.push(frame.payload?.['tags']) });
    expect(tags).toEqual([before.next_tag, before.next_tag + 1]);
  });

  it('a held call whose late result was not yet durable is delivered after the crash; the successor goes once', () => {
    const root = tempDir();
    const ports = world(heldSequentialSession);
    runProcess(root, heldSequentialSession, ports, { before_type: 'late_result' });
    expect(replay(root, heldSequentialSession.session_id).resume.action).toBe('wait_held');
    const drive = runProcess(root, heldSequentialSession, ports);
    expect(drive).toEqual({ end: 'done', recovery: 'wait_held' });
    const { fold } = replay(root, heldSequentialSession.session_id);
    expect(fold.episodes[0]!.finished?.reason).toBe('completed');
    expect(ports.plane.dispatch_log.map((entry) => entry.tool_call_id)).toEqual(['h1', 'h2', 'h3']);
  });

  it('a crash after the held call’s result is synced, with the successor sent, resolves Interrupted', () => {
    const root = tempDir();
    const ports = world(heldSequentialSession);
    // h3 is sent after h2's late result is synced; the process dies writing h3's result.
    runProcess(root, heldSequentialSession, ports, { before_type: 'tool_result', nth: 3 });
    const drive = runProcess(root, heldSequentialSession, ports);
    expect(drive?.recovery).toBe('close_out');
    const { fold } = replay(root, heldSequentialSession.session_id);
    expect(fold.episodes[0]!.finished?.reason).toBe('interrupted');
    expect(fold.episodes[0]!.batches.at(0)!.calls.map((call) => call.class)).toEqual(['completed', 'completed', 'indeterminate']);
    expect(ports.plane.dispatch_log.map((entry) => entry.tool_call_id)).toEqual(['h1', 'h2', 'h3']);
  });
});

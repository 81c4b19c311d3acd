// A recovery action and the runtime read the WAL once under the lease: the read that gives the lease its epoch
// and the writer its opening state (greatest fence, next seq, torn tail) also builds the fold the decision is
// made from. Counted, not timed: a recording FileIO sums the bytes read of the WAL before the lease is taken
// (an action's unlocked preview, one pass) and while it is held.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { leasePath, sessionDir } from '../../src-main/engine/state-root.js';
import { cancelSession, resumeSession, sealSession, type RecoveryOutcome } from '../../src-main/recovery/actions.js';
import { basicSession } from '../../src-main/runtime/catalog.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { driveSession } from '../../src-main/runtime/driver.js';
import { MemoryLedger } from '../../src-main/runtime/ledger.js';
import { AgentRuntime } from '../../src-main/runtime/runtime.js';
import { scriptedWorld } from '../../src-main/runtime/scripted.js';
import { FaultyIO, type Effect } from '../helpers/faulty-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { diskFold, SESSION, SessionScript, walOf } from './session-script.js';

const tempDir = useTempDirs('walscope-read-once-');

const A = { id: 'a', name: 'read_file' };
const B = { id: 'b', name: 'write_file' };

/** Finished episodes, then an open one whose batch has a call in flight at the crash and one that never left:
 *  resume closes it out. */
function openEpisodeAfterHistory(root: string): void {
  SessionScript.write(root, (s) => {
    for (let episode = 1; episode <= 20; episode++) {
      s.start(`done-${episode}`);
      s.step(1, [A]);
      s.batch(`done-${episode}-b`, 1, [A]);
      s.intent(`done-${episode}-b`, 'a');
      s.result(`done-${episode}-b`, 'a');
      s.batchFinished(`done-${episode}-b`);
      s.turnFinished(1);
      s.step(2);
      s.turnFinished(2);
      s.runFinished('completed');
    }
    s.start('open');
    s.step(1, [A, B]);
    s.batch('b1', 1, [A, B]);
    s.intent('b1', 'a');
  });
}

interface WalReads {
  /** Bytes of the WAL read before the lease was locked. */
  before_lease: number;
  /** Bytes of the WAL read while the lease was locked. */
  under_lease: number;
}

/** The bytes of `wal` read before the first lock of `lease` and from it to its unlock. */
function walReads(effects: readonly Effect[], wal: string, lease: string): WalReads {
  const locked_at = effects.findIndex((effect) => effect.op === 'tryLockExclusive' && effect.path === lease);
  const unlocked_at = effects.findIndex((effect) => effect.op === 'unlock' && effect.path === lease);
  expect(locked_at).toBeGreaterThanOrEqual(0);
  expect(unlocked_at).toBeGreaterThan(locked_at);
  const bytesRead = (from: number, to: number): number =>
    effects.slice(from, to).reduce((sum, effect) => sum + (effect.op === 'read' && effect.path === wal ? effect.length ?? 0 : 0), 0);
  return { before_lease: bytesRead(0, locked_at), under_lease: bytesRead(locked_at, unlocked_at) };
}

describe('a recovery action reads the WAL once under the lease', () => {
  const actions: [string, (root: string, io: FaultyIO['io']) => RecoveryOutcome][] = [
    ['resume', (root, io) => resumeSession(root, SESSION, { io })],
    ['cancel', (root, io) => cancelSession(root, SESSION, { io })],
    ['seal', (root, io) => sealSession(root, SESSION, { io })],
  ];
  for (const [name, act] of actions) {
    it(`${name}: one unlocked pass for the preview, one pass under the lease for epoch, writer and plan`, () => {
      const root = tempDir();
      openEpisodeAfterHistory(root);
      const wal = path.resolve(walOf(root));
      const size_bytes = fs.statSync(wal).size;
      const recorder = new FaultyIO();
      const outcome = act(root, recorder.io);
      expect(outcome).toMatchObject({ kind: 'done' });
      expect(outcome.kind === 'done' && outcome.appended.length).toBeGreaterThan(0);
      expect(walReads(recorder.effects, wal, path.resolve(leasePath(sessionDir(root, SESSION))))).toEqual({ before_lease: size_bytes, under_lease: size_bytes });
      // The plan made from that one read is the one a fresh fold of the disk calls done.
      expect(diskFold(root).episodes.at(-1)?.finished).not.toBeNull();
    });
  }
});

describe('the runtime reads the WAL once when it opens a session', () => {
  it('folds the read under the lease and takes in its own lineage frame, reading nothing more', () => {
    const root = tempDir();
    const clock = steppedClock(1_750_000_000_000);
    const first = AgentRuntime.open({ root, session_id: basicSession.session_id, clock, ports: scriptedWorld(basicSession, new MemoryLedger(), clock) });
    try {
      driveSession(first, basicSession);
    } finally {
      first.close();
    }
    const wal = path.resolve(walOf(root, basicSession.session_id));
    const size_bytes = fs.statSync(wal).size;
    const recorder = new FaultyIO();
    const runtime = AgentRuntime.open({ root, session_id: basicSession.session_id, io: recorder.io, clock, ports: scriptedWorld(basicSession, new MemoryLedger(), clock) });
    try {
      // The runtime's fold is the fold of the disk, this tenure's lineage frame included.
      expect(runtime.journal.fold()).toEqual(diskFold(root, basicSession.session_id));
    } finally {
      runtime.close();
    }
    expect(walReads(recorder.effects, wal, path.resolve(leasePath(sessionDir(root, basicSession.session_id))))).toEqual({ before_lease: 0, under_lease: size_bytes });
  });
});

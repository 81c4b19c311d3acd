// The single-writer lease with real OS locks and real processes (wal-format §8, contract §5).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LeaseTenure } from '../../src-shared/wal.js';
import { EpochExhaustedError, LeaseHeldError, WalReadError } from '../../src-main/engine/errors.js';
import { acquireLease, probeLease } from '../../src-main/engine/lease.js';
import { readWal } from '../../src-main/engine/reader.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import {
  classifyPath,
  InvalidSessionIdError,
  isValidSessionId,
  leasePath,
  listSessions,
  sessionDir,
  sessionsDir,
  walPath,
} from '../../src-main/engine/state-root.js';
import { FaultyIO } from '../helpers/faulty-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';
import { captureError } from '../helpers/capture.js';
import { lineageBody, rawFrame, TEST_WAL_ID, walBytes } from '../helpers/wal-bytes.js';

const tempDir = useTempDirs('walscope-lease-');

const tenureIn = (dir: string): LeaseTenure => JSON.parse(fs.readFileSync(leasePath(dir), 'utf8')) as LeaseTenure;

function fencesOf(wal: string): number[] {
  const fences: number[] = [];
  const read = readWal(wal, { with_payload: false, on_frame: (frame) => fences.push(frame.fence) });
  expect(read.error).toBeNull();
  return fences;
}

describe('acquireLease', () => {
  it('writes a tenure whose epoch is one above the file and the WAL, and never deletes the file', () => {
    const dir = tempDir();
    const first = acquireLease(dir, { writer_name: 'test', wal_max_fence: 0 });
    expect(first.epoch).toBe(1);
    expect(tenureIn(dir)).toEqual({ epoch: 1, pid: process.pid, host: os.hostname(), acquired_ms: first.tenure.acquired_ms, writer: 'test' });
    first.release();
    expect(first.released).toBe(true);
    const second = acquireLease(dir, { writer_name: 'test', wal_max_fence: 0 });
    expect(second.epoch).toBe(2);
    second.release();
    const third = acquireLease(dir, { writer_name: 'test', wal_max_fence: 41 });
    expect(third.epoch).toBe(42);
    third.release();
    expect(tenureIn(dir).epoch).toBe(42);
  });

  it('reads an empty or garbage lease file as epoch 0', () => {
    for (const junk of ['', 'not json', '{"epoch":"7"}', 'x'.repeat(10_000)]) {
      const dir = tempDir();
      fs.writeFileSync(leasePath(dir), junk);
      const lease = acquireLease(dir, { writer_name: 'test', wal_max_fence: 3 });
      expect(lease.epoch).toBe(4);
      lease.release();
    }
  });

  it('fails at once inside one process too (OFD locks), writing nothing', () => {
    const dir = tempDir();
    const held = acquireLease(dir, { writer_name: 'first', wal_max_fence: 0 });
    const before = fs.readFileSync(leasePath(dir));
    const error = captureError(() => acquireLease(dir, { writer_name: 'second', wal_max_fence: 0 }));
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect((error as LeaseHeldError).holder?.writer).toBe('first');
    expect(fs.readFileSync(leasePath(dir))).toEqual(before);
    held.release();
  });

  it('reads the WAL fence under the lock and writes nothing when that read throws', () => {
    const dir = tempDir();
    fs.writeFileSync(leasePath(dir), '{"epoch":5,"pid":1,"host":"h","acquired_ms":1,"writer":"w"}\n');
    const before = fs.readFileSync(leasePath(dir));
    const faulty = new FaultyIO();
    const error = captureError(() =>
      acquireLease(dir, {
        io: faulty.io,
        writer_name: 'test',
        wal_max_fence: () => {
          expect(faulty.effects.some((effect) => effect.op === 'tryLockExclusive')).toBe(true);
          throw new Error('refused');
        },
      }),
    );
    expect((error as Error).message).toBe('refused');
    expect(fs.readFileSync(leasePath(dir))).toEqual(before);
    expect(faulty.effects.map((effect) => effect.op).slice(-2)).toEqual(['unlock', 'close']);
    // The lock was dropped: acquiring works.
    acquireLease(dir, { writer_name: 'test', wal_max_fence: 0 }).release();
  });

  it('a child holding the lease makes acquire fail naming its pid; after SIGKILL acquire succeeds', async () => {
    const dir = tempDir();
    const child = runFixture('hold-lease.ts', [dir, 'child-writer', '9']);
    const held = JSON.parse(await child.nextLine()) as { pid: number; epoch: number };
    expect(held).toEqual({ pid: child.pid, epoch: 10 });
    const before = fs.readFileSync(leasePath(dir));
    const error = captureError(() => acquireLease(dir, { writer_name: 'test', wal_max_fence: 0 }));
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect((error as LeaseHeldError).holder).toMatchObject({ pid: child.pid, epoch: 10, writer: 'child-writer' });
    expect((error as LeaseHeldError).message).toContain(`pid ${child.pid}`);
    expect(fs.readFileSync(leasePath(dir))).toEqual(before);
    await killHard(child);
    const lease = acquireLease(dir, { writer_name: 'test', wal_max_fence: 0 });
    expect(lease.epoch).toBe(11);
    lease.release();
  });
});

describe('the tenure record', () => {
  it('is one 512-byte sector overwritten in place, never truncated to nothing first', () => {
    const dir = tempDir();
    const lease_file = path.join(dir, 'lease');
    fs.writeFileSync(lease_file, `${JSON.stringify({ epoch: 7, pid: 1, host: 'h', acquired_ms: 1, writer: 'old' })}${' '.repeat(900)}\n`);
    const recorder = new FaultyIO();
    const lease = acquireLease(dir, { io: recorder.io, writer_name: 'test', wal_max_fence: 0 });
    lease.release();
    const truncations = recorder.mutations().filter((effect) => effect.op === 'ftruncate' && effect.path === lease_file);
    expect(truncations.map((effect) => effect.length)).toEqual([512]);
    const bytes = fs.readFileSync(lease_file);
    expect(bytes.length).toBe(512);
    expect(JSON.parse(bytes.toString('utf8'))).toMatchObject({ epoch: 8, writer: 'test', pid: process.pid });
  });
});

describe('probeLease', () => {
  it('says absent without creating the file', () => {
    const dir = tempDir();
    expect(probeLease(dir)).toEqual({ state: 'absent' });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('says live while a child holds it and free once it is dead, never locking', async () => {
    const dir = tempDir();
    const child = runFixture('hold-lease.ts', [dir, 'child-writer']);
    await child.nextLine();
    const faulty = new FaultyIO();
    const live = probeLease(dir, faulty.io);
    expect(live).toMatchObject({ state: 'live', holder: { pid: child.pid, writer: 'child-writer' } });
    expect(faulty.effects.filter((effect) => ['tryLockExclusive', 'unlock'].includes(effect.op))).toEqual([]);
    expect(faulty.mutations()).toEqual([]);
    // Without /proc/locks the probe falls back to the tenure's pid on this host.
    const no_proc = new FaultyIO().fail('open', { path: '/proc/locks', nth: 1 }).fail('open', { path: '/proc/locks', nth: 2 });
    expect(probeLease(dir, no_proc.io)).toMatchObject({ state: 'live', holder: { pid: child.pid } });
    await killHard(child);
    expect(probeLease(dir)).toMatchObject({ state: 'free', last: { pid: child.pid } });
    expect(probeLease(dir, no_proc.io)).toMatchObject({ state: 'free', last: { pid: child.pid } });
    expect(no_proc.effects.filter((effect) => effect.path === '/proc/locks').map((effect) => effect.error)).toEqual(['EIO', 'EIO']);
  });

  it('sees this process as a holder, and probing does not release our lock', () => {
    const dir = tempDir();
    const lease = acquireLease(dir, { writer_name: 'self', wal_max_fence: 0 });
    for (let round = 0; round < 20; round++) expect(probeLease(dir).state).toBe('live');
    // Still ours: a second acquire fails.
    expect(captureError(() => acquireLease(dir, { writer_name: 'other', wal_max_fence: 0 }))).toBeInstanceOf(LeaseHeldError);
    lease.release();
    expect(probeLease(dir)).toMatchObject({ state: 'free', last: { writer: 'self' } });
  });

  it('a child probing in a loop never makes an acquire here fail', async () => {
    const dir = tempDir();
    fs.writeFileSync(leasePath(dir), '');
    const prober = runFixture('lease-loop.ts', ['probe', dir, '2500']);
    expect(await prober.nextLine()).toBe('started');
    let acquisitions = 0;
    const deadline_ms = Date.now() + 2000;
    while (Date.now() < deadline_ms) {
      acquireLease(dir, { writer_name: 'test', wal_max_fence: 0 }).release();
      acquisitions += 1;
    }
    const summary = JSON.parse(await prober.nextLine()) as { rounds: number; failures: string[]; states: Record<string, number> };
    expect(summary.failures).toEqual([]);
    expect(summary.rounds).toBeGreaterThan(100);
    expect(acquisitions).toBeGreaterThan(100);
    // The probes saw both states: the acquisitions really interleaved with them.
    expect(Object.keys(summary.states).sort()).toEqual(['free', 'live']);
  });

  it('probing here in a loop never makes a child’s acquire fail', async () => {
    const dir = tempDir();
    fs.writeFileSync(leasePath(dir), '');
    const acquirer = runFixture('lease-loop.ts', ['acquire', dir, '2500']);
    expect(await acquirer.nextLine()).toBe('started');
    const states = new Set<string>();
    const deadline_ms = Date.now() + 2000;
    while (Date.now() < deadline_ms) states.add(probeLease(dir).state);
    const summary = JSON.parse(await acquirer.nextLine()) as { rounds: number; failures: string[] };
    expect(summary.failures).toEqual([]);
    expect(summary.rounds).toBeGreaterThan(100);
    expect([...states].sort()).toEqual(['free', 'live']);
  });
});

describe('sessions under the lease', () => {
  it('epochs strictly grow across acquisitions and exceed every fence in the WAL', () => {
    const root = tempDir();
    const epochs: number[] = [];
    for (let round = 0; round < 4; round++) {
      if (round === 2) fs.rmSync(leasePath(sessionDir(root, 's1'))); // lost lease file: the WAL's fences still rule
      const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
      const fences_before = fencesOf(walPath(session.dir)).slice(0, -1); // the last is this open's lineage, unsynced
      expect(session.lease.epoch).toBeGreaterThan(Math.max(0, ...fences_before));
      expect(session.writer.fence).toBe(session.lease.epoch);
      epochs.push(session.lease.epoch);
      session.writer.append('turn_finished', { step_id: round });
      session.close();
    }
    expect(epochs).toEqual([1, 2, 3, 4]);
    const fences = fencesOf(walPath(sessionDir(root, 's1')));
    expect(fences).toEqual([1, 1, 2, 2, 3, 3, 4, 4]);
  });

  it('a session another process holds refuses to open and its WAL is untouched', async () => {
    const root = tempDir();
    openSessionForWrite(root, 's1', { writer_name: 'test' }).close();
    const dir = sessionDir(root, 's1');
    const wal_before = fs.readFileSync(walPath(dir));
    const child = runFixture('hold-lease.ts', [dir, 'child-writer', '1']);
    const held = JSON.parse(await child.nextLine()) as { pid: number };
    const error = captureError(() => openSessionForWrite(root, 's1', { writer_name: 'test' }));
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect((error as LeaseHeldError).holder?.pid).toBe(held.pid);
    expect(fs.readFileSync(walPath(dir))).toEqual(wal_before);
    await killHard(child);
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    expect(session.lease.epoch).toBe(3);
    session.close();
  });

  it('a refused WAL releases the lease and leaves WAL and lease file byte-identical', () => {
    const root = tempDir();
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 1 });
    session.writer.append('turn_finished', { step_id: 2 });
    session.close();
    const dir = sessionDir(root, 's1');
    const wal = fs.readFileSync(walPath(dir));
    let first_record = -1;
    readWal(walPath(dir), { on_frame: (frame) => (first_record = frame.seq === 1 ? frame.offset : first_record) });
    wal[first_record + 20]! ^= 0xff; // damage a middle frame: an intact frame follows it
    fs.writeFileSync(walPath(dir), wal);
    const lease_before = fs.readFileSync(leasePath(dir));
    const error = captureError(() => openSessionForWrite(root, 's1', { writer_name: 'test' }));
    expect(error).toBeInstanceOf(WalReadError);
    expect((error as WalReadError).info.kind).toBe('non_tail_corruption');
    expect(fs.readFileSync(walPath(dir))).toEqual(wal);
    expect(fs.readFileSync(leasePath(dir))).toEqual(lease_before);
    expect(probeLease(dir).state).toBe('free');
  });

  it('a floor naming an unknown feature refuses the session before any frame is read', () => {
    const root = tempDir();
    openSessionForWrite(root, 's1', { writer_name: 'test' }).close();
    fs.writeFileSync(path.join(root, 'wal-feature-floor'), 'future-thing/v9\n');
    const error = captureError(() => openSessionForWrite(root, 's1', { writer_name: 'test' }));
    expect((error as WalReadError).info).toMatchObject({ kind: 'newer_writer', features: ['future-thing/v9'] });
  });

  it('close drains, syncs and closes the writer before it unlocks the lease', () => {
    const root = tempDir();
    const faulty = new FaultyIO();
    const session = openSessionForWrite(root, 's1', { io: faulty.io, writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 1 });
    const mark = faulty.effects.length;
    session.close();
    const wal = walPath(sessionDir(root, 's1'));
    const lease = leasePath(sessionDir(root, 's1'));
    const order = faulty.effects
      .slice(mark)
      .filter((effect) => ['fdatasync', 'close', 'unlock'].includes(effect.op))
      .map((effect) => `${effect.op} ${path.basename(effect.path ?? '')}`);
    expect(order).toEqual([`fdatasync ${path.basename(wal)}`, `close ${path.basename(wal)}`, `unlock ${path.basename(lease)}`, `close ${path.basename(lease)}`]);
    expect(session.lease.released).toBe(true);
    expect(session.writer.closed).toBe(true);
  });

  it('close releases the lease even when the writer was poisoned', () => {
    const root = tempDir();
    const faulty = new FaultyIO().fail('fdatasync');
    const session = openSessionForWrite(root, 's1', { io: faulty.io, writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 1 });
    expect(() => session.writer.barrier()).toThrow(/fdatasync/);
    session.close();
    expect(session.lease.released).toBe(true);
    expect(probeLease(session.dir).state).toBe('free');
  });
});

describe('state root layout', () => {
  it('validates session ids as wal-format §1 says', () => {
    for (const good of ['a', 'A-b_c.9', 'x'.repeat(128), '_lead', '-lead']) expect(isValidSessionId(good)).toBe(true);
    for (const bad of ['', '.hidden', 'x'.repeat(129), 'a/b', 'a b', 'é', '..']) expect(isValidSessionId(bad)).toBe(false);
  });

  it('refuses an invalid id before creating anything', () => {
    const root = tempDir();
    expect(() => openSessionForWrite(root, '.bad', { writer_name: 'test' })).toThrow(InvalidSessionIdError);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('lists sessions and not-sessions without creating anything', () => {
    const root = tempDir();
    expect(listSessions(root)).toEqual({ sessions: [], not_sessions: [], unreadable: [] });
    expect(fs.readdirSync(root)).toEqual([]);
    openSessionForWrite(root, 'b-session', { writer_name: 'test' }).close();
    openSessionForWrite(root, 'a.session', { writer_name: 'test' }).close();
    fs.mkdirSync(path.join(sessionsDir(root), '.hidden'));
    fs.writeFileSync(path.join(sessionsDir(root), 'stray-file'), '');
    expect(listSessions(root)).toEqual({ sessions: ['a.session', 'b-session'], not_sessions: ['.hidden', 'stray-file'], unreadable: [] });
  });

  it('classifies a path as WAL file, session folder or state root', () => {
    const root = tempDir();
    openSessionForWrite(root, 's1', { writer_name: 'test' }).close();
    const exported = path.join(tempDir(), 'any-name.bin');
    fs.copyFileSync(walPath(sessionDir(root, 's1')), exported);
    expect(classifyPath(root)).toBe('state_root');
    expect(classifyPath(sessionDir(root, 's1'))).toBe('session_dir');
    expect(classifyPath(walPath(sessionDir(root, 's1')))).toBe('wal_file');
    expect(classifyPath(exported)).toBe('wal_file');
    expect(classifyPath(path.join(root, 'nothing'))).toBe('missing');
    expect(classifyPath(tempDir())).toBe('unrecognized');
  });
});


describe('epoch overflow (issue 13, L2)', () => {
  const EPOCH_MAX = Number.MAX_SAFE_INTEGER;

  it('a lease epoch of 2^53 − 1 is refused before anything is written: the lease file still holds it', () => {
    const root = tempDir();
    openSessionForWrite(root, 's1', { writer_name: 'test' }).close();
    const dir = sessionDir(root, 's1');
    fs.writeFileSync(leasePath(dir), `${JSON.stringify({ epoch: EPOCH_MAX, pid: 1, host: 'elsewhere', acquired_ms: 1, writer: 'old' })}\n`);
    const lease = fs.readFileSync(leasePath(dir));
    const wal = fs.readFileSync(walPath(dir));
    const error = captureError(() => openSessionForWrite(root, 's1', { writer_name: 'test' }));
    expect(error).toBeInstanceOf(EpochExhaustedError);
    expect((error as Error).message).toContain(`is already ${EPOCH_MAX}`);
    expect(fs.readFileSync(leasePath(dir)).equals(lease)).toBe(true);
    expect(fs.readFileSync(walPath(dir)).equals(wal)).toBe(true);
  });

  it('a WAL fence of 2^53 − 1 is refused the same way; the lease file is never left holding 2^53', () => {
    const root = tempDir();
    const dir = sessionDir(root, 's1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(walPath(dir), walBytes([lineageBody(TEST_WAL_ID, EPOCH_MAX)]));
    const wal = fs.readFileSync(walPath(dir));
    expect(() => openSessionForWrite(root, 's1', { writer_name: 'test' })).toThrow(EpochExhaustedError);
    const leaseText = fs.readFileSync(leasePath(dir), 'utf8');
    expect(leaseText).toBe('');
    expect(fs.readFileSync(walPath(dir)).equals(wal)).toBe(true);
  });

  it('2^53 itself as a fence or seq is a malformed frame, never a number a reader rounds', () => {
    const bigUint = Buffer.from('1b0020000000000000', 'hex');
    for (const [seq, fence] of [[Buffer.of(0x01), bigUint], [bigUint, Buffer.of(0x01)]]) {
      const body = Buffer.concat([Buffer.of(0x86, 0x02), seq!, fence!, Buffer.from('6d', 'hex'), Buffer.from('turn_finished'), Buffer.of(0x80, 0xa0)]);
      const read = readBytes(Buffer.concat([walBytes([lineageBody()]), rawFrame(body)]));
      expect(read.error).toMatchObject({ kind: 'malformed_frame' });
      expect(read.error!.message).toMatch(/(seq|fence) is 2\^53 or more/);
    }
  });

  function readBytes(bytes: Buffer) {
    const file = path.join(tempDir(), 'wal');
    fs.writeFileSync(file, bytes);
    return readWal(file);
  }
});

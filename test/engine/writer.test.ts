// The WAL writer against real files and real fsync (wal-format §4, §9; contract §2, §3). Every durability
// claim is checked by reading the disk back with the reader.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Payload, ReadFrame } from '../../src-shared/wal.js';
import { FloorRaiseError, WalCeilingError, WalReadError, WriterPoisonedError } from '../../src-main/engine/errors.js';
import { readFloor } from '../../src-main/engine/feature-floor.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { FRAME_HEADER_BYTES, WAL_BYTES_CEILING, WAL_BYTES_RESERVE } from '../../src-main/engine/limits.js';
import { readWal, type ReadResult } from '../../src-main/engine/reader.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { floorPath, sessionDir, sessionsDir, walPath } from '../../src-main/engine/state-root.js';
import { RESERVE_FRAME_BYTES_MAX, tornTailCopyPath, WalIoError, WalWriter, type WalWriterOptions } from '../../src-main/engine/writer.js';
import { FaultyIO } from '../helpers/faulty-io.js';
import { writeBulkWal } from '../fixtures/bulk-wal.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-writer-');

function readBack(wal: string): { read: ReadResult; frames: ReadFrame[] } {
  const frames: ReadFrame[] = [];
  const read = readWal(wal, { on_frame: (frame) => frames.push(frame) });
  return { read, frames };
}

/** Opens as a session does: from a read of the WAL made first (with `existing`, the caller's own). */
const open = (wal: string, options: Partial<WalWriterOptions> = {}): WalWriter =>
  WalWriter.open(wal, { fence: 1, writer_name: 'test-writer', root: null, ...options, existing: options.existing === undefined ? readOf(wal) : options.existing });

function readOf(wal: string): ReadResult | null {
  return (fs.statSync(wal, { throwIfNoEntry: false })?.size ?? 0) === 0 ? null : readWal(wal, { with_payload: false });
}

const turn = (step_id: number): Payload => ({ step_id });

describe('creating and reopening', () => {
  it('starts a new WAL with a lineage frame carrying a random identity and the epoch', () => {
    const wal = path.join(tempDir(), 'wal');
    const writer = open(wal, { fence: 3 });
    writer.close();
    const { read, frames } = readBack(wal);
    expect(read.error).toBeNull();
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ offset: 0, ver: 2, seq: 0, fence: 3, type: 'lineage', features: [] });
    const payload = frames[0]!.payload!;
    expect(payload['wal_id']).toEqual(writer.wal_id);
    expect(writer.wal_id).toHaveLength(16);
    expect(payload).toMatchObject({ writer: 'test-writer', epoch: 3 });
    expect(Math.abs((payload['created_ms'] as number) - Date.now())).toBeLessThan(60_000);
    expect(fs.statSync(wal).size).toBe(writer.size_bytes);
  });

  it('appends records whose barrier makes them readable from disk', () => {
    const wal = path.join(tempDir(), 'wal');
    const writer = open(wal);
    const first = writer.append('turn_finished', turn(1));
    const second = writer.append('tool_batch_finished', { batch_id: 'b1' });
    expect(first).toMatchObject({ seq: 1 });
    expect(second.seq).toBe(2);
    expect(second.offset).toBe(first.offset + first.size_bytes);
    expect(writer.durable_seq).toBe(0);
    writer.barrier();
    expect(writer.durable_seq).toBe(2);
    const { read, frames } = readBack(wal);
    expect(read).toMatchObject({ error: null, records: 2, last_seq: 2, bytes: writer.size_bytes, torn_tail: null });
    expect(frames.slice(1).map((frame) => [frame.seq, frame.type, frame.payload])).toEqual([
      [1, 'turn_finished', turn(1)],
      [2, 'tool_batch_finished', { batch_id: 'b1' }],
    ]);
    writer.close();
  });

  it('reopening appends a lineage frame with the same identity and the new epoch, and continues the sequence', () => {
    const wal = path.join(tempDir(), 'wal');
    const first = open(wal, { fence: 1 });
    first.append('turn_finished', turn(1));
    first.close();
    const second = open(wal, { fence: 2 });
    expect(second.wal_id).toEqual(first.wal_id);
    expect(second.last_seq).toBe(1);
    // Inherited records count as durable only once this writer's barrier has covered them.
    expect(second.durable_seq).toBe(0);
    expect(second.append('turn_finished', turn(2)).seq).toBe(2);
    second.barrier();
    expect(second.durable_seq).toBe(2);
    second.close();
    const { read, frames } = readBack(wal);
    expect(read.error).toBeNull();
    expect(frames.map((frame) => [frame.type, frame.seq, frame.fence])).toEqual([
      ['lineage', 0, 1],
      ['turn_finished', 1, 1],
      ['lineage', 0, 2],
      ['turn_finished', 2, 2],
    ]);
    expect(frames[2]!.payload).toMatchObject({ wal_id: first.wal_id, epoch: 2, writer: 'test-writer' });
  });

  it('treats an existing empty file as new', () => {
    const wal = path.join(tempDir(), 'wal');
    fs.writeFileSync(wal, '');
    const writer = open(wal);
    writer.close();
    const { read, frames } = readBack(wal);
    expect(read.error).toBeNull();
    expect(frames.map((frame) => frame.type)).toEqual(['lineage']);
  });

  it('opens from the read the caller made, reading nothing itself, and refuses bytes that read did not see', () => {
    const wal = path.join(tempDir(), 'wal');
    open(wal).close();
    const existing = readWal(wal, { with_payload: false });
    const faulty = new FaultyIO();
    open(wal, { fence: 2, existing, io: faulty.io }).close();
    expect(faulty.effects.filter((effect) => effect.op === 'read')).toEqual([]);
    const bytes = fs.readFileSync(wal);
    expect(() => open(wal, { fence: 3, existing: null })).toThrow(/another process writes it/);
    expect(fs.readFileSync(wal)).toEqual(bytes);
  });

  it('writes BLAKE3 frames when asked', () => {
    const wal = path.join(tempDir(), 'wal');
    const writer = open(wal, { digest: 'blake3' });
    writer.append('turn_finished', turn(1));
    writer.close();
    expect(readBack(wal).read).toMatchObject({ error: null, digest_algorithms: ['blake3'], records: 1 });
  });

  it('refuses to open a WAL while the file changed since the caller read it', () => {
    const wal = path.join(tempDir(), 'wal');
    open(wal).close();
    const existing = readWal(wal, { with_payload: false });
    fs.appendFileSync(wal, 'x');
    expect(() => open(wal, { fence: 2, existing })).toThrow(/another process writes it/);
  });
});

describe('torn tails and refused WALs', () => {
  it('truncates a torn tail at open, syncs the cut, and appends after the intact prefix', () => {
    const wal = path.join(tempDir(), 'wal');
    const first = open(wal);
    first.append('turn_finished', turn(1));
    first.close();
    const valid_bytes = fs.statSync(wal).size;
    fs.appendFileSync(wal, Buffer.from('BWAL\x01\x01\x00\x00garbage that never committed'));
    expect(readWal(wal).torn_tail).toMatchObject({ offset: valid_bytes });
    const faulty = new FaultyIO();
    const second = open(wal, { fence: 2, io: faulty.io });
    const cut = faulty.mutations().filter((effect) => effect.path === wal && (effect.op === 'ftruncate' || effect.op === 'fsync'));
    expect(cut.map((effect) => [effect.op, effect.length])).toEqual([['ftruncate', valid_bytes], ['fsync', undefined]]);
    // The cut bytes were kept first (etcd's `.broken`): written, synced, renamed in, folder synced.
    const copy = tornTailCopyPath(wal, valid_bytes);
    const kept = faulty.mutations().filter((effect) => effect.path !== wal && effect.op !== 'open').map((effect) => [effect.op, effect.path, effect.to]);
    expect(kept).toEqual([['write', `${copy}.tmp`, undefined], ['fsync', `${copy}.tmp`, undefined], ['rename', `${copy}.tmp`, copy], ['fsyncDirectory', path.dirname(wal), undefined]]);
    expect(fs.readFileSync(copy).toString('latin1')).toBe('BWAL\x01\x01\x00\x00garbage that never committed');
    // The lineage frame went where the garbage began.
    expect(faulty.effects.find((effect) => effect.op === 'write' && effect.path === wal)?.position).toBe(valid_bytes);
    second.append('turn_finished', turn(2));
    second.close();
    const { read, frames } = readBack(wal);
    expect(read).toMatchObject({ error: null, torn_tail: null, last_seq: 2, bytes: fs.statSync(wal).size });
    expect(frames.map((frame) => frame.type)).toEqual(['lineage', 'turn_finished', 'lineage', 'turn_finished']);
  });

  it('a WAL whose only frame is torn starts over with a new identity', () => {
    const wal = path.join(tempDir(), 'wal');
    fs.writeFileSync(wal, Buffer.from('BWAL\x01\x01'));
    const writer = open(wal);
    writer.close();
    const { read, frames } = readBack(wal);
    expect(read).toMatchObject({ error: null, torn_tail: null });
    expect(frames[0]).toMatchObject({ offset: 0, type: 'lineage' });
  });

  it('refuses a WAL with non-tail corruption, leaving it byte-identical', () => {
    const wal = path.join(tempDir(), 'wal');
    const first = open(wal);
    const damaged = first.append('turn_finished', turn(1));
    first.append('turn_finished', turn(2));
    first.close();
    const bytes = fs.readFileSync(wal);
    bytes[damaged.offset + FRAME_HEADER_BYTES + 2]! ^= 0x01;
    fs.writeFileSync(wal, bytes);
    const faulty = new FaultyIO();
    let error: unknown;
    try {
      open(wal, { fence: 2, io: faulty.io });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WalReadError);
    expect((error as WalReadError).info).toMatchObject({ kind: 'non_tail_corruption', offset: damaged.offset });
    expect(fs.readFileSync(wal)).toEqual(bytes);
    expect(faulty.mutations()).toEqual([]);
  });

  it('refuses a WAL a newer writer wrote (unknown feature), even at its end, without truncating', () => {
    const wal = path.join(tempDir(), 'wal');
    open(wal).close();
    const alien = encodeFrame({ ver: 3, seq: 1, fence: 1, type: 'turn_finished', features: ['warp-drive/v1'], payload: turn(1) });
    fs.appendFileSync(wal, alien);
    const bytes = fs.readFileSync(wal);
    expect(() => open(wal, { fence: 2 })).toThrow(WalReadError);
    expect(fs.readFileSync(wal)).toEqual(bytes);
  });
});

describe('gated records and the feature floor', () => {
  it('writes gated records as ver 3 frames naming their features, after the floor lists them', () => {
    const root = tempDir();
    const faulty = new FaultyIO();
    const session = openSessionForWrite(root, 's1', { io: faulty.io, writer_name: 'test' });
    const mark = faulty.effects.length;
    session.writer.append('run_cancel_requested', { run_id: 'r1', at: 'now' });
    session.writer.append('tool_dispatch_intent', { batch_id: 'b', tool_call_id: 'c', args: {}, module_id: 'm', dispatched_at_ms: 5 });
    session.writer.append('turn_finished', turn(1));
    session.close();
    expect(readFloor(root)).toEqual(['dispatch-module/v1', 'run-cancel-at/v1', 'tool-times/v1']);
    expect(fs.readFileSync(floorPath(root), 'utf8')).toBe('dispatch-module/v1\nrun-cancel-at/v1\ntool-times/v1\n');
    const { read, frames } = readBack(walPath(session.dir));
    expect(read.error).toBeNull();
    expect(frames.slice(1).map((frame) => [frame.ver, frame.type, frame.features])).toEqual([
      [3, 'run_cancel_requested', ['run-cancel-at/v1']],
      [3, 'tool_dispatch_intent', ['dispatch-module/v1', 'tool-times/v1']],
      [2, 'turn_finished', []],
    ]);
    // Each raise's directory sync happened before the WAL write of the frame needing it.
    const order = faulty.effects.slice(mark).filter((effect) => effect.op === 'rename' || (effect.op === 'write' && effect.path === walPath(session.dir)));
    expect(order.map((effect) => effect.op)).toEqual(['rename', 'write', 'rename', 'write', 'write']);
  });

  it('a failed floor raise refuses the gated append, writes nothing, and leaves the writer usable', () => {
    const root = tempDir();
    const faulty = new FaultyIO().fail('rename', { path: /wal-feature-floor\.tmp-/ });
    const session = openSessionForWrite(root, 's1', { io: faulty.io, writer_name: 'test' });
    session.writer.append('turn_finished', turn(1));
    session.writer.barrier();
    const wal = walPath(session.dir);
    const before = fs.readFileSync(wal);
    expect(() => session.writer.append('steered', { input: [] })).toThrow(FloorRaiseError);
    expect(fs.readFileSync(wal)).toEqual(before);
    expect(session.writer.poisoned).toBe(false);
    expect(session.writer.last_seq).toBe(1);
    expect(fs.existsSync(floorPath(root))).toBe(false);
    // The next attempt raises the floor for real and the record lands with the next seq.
    expect(session.writer.append('steered', { input: [] })).toMatchObject({ seq: 2 });
    session.close();
    expect(readFloor(root)).toEqual(['steer-queue/v1']);
    expect(readBack(wal).read).toMatchObject({ error: null, last_seq: 2, features: ['steer-queue/v1'] });
  });
});

describe('barriers and directory syncs', () => {
  it('the first barrier after open syncs the session folder and the parents of created folders, after the data', () => {
    const root = tempDir();
    const faulty = new FaultyIO();
    const session = openSessionForWrite(root, 's1', { io: faulty.io, writer_name: 'test' });
    expect(faulty.mutations().filter((effect) => effect.op === 'mkdir').map((effect) => effect.path)).toEqual([sessionsDir(root), session.dir]);
    session.writer.append('turn_finished', turn(1));
    let mark = faulty.effects.length;
    session.writer.barrier();
    const syncs = (from: number) =>
      faulty.effects.slice(from).filter((effect) => effect.op === 'fdatasync' || effect.op === 'fsyncDirectory').map((effect) => [effect.op, effect.path]);
    expect(syncs(mark)).toEqual([
      ['fdatasync', walPath(session.dir)],
      ['fsyncDirectory', session.dir],
      ['fsyncDirectory', sessionsDir(root)],
      ['fsyncDirectory', root],
    ]);
    session.writer.append('turn_finished', turn(2));
    mark = faulty.effects.length;
    session.writer.barrier();
    expect(syncs(mark)).toEqual([['fdatasync', walPath(session.dir)]]);
    session.close();
    // A reopen created nothing: its first barrier syncs only the session folder.
    const again = openSessionForWrite(root, 's1', { io: faulty.io, writer_name: 'test' });
    mark = faulty.effects.length;
    again.writer.barrier();
    expect(syncs(mark)).toEqual([
      ['fdatasync', walPath(session.dir)],
      ['fsyncDirectory', session.dir],
    ]);
    again.close();
  });

  it('a failed directory sync refuses the first barrier and poisons the writer', () => {
    const root = tempDir();
    const faulty = new FaultyIO().fail('fsyncDirectory', { path: sessionsDir(root) });
    const session = openSessionForWrite(root, 's1', { io: faulty.io, writer_name: 'test' });
    session.writer.append('turn_finished', turn(1));
    let error: unknown;
    try {
      session.writer.barrier();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WalIoError);
    expect(error).toMatchObject({ operation: 'fsync_directory', path: sessionsDir(root) });
    expect(session.writer.durable_seq).toBe(0);
    expect(session.writer.poisoned).toBe(true);
    expect(() => session.writer.append('turn_finished', turn(2))).toThrow(WriterPoisonedError);
    expect(() => session.writer.barrier()).toThrow(WriterPoisonedError);
    session.close();
  });
});

describe('failures poison the writer', () => {
  it('a failed fdatasync poisons it; every record an earlier barrier acknowledged is intact on disk', () => {
    const wal = path.join(tempDir(), 'wal');
    const faulty = new FaultyIO().fail('fdatasync', { nth: 2 });
    const writer = open(wal, { io: faulty.io });
    writer.append('turn_finished', turn(1));
    writer.append('turn_finished', turn(2));
    writer.barrier();
    expect(writer.durable_seq).toBe(2);
    writer.append('turn_finished', turn(3));
    expect(() => writer.barrier()).toThrow(WalIoError);
    expect(writer.durable_seq).toBe(2);
    expect(() => writer.append('turn_finished', turn(4))).toThrow(WriterPoisonedError);
    expect(() => writer.barrier()).toThrow(WriterPoisonedError);
    writer.close();
    // Never retried: exactly the two fdatasync calls, the second the failed one.
    expect(faulty.effects.filter((effect) => effect.op === 'fdatasync').map((effect) => effect.error ?? 'ok')).toEqual(['ok', 'EIO']);
    const { read, frames } = readBack(wal);
    expect(read.error).toBeNull();
    const acknowledged = frames.filter((frame) => frame.seq >= 1 && frame.seq <= 2);
    expect(acknowledged.map((frame) => frame.payload)).toEqual([turn(1), turn(2)]);
  });

  it('a failed write poisons it and the next writer recovers what is on disk', () => {
    const wal = path.join(tempDir(), 'wal');
    const faulty = new FaultyIO().fail('write', { nth: 3 });
    const writer = open(wal, { io: faulty.io });
    writer.append('turn_finished', turn(1));
    writer.barrier();
    const size_before = fs.statSync(wal).size;
    expect(() => writer.append('turn_finished', turn(2))).toThrow(/write of .* at offset/);
    expect(fs.statSync(wal).size).toBe(size_before);
    expect(() => writer.append('turn_finished', turn(3))).toThrow(WriterPoisonedError);
    writer.close();
    const next = open(wal, { fence: 2 });
    expect(next.append('turn_finished', turn(2)).seq).toBe(2);
    next.close();
    expect(readBack(wal).read).toMatchObject({ error: null, last_seq: 2, torn_tail: null });
  });

  it('a short write poisons it; the torn bytes are the next writer’s torn tail', () => {
    const wal = path.join(tempDir(), 'wal');
    const faulty = new FaultyIO().shortWrite(10, { nth: 3 });
    const writer = open(wal, { io: faulty.io });
    writer.append('turn_finished', turn(1));
    writer.barrier();
    const acknowledged_bytes = fs.statSync(wal).size;
    expect(() => writer.append('turn_finished', turn(2))).toThrow(/ENOSPC/);
    expect(writer.poisoned).toBe(true);
    writer.close();
    expect(fs.statSync(wal).size).toBe(acknowledged_bytes + 10);
    expect(readWal(wal).torn_tail).toMatchObject({ offset: acknowledged_bytes, bytes: 10 });
    const next = open(wal, { fence: 2 });
    next.close();
    const { read, frames } = readBack(wal);
    expect(read).toMatchObject({ error: null, torn_tail: null, last_seq: 1 });
    expect(frames[2]).toMatchObject({ offset: acknowledged_bytes, type: 'lineage' });
  });

  it('a barrier that finds the file changed by someone else poisons the writer', () => {
    const wal = path.join(tempDir(), 'wal');
    const writer = open(wal);
    writer.append('turn_finished', turn(1));
    fs.appendFileSync(wal, 'foreign');
    expect(() => writer.barrier()).toThrow(/another process wrote to it/);
    expect(writer.poisoned).toBe(true);
    writer.close();
  });

  it('close syncs what is unsynced, and a closed writer accepts nothing', () => {
    const wal = path.join(tempDir(), 'wal');
    const faulty = new FaultyIO();
    const writer = open(wal, { io: faulty.io });
    writer.append('turn_finished', turn(1));
    writer.close();
    expect(faulty.effects.map((effect) => effect.op).slice(-3)).toEqual(['fdatasync', 'fsyncDirectory', 'close']);
    expect(() => writer.append('turn_finished', turn(2))).toThrow(/closed/);
    writer.close();
  });
});

describe('the 1 GiB ceiling', () => {
  it('refuses an ordinary append past ceiling minus reserve, writing nothing; the too-large terminal still fits', () => {
    const wal = path.join(tempDir(), 'wal');
    const ordinary_limit = WAL_BYTES_CEILING - WAL_BYTES_RESERVE;
    writeBulkWal(wal, ordinary_limit - 3 * 1_048_576);
    const writer = open(wal, { fence: 2 });
    const bulk_seq = writer.last_seq;
    // Fill to exactly the ordinary limit: an append that lands on it is admitted.
    writer.append('model_attempt_finished', paddingPayload(ordinary_limit - writer.size_bytes, writer.last_seq + 1));
    expect(writer.size_bytes).toBe(ordinary_limit);
    const size_before = fs.statSync(wal).size;
    const tail_before = readTail(wal, 4096);
    let error: unknown;
    try {
      writer.append('turn_finished', turn(1));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WalCeilingError);
    expect(error).toMatchObject({ size_bytes: ordinary_limit, limit_bytes: ordinary_limit });
    expect(fs.statSync(wal).size).toBe(size_before);
    expect(readTail(wal, 4096)).toEqual(tail_before);
    expect(writer.poisoned).toBe(false);
    expect(writer.last_seq).toBe(bulk_seq + 1);
    // Still usable: a barrier works, and a terminal that is too large to be a reserve frame is refused too.
    writer.barrier();
    const huge_terminal = { reason: 'error', error: { kind: 'session_too_large', message: 'x'.repeat(RESERVE_FRAME_BYTES_MAX) } };
    expect(() => writer.append('run_finished', huge_terminal)).toThrow(WalCeilingError);
    expect(() => writer.append('run_finished', { reason: 'error', error: { kind: 'provider_error' } })).toThrow(WalCeilingError);
    const terminal = writer.append('run_finished', { reason: 'error', error: { kind: 'session_too_large' } });
    expect(terminal.seq).toBe(bulk_seq + 2);
    writer.close();
    // A later open may still use the reserve for its lineage frame.
    const reopened = open(wal, { fence: 3 });
    expect(reopened.size_bytes).toBeGreaterThan(ordinary_limit);
    expect(() => reopened.append('turn_finished', turn(1))).toThrow(WalCeilingError);
    reopened.close();
    const read = readWal(wal, { with_payload: false });
    expect(read).toMatchObject({ error: null, torn_tail: null, last_seq: bulk_seq + 2 });
    expect(read.bytes).toBeLessThanOrEqual(WAL_BYTES_CEILING);
  });
});


/** A payload whose frame, at `seq`, is exactly `frame_bytes` long. */
function paddingPayload(frame_bytes: number, seq: number): Payload {
  for (let padding_bytes = frame_bytes - 64, attempt = 0; padding_bytes > 0 && attempt < 8; attempt++) {
    const payload = { padding: new Uint8Array(padding_bytes) };
    const size_bytes = encodeFrame({ ver: 2, seq, fence: 2, type: 'model_attempt_finished', features: [], payload }).length;
    if (size_bytes === frame_bytes) return payload;
    padding_bytes += frame_bytes - size_bytes;
  }
  throw new Error(`no payload makes a ${frame_bytes}-byte frame`);
}

function readTail(file: string, length: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const size_bytes = fs.fstatSync(fd).size;
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size_bytes - length);
    return buffer;
  } finally {
    fs.closeSync(fd);
  }
}

describe('record types that name Object.prototype members (issue 13, M3)', () => {
  const NAMES = ['__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'toString', 'isPrototypeOf'];

  it('are written as plain unknown records and read back as they were, payload keys of those names included', () => {
    const root = tempDir();
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    for (const name of NAMES) {
      const payload = JSON.parse(`{"${name}": {"tags": ["x"]}, "n": 1}`) as Payload;
      session.writer.append(name, payload);
    }
    session.writer.barrier();
    session.close();
    const { read, frames } = readBack(walPath(sessionDir(root, 's1')));
    expect(read.error).toBeNull();
    const records = frames.filter((frame) => frame.seq > 0);
    expect(records.map((frame) => [frame.type, frame.ver, frame.features])).toEqual(NAMES.map((name) => [name, 2, []]));
    for (const [index, name] of NAMES.entries()) expect(Object.keys(records[index]!.payload!)).toEqual([name, 'n']);
  });
});

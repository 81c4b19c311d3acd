// The fold's digest check ahead of the reader (engine/digest-runs.ts) is a stage of the one reader, as verify's
// worker is: with it on, every read must end exactly where, and as, the read hashing in place ends — the same
// error offset, the same torn-tail or non-tail-corruption judgement, the same counts. Which thread gave a
// frame's verdict is counted (digestWork), never timed: each frame's comes from one of them, and over many
// reads the worker gives some.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestWorkers } from '../../src-main/engine/digest-stage.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { VERIFY_DIGEST_WORKER_FILE_BYTES_MIN } from '../../src-main/engine/inspect.js';
import { coveredBefore, expectSameTornTail, expectStopEndsWorker, frameOffsets, readBoth as readBothWays } from '../helpers/digest-stage.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import { flippedRefusal, lineageBody, recordBody } from '../helpers/wal-bytes.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-digest-runs-');
const MIB = 1_048_576;
const CHUNK_BYTES = 4 * MIB;
const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'bin/walscope.js');
const FIXTURES = path.join(REPO, 'test/fixtures/wal');

/** A WAL over three 4 MiB read chunks, mostly small frames (the fold's case), with a large one every few hundred
 *  frames (frames that cross and fill chunk boundaries) and a BLAKE3 one now and then (the worker steps over it). */
function smallFramesWal(): { bytes: Buffer; offsets: number[] } {
  const frames = [encodeFrame(lineageBody())];
  let bytes = frames[0]!.length;
  for (let seq = 1; bytes < 2.5 * CHUNK_BYTES; seq++) {
    const output = seq % 997 === 0 ? 'x'.repeat(200_000 + ((seq * 77_777) % 700_000)) : `out ${'y'.repeat((seq * 131) % 600)}`;
    const body = recordBody(seq, 'tool_result', { batch_id: 'b1', tool_call_id: `c${seq}`, outcome: 'completed', output, is_error: false });
    frames.push(encodeFrame(body, seq % 1_999 === 1_000 ? 'blake3' : 'sha256'));
    bytes += frames.at(-1)!.length;
  }
  const wal = Buffer.concat(frames);
  return { bytes: wal, offsets: frameOffsets(wal) };
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** The reader pauses after its first record, as a fold's thread falls behind the worker: the worker, which the
 *  read starts and never waits for, gets to run before a short read is over. The pause decides only how many
 *  verdicts the worker gives, never which (the reads' results are compared whatever they are). */
function pauseAfterFirstRecord(frame: ReadFrame): void {
  if (frame.seq === 1) Atomics.wait(pause, 0, 0, 100);
}

/** The fold's stage, its reader held back after its first record. */
const RUNS = { digest_runs_from_bytes: 0, on_frame: pauseAfterFirstRecord };
const readBoth = (file: string) => readBothWays(file, RUNS);

/** Frames to damage: the first and last few, those around each chunk boundary, and a spread of the rest. */
function chosenFrames(bytes: Buffer, offsets: number[]): number[] {
  const chosen = new Set([0, 1, 2, offsets.length - 3, offsets.length - 2, offsets.length - 1]);
  for (let boundary = CHUNK_BYTES; boundary < bytes.length; boundary += CHUNK_BYTES) {
    const crossing = offsets.findLastIndex((offset) => offset < boundary);
    for (let index = crossing - 2; index <= crossing + 2; index++) chosen.add(index);
  }
  for (let index = 3; index < offsets.length; index += Math.floor(offsets.length / 40)) chosen.add(index);
  return [...chosen].filter((index) => index >= 0 && index < offsets.length).sort((a, b) => a - b);
}

describe('every digest checked on a worker ahead of the reader', () => {
  const { bytes, offsets } = smallFramesWal();
  const chosen = chosenFrames(bytes, offsets);

  it('a clean multi-chunk WAL: each frame gets one verdict, from one of the threads, and the in-place result', () => {
    const started = digestWorkers.started;
    expect(bytes.length).toBeGreaterThan(2 * CHUNK_BYTES);
    expect(offsets.length).toBeGreaterThan(5_000);
    const file = path.join(tempDir(), 'wal');
    fs.writeFileSync(file, bytes);
    const { in_place, on_worker, worker_hashed_bytes, here_hashed_bytes } = readBoth(file);
    expect(on_worker).toEqual(in_place);
    expect(worker_hashed_bytes).toBeGreaterThan(0);
    expect(on_worker).toMatchObject({ error: null, torn_tail: null, frames: offsets.length, valid_bytes: bytes.length });
    expect(worker_hashed_bytes + here_hashed_bytes).toBe(coveredBefore(bytes, offsets, bytes.length));
    expect(digestWorkers.started).toBe(started + 1);
  });

  it('one byte flipped in the header, body or digest of many frames in turn: the same offset and judgement', () => {
    const file = path.join(tempDir(), 'wal');
    expect(chosen.length).toBeGreaterThan(50);
    let worker_hashed_bytes = 0;
    for (const [turn, index] of chosen.entries()) {
      const offset = offsets[index]!;
      const size = (offsets[index + 1] ?? bytes.length) - offset;
      // Header (its length field too), body and stored digest each get their turn.
      const within = [turn % 12, 12 + ((turn * 7_919) % (size - 44)), size - 32 + (turn % 32)][turn % 3]!;
      const damaged = Buffer.from(bytes);
      damaged[offset + within]! ^= turn % 2 === 0 ? 0x01 : 0x80;
      fs.writeFileSync(file, damaged);
      const read = readBoth(file);
      worker_hashed_bytes += read.worker_hashed_bytes;
      expect(read.on_worker, `flipped byte ${within} of frame ${index} at ${offset}`).toEqual(read.in_place);
      expect(read.on_worker.valid_bytes).toBe(offset);
      if (index < offsets.length - 1) expect(read.on_worker.error).toMatchObject(flippedRefusal(offset + within, offset));
    }
    // The worker gave verdicts (which ones depends on scheduling; that it took part, over these reads, does not).
    expect(worker_hashed_bytes).toBeGreaterThan(0);
  });

  it('a tail cut mid-frame, small or large: the same torn tail with the worker on and off', () => {
    const file = path.join(tempDir(), 'wal');
    const large = offsets.findLastIndex((offset, index) => (offsets[index + 1] ?? bytes.length) - offset > MIB / 8);
    for (const index of [large, offsets.length - 1, offsets.length - 200]) expectSameTornTail(file, bytes, offsets, offsets[index]!, 30, RUNS);
  });

  it('a read stopped by its caller (on_frame throws) ends the worker with the read', () => {
    const file = path.join(tempDir(), 'wal');
    fs.writeFileSync(file, bytes);
    expectStopEndsWorker(file, 3_000, RUNS);
  });

  it.each(fs.readdirSync(FIXTURES).filter((name) => name.endsWith('.wal')))('golden %s: the same result with the worker on and off', (name) => {
    const { in_place, on_worker } = readBoth(path.join(FIXTURES, name));
    expect(on_worker).toEqual(in_place);
  });

  it('the built CLI replays a WAL of small frames past the worker threshold, damaged or whole, and exits by itself', () => {
    const dir = tempDir();
    const frames = [encodeFrame(lineageBody())];
    let size_bytes = frames[0]!.length;
    for (let seq = 1; size_bytes <= VERIFY_DIGEST_WORKER_FILE_BYTES_MIN; seq++) {
      frames.push(encodeFrame(recordBody(seq, 'tool_result', { batch_id: 'b1', tool_call_id: `c${seq}`, outcome: 'completed', output: 'z'.repeat(600), is_error: false })));
      size_bytes += frames.at(-1)!.length;
    }
    const wal = Buffer.concat(frames);
    const whole = path.join(dir, 'whole.wal');
    fs.writeFileSync(whole, wal);
    const damaged = path.join(dir, 'damaged.wal');
    const broken = Buffer.from(wal);
    const damaged_at = frames.slice(0, frames.length >> 1).reduce((sum, frame) => sum + frame.length, 0);
    broken[damaged_at + 20]! ^= 0x01;
    fs.writeFileSync(damaged, broken);
    for (const [file, status] of [[whole, 0], [damaged, 1]] as const) {
      const run = spawnSync(process.execPath, [CLI, 'replay', '--json', file], { cwd: REPO, encoding: 'utf8', timeout: 120_000, maxBuffer: 256 * MIB });
      expect(run.error).toBeUndefined(); // it ended by itself, before the timeout
      expect(run.signal).toBeNull();
      expect(run.status, run.stderr).toBe(status);
      const replay = JSON.parse(run.stdout) as { last_seq: number; integrity: { error: { kind: string; offset: number } | null } };
      if (status === 0) expect(replay).toMatchObject({ last_seq: frames.length - 1, integrity: { error: null } });
      else expect(replay.integrity.error).toMatchObject({ kind: 'non_tail_corruption', offset: damaged_at });
    }
  });
});

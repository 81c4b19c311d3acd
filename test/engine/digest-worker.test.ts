// The digest check on a worker thread (engine/digest-runs.ts, the stage verify starts for itself) is a stage of
// the one reader, not a second reader: with it on, every read must end exactly where, and as, the read hashing in
// place ends — the same error offset, the same torn-tail or non-tail-corruption judgement, the same counts. Which
// thread checked a frame is counted (digestWork), never timed: each frame's verdict comes from one of them — the
// worker, which hashes each chunk's frames ahead of the reader, or the reader where it got to a frame first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestWorkers } from '../../src-main/engine/digest-stage.js';
import { RUN_FOLD_BYTES_MAX } from '../../src-main/cli/verify.js';
import { VERIFY_DIGEST_WORKER_FILE_BYTES_MIN } from '../../src-main/engine/inspect.js';
import { coveredBefore, expectSameTornTail, expectStopEndsWorker, frameOffsets, readBoth as readBothWays } from '../helpers/digest-stage.js';
import { flippedRefusal, lineageBody, recordBody, walBytes } from '../helpers/wal-bytes.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-digest-worker-');
const MIB = 1_048_576;
const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'bin/walscope.js');
const FIXTURES = path.join(REPO, 'test/fixtures/wal');

/** A WAL over three 4 MiB read chunks: runs of small records between outputs of 300–900 KB, so frames end at,
 *  cross and fill chunk boundaries and batches hold one frame or many. */
function multiChunkWal(): { bytes: Buffer; offsets: number[] } {
  const bodies = [lineageBody()];
  for (let seq = 1; bodies.length < 60; seq++) {
    const big = seq % 3 === 0;
    const output = big ? 'x'.repeat(300_000 + ((seq * 77_777) % 600_000)) : `out ${seq}`;
    bodies.push(recordBody(seq, 'tool_result', { batch_id: 'b1', tool_call_id: `c${seq}`, outcome: 'completed', output, is_error: false }));
  }
  const bytes = walBytes(bodies);
  return { bytes, offsets: frameOffsets(bytes) };
}

/** A WAL of at least `size_bytes` of outputs of 900 KB. */
function largeWal(size_bytes: number): { bytes: Buffer; offsets: number[] } {
  const bodies = [lineageBody()];
  const output = 'y'.repeat(900_000);
  for (let seq = 1; (bodies.length - 1) * output.length < size_bytes; seq++) {
    bodies.push(recordBody(seq, 'tool_result', { batch_id: 'b1', tool_call_id: `c${seq}`, outcome: 'completed', output, is_error: false }));
  }
  const bytes = walBytes(bodies);
  return { bytes, offsets: frameOffsets(bytes) };
}

/** verify's stage, started by the read itself. */
const WORKER = { digest_runs_from_bytes: 0 };
const readBoth = (file: string) => readBothWays(file, WORKER);
/** Reads of one WAL, each with its own worker, go on this long (a bound, not an assertion) until one has the worker
 *  take part: on a loaded machine a worker's start can outlast a few 48 MiB reads in a row. */
const READS_MS_MAX = 30_000;

describe('digests checked on a worker thread', () => {
  const { bytes, offsets } = multiChunkWal();

  it('a clean WAL: each frame is checked once, on one of the threads, with the in-place result', async () => {
    // Each read starts its own worker and does not wait for it (verify's stage): a read of a few MiB ends before
    // the worker runs (~45 ms), and even one of 48 MiB can end before it gets a core. It must take part in some
    // read; every read must end as the read in place does.
    const { bytes, offsets } = largeWal(48 * MIB);
    const file = path.join(tempDir(), 'wal');
    fs.writeFileSync(file, bytes);
    let worker_hashed = 0;
    const deadline_ms = Date.now() + READS_MS_MAX;
    while (worker_hashed === 0 && Date.now() < deadline_ms) {
      const started = digestWorkers.started;
      const { in_place, on_worker, worker_hashed_bytes, here_hashed_bytes } = readBoth(file);
      expect(on_worker).toEqual(in_place);
      expect(on_worker).toMatchObject({ error: null, torn_tail: null, frames: offsets.length, valid_bytes: bytes.length });
      expect(worker_hashed_bytes + here_hashed_bytes).toBe(coveredBefore(bytes, offsets, bytes.length));
      expect(digestWorkers.started).toBe(started + 1);
      worker_hashed += worker_hashed_bytes;
      // The worker just ended is let go before the next read starts its own.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(worker_hashed).toBeGreaterThan(0);
  });

  it('one byte flipped in each frame in turn: the same offset and judgement with the worker on and off', () => {
    // Which frames the worker hashed, if any, depends on scheduling (test/app/read-digest-worker.test.ts flips
    // each frame under a worker that is running); the verdicts never do.
    const file = path.join(tempDir(), 'wal');
    for (const [index, offset] of offsets.entries()) {
      const size = (offsets[index + 1] ?? bytes.length) - offset;
      const damaged = Buffer.from(bytes);
      // Header, body and stored digest each get their turn.
      const flipped_at = offset + ((index * 7_919) % size);
      damaged[flipped_at]! ^= 0x01;
      fs.writeFileSync(file, damaged);
      const read = readBoth(file);
      expect(read.on_worker, `flipped byte ${flipped_at} of the frame at ${offset}`).toEqual(read.in_place);
      const last = index === offsets.length - 1;
      if (last) expect(read.on_worker.torn_tail).toMatchObject({ offset });
      else expect(read.on_worker.error).toMatchObject(flippedRefusal(flipped_at, offset));
      expect(read.on_worker.valid_bytes).toBe(offset);
    }
  });

  it('a tail cut mid-frame: the same torn tail with the worker on and off', () => {
    const file = path.join(tempDir(), 'wal');
    // The last large frame, cut 1,000 bytes in.
    const cut_index = offsets.findLastIndex((offset, index) => (offsets[index + 1] ?? bytes.length) - offset > MIB / 4);
    expectSameTornTail(file, bytes, offsets, offsets[cut_index]!, 1_000, WORKER);
  });

  it('a read stopped by its caller (on_frame throws) ends the worker with the read', () => {
    const file = path.join(tempDir(), 'wal');
    fs.writeFileSync(file, bytes);
    expectStopEndsWorker(file, 10, WORKER);
  });

  it.each(fs.readdirSync(FIXTURES).filter((name) => name.endsWith('.wal')))('golden %s: the same result with the worker on and off', (name) => {
    const { in_place, on_worker } = readBoth(path.join(FIXTURES, name));
    expect(on_worker).toEqual(in_place);
  });

  it('the built CLI verifies a WAL past the worker threshold, damaged or whole, and exits by itself', () => {
    const dir = tempDir();
    const whole = path.join(dir, 'whole.wal');
    // verify streams (rather than folds) a WAL past RUN_FOLD_BYTES_MAX: that read is the one with the worker.
    const size_bytes_min = Math.max(VERIFY_DIGEST_WORKER_FILE_BYTES_MIN, RUN_FOLD_BYTES_MAX);
    const wal = largeWal(size_bytes_min).bytes;
    expect(wal.length).toBeGreaterThan(size_bytes_min);
    fs.writeFileSync(whole, wal);
    const damaged = path.join(dir, 'damaged.wal');
    const broken = Buffer.from(wal);
    broken[Math.floor(wal.length / 2)]! ^= 0x01;
    fs.writeFileSync(damaged, broken);
    for (const [file, status, first] of [[whole, 0, 'OK'], [damaged, 1, 'REFUSED']] as const) {
      const run = spawnSync(process.execPath, [CLI, 'verify', file], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
      expect(run.error).toBeUndefined(); // it ended by itself, before the timeout
      expect(run.signal).toBeNull();
      expect(run.status, run.stderr).toBe(status);
      expect(run.stdout.startsWith(first)).toBe(true);
    }
  });
});

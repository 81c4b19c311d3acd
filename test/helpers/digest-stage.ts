// What the tests of a digest stage (engine/digest-runs.ts, on engine/digest-stage.ts) share: a WAL's frame offsets,
// the covered bytes a read hashes, and one file read twice, in place and through the stage, with the bytes each
// thread hashed counted.
import fs from 'node:fs';
import { expect } from 'vitest';
import { digestWork } from '../../src-main/engine/digest.js';
import { digestWorkers } from '../../src-main/engine/digest-stage.js';
import { FRAME_OVERHEAD_BYTES } from '../../src-main/engine/limits.js';
import { readWal, type ReadOptions, type ReadResult } from '../../src-main/engine/reader.js';

/** The offset of every frame of `bytes` (a whole WAL), by the frames' length fields. */
export function frameOffsets(bytes: Buffer): number[] {
  const offsets: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += FRAME_OVERHEAD_BYTES + bytes.readUInt32LE(offset + 8)) offsets.push(offset);
  return offsets;
}

/** Covered bytes (all but the 32-byte digest) of the frames that end by `end`. */
export function coveredBefore(bytes: Buffer, offsets: number[], end: number): number {
  let covered = 0;
  for (const [index, offset] of offsets.entries()) {
    const next = offsets[index + 1] ?? bytes.length;
    if (next > end) break;
    covered += next - offset - 32;
  }
  return covered;
}

/** `file` read in place and read with `stage` (the options that ask for the stage), and who gave the verdicts in
 *  the second read: bytes the worker checked, bytes this thread did. Every read ends the worker it started. */
export function readBoth(file: string, stage: ReadOptions): { in_place: ReadResult; on_worker: ReadResult; worker_hashed_bytes: number; here_hashed_bytes: number } {
  const in_place = readWal(file, { with_payload: false });
  const worker_before = digestWork.worker_hashed_bytes;
  const here_before = digestWork.hashed_bytes;
  const on_worker = readWal(file, { with_payload: false, ...stage });
  expect(digestWorkers.ended).toBe(digestWorkers.started);
  return { in_place, on_worker, worker_hashed_bytes: digestWork.worker_hashed_bytes - worker_before, here_hashed_bytes: digestWork.hashed_bytes - here_before };
}

/** `bytes` cut `cut_bytes` into the frame at `cut_frame` and written to `file`, read both ways: the same torn tail,
 *  at that frame, and every frame before it hashed once, by one thread or the other. */
export function expectSameTornTail(file: string, bytes: Buffer, offsets: number[], cut_frame: number, cut_bytes: number, stage: ReadOptions): void {
  fs.writeFileSync(file, bytes.subarray(0, cut_frame + cut_bytes));
  const { in_place, on_worker, worker_hashed_bytes, here_hashed_bytes } = readBoth(file, stage);
  expect(on_worker).toEqual(in_place);
  expect(on_worker.torn_tail).toMatchObject({ offset: cut_frame, reason: 'past_end' });
  expect(worker_hashed_bytes + here_hashed_bytes).toBe(coveredBefore(bytes, offsets, cut_frame));
}

/** A read of `file` with `stage` whose caller stops it (`on_frame` throws at frame `frames_max`): an I/O error,
 *  and the worker ended with the read. */
export function expectStopEndsWorker(file: string, frames_max: number, stage: ReadOptions): void {
  let frames = 0;
  const result = readWal(file, {
    with_payload: false,
    ...stage,
    on_frame: () => {
      if (++frames === frames_max) throw new Error('enough');
    },
  });
  expect(frames).toBe(frames_max);
  expect(result.error).toMatchObject({ kind: 'io' });
  expect(digestWorkers.ended).toBe(digestWorkers.started);
}

// The two refused demo sessions, derived from WALs the runtime wrote: one gains a frame a newer writer would
// append (digest-valid, requiring a feature this build does not know), the other has one byte of a middle
// frame flipped, as a bad sector would, with intact frames after it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { ReadFrame } from '../../src-shared/wal.js';
import { encodeFrame, FRAME_HEADER_BYTES, readWal } from '../engine/index.js';

/** A feature no build of this project knows: the reader refuses its frame as NewerWriter. */
export const DEMO_FUTURE_FEATURE = 'demo-future-feature/v9';

export function appendNewerWriterFrame(wal_path: string): void {
  const read = readWal(wal_path, { with_payload: false });
  assert.equal(read.error, null, 'the base WAL is intact');
  const frame = encodeFrame({
    ver: 3,
    seq: read.last_seq + 1,
    fence: read.max_fence,
    type: 'run_note',
    features: [DEMO_FUTURE_FEATURE],
    payload: { note: 'written by a newer runtime than this walscope' },
  });
  fs.appendFileSync(wal_path, frame);
}

/** Flips one byte inside the body of a frame in the middle of the WAL. */
export function corruptMiddleFrame(wal_path: string): void {
  const frames: ReadFrame[] = [];
  const read = readWal(wal_path, { with_payload: false, on_frame: (frame) => frames.push(frame) });
  assert.ok(read.error === null && frames.length >= 4, 'the base WAL is intact and long enough');
  const victim = frames[Math.floor(frames.length / 2)]!;
  const bytes = fs.readFileSync(wal_path);
  const offset = victim.offset + FRAME_HEADER_BYTES + 2;
  bytes[offset] = bytes[offset]! ^ 0x5a;
  fs.writeFileSync(wal_path, bytes);
}

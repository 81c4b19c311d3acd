// The backward scan finds the last frames of a real WAL file from its end: the chain it returns must be what the
// reader reads there, a torn tail must be named, and bytes in a payload that happen to be a valid frame must
// never be taken for one. Each file is written to disk and read through FileIO, its reads recorded.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DigestAlgorithmName, FrameBody } from '../../src-shared/wal.js';
import { digestWork } from '../../src-main/engine/digest.js';
import { nodeFileIO, type FileIO } from '../../src-main/engine/file-io.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { findLastFrames } from '../../src-main/engine/last-frames.js';
import { readWal } from '../../src-main/engine/reader.js';
import { lineageBody, recordBody, walBytes } from '../helpers/wal-bytes.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-last-frames-');

function bodies(records: number, output = 'x'.repeat(300)): FrameBody[] {
  const list = [lineageBody()];
  for (let seq = 1; seq <= records; seq++) list.push(recordBody(seq, 'tool_result', { batch_id: 'b', tool_call_id: `c${seq}`, outcome: 'completed', output, is_error: false }));
  return list;
}

function write(bytes: Buffer): string {
  const file = path.join(tempDir(), 'wal');
  fs.writeFileSync(file, bytes);
  return file;
}

/** The reader's frames of `file` (offset, seq, type), for comparison. */
function readerFrames(file: string): { offset: number; seq: number; type: string }[] {
  const frames: { offset: number; seq: number; type: string }[] = [];
  readWal(file, { with_payload: false, on_frame: (frame) => frames.push({ offset: frame.offset, seq: frame.seq, type: frame.type }) });
  return frames;
}

/** FileIO that records the position of every read. */
function recordingIO(): { io: FileIO; positions: number[] } {
  const positions: number[] = [];
  return { io: { ...nodeFileIO, read: (fd, buffer, offset, length, position) => (positions.push(position), nodeFileIO.read(fd, buffer, offset, length, position)) }, positions };
}

describe('findLastFrames', () => {
  for (const algorithm of ['sha256', 'blake3'] as DigestAlgorithmName[]) {
    it(`finds the last frames from the end, as the reader reads them, without reading the head (${algorithm})`, () => {
      const file = write(walBytes(bodies(400), algorithm));
      const { io, positions } = recordingIO();
      const window_bytes = 20_000;
      const found = findLastFrames(file, { io, window_bytes });
      const size = fs.statSync(file).size;
      expect(positions.every((position) => position >= size - window_bytes)).toBe(true);
      expect(found.torn_tail).toBeNull();
      expect(found.stop).toBe('window');
      expect(found.frames.length).toBeGreaterThan(40);
      const expected = readerFrames(file).slice(-found.frames.length);
      expect(found.frames.map(({ offset, seq, type }) => ({ offset, seq, type }))).toEqual(expected);
      expect(found.frames.at(-1)!.offset + found.frames.at(-1)!.size_bytes).toBe(size);
      expect(found.frames.every((frame) => frame.digest_algorithm === algorithm)).toBe(true);
    });
  }

  it('reads a whole small WAL back to its start, and stops at the frame count', () => {
    const file = write(walBytes(bodies(10)));
    const whole = findLastFrames(file);
    expect(whole.stop).toBe('start_of_file');
    expect(whole.frames.map((frame) => frame.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const cut = findLastFrames(file, { frames_max: 3 });
    expect(cut.stop).toBe('frames_max');
    expect(cut.frames.map((frame) => frame.seq)).toEqual([8, 9, 10]);
  });

  it('walks back no further than what the caller shows: the last frames and the last episode\'s start', () => {
    // Three episodes of 30 records each; the caller shows 10 frames and the last episode from its start.
    const list = [lineageBody()];
    for (let seq = 1; seq <= 90; seq++) {
      const type = seq % 30 === 1 ? 'run_started' : 'tool_result';
      list.push(recordBody(seq, type, type === 'run_started' ? { run_id: `r${seq}`, input: [] } : { batch_id: 'b', tool_call_id: `c${seq}`, outcome: 'completed', output: 'x'.repeat(300), is_error: false }));
    }
    const file = write(walBytes(list));
    const reach = { frames_min: 10, type: 'run_started' };
    let before = digestWork.hashed_bytes;
    const whole = findLastFrames(file);
    const whole_hashed = digestWork.hashed_bytes - before;
    expect(whole.stop).toBe('start_of_file');
    before = digestWork.hashed_bytes;
    const reached = findLastFrames(file, { reach });
    const reached_hashed = digestWork.hashed_bytes - before;
    // Back to the last run_started (seq 61), which is more than 10 frames back: 30 frames, hashed and chained.
    expect(reached.stop).toBe('reached');
    expect(reached.frames.map((frame) => frame.seq)).toEqual(whole.frames.slice(-30).map((frame) => frame.seq));
    expect(reached.frames[0]!.type).toBe('run_started');
    // Each of those frames was hashed once, and no frame before them.
    expect(reached_hashed).toBeGreaterThan(0);
    expect(reached_hashed).toBeLessThanOrEqual(reached.frames.reduce((sum, frame) => sum + frame.size_bytes, 0));
    expect(reached_hashed).toBeLessThan(whole_hashed / 2);
    // An episode start nearer than the frames asked for: the frames asked for.
    expect(findLastFrames(file, { reach: { frames_min: 40, type: 'run_started' } }).frames.map((frame) => frame.seq)).toEqual(whole.frames.slice(-40).map((frame) => frame.seq));
    // No episode start in reach: as far as without it.
    expect(findLastFrames(file, { reach: { frames_min: 10, type: 'absent' } })).toMatchObject({ stop: 'start_of_file', frames: whole.frames });
  });

  it('names a torn tail (a partial last frame) and ends the chain before it', () => {
    const whole = walBytes(bodies(50));
    const last = readerFrames(write(whole)).at(-1)!;
    for (const keep of [2, 9, 100]) {
      const file = write(whole.subarray(0, last.offset + keep));
      const found = findLastFrames(file, { window_bytes: 8_000 });
      expect(found.torn_tail).toEqual({ offset: last.offset, bytes: keep, reason: keep < 12 ? 'short_header' : 'past_end' });
      expect(found.frames.at(-1)!.seq).toBe(49);
      expect(readWal(file).torn_tail?.offset).toBe(last.offset);
    }
  });

  it('names a last frame whose digest fails as a torn tail', () => {
    const whole = walBytes(bodies(20));
    whole[whole.length - 1] = whole[whole.length - 1]! ^ 0xff;
    const found = findLastFrames(write(whole));
    expect(found.torn_tail?.reason).toBe('digest_mismatch');
    expect(found.frames.at(-1)!.seq).toBe(19);
  });

  it('finds nothing when the last frame is larger than the window, and reads no more than the window', () => {
    const big = 'y'.repeat(50_000);
    const file = write(walBytes([...bodies(5), recordBody(6, 'tool_result', { batch_id: 'b', tool_call_id: 'big', outcome: 'completed', output: big, is_error: false })]));
    const { io, positions } = recordingIO();
    const found = findLastFrames(file, { io, window_bytes: 10_000 });
    expect(found.frames).toEqual([]);
    expect(found.stop).toBe('window');
    expect(Math.min(...positions)).toBe(fs.statSync(file).size - 10_000);
  });

  it('never takes a valid frame embedded in a payload for a frame', () => {
    // The last record's output holds a whole valid frame (and a chain of two), at its very end.
    const embedded = Buffer.concat([encodeFrame(recordBody(7, 'tool_result', { output: 'forged' })), encodeFrame(recordBody(8, 'run_finished', { reason: 'completed' }))]);
    const carrier = recordBody(6, 'tool_result', { batch_id: 'b', tool_call_id: 'c6', outcome: 'completed', output: embedded, is_error: false });
    const file = write(walBytes([...bodies(5), carrier]));
    const found = findLastFrames(file);
    expect(found.frames.map((frame) => frame.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(found.frames.map((frame) => frame.type)).not.toContain('run_finished');
    // With the carrier torn after the embedded frames, they end where no frame starts: still not taken.
    const torn = fs.readFileSync(file).subarray(0, fs.statSync(file).size - 40);
    const found_torn = findLastFrames(write(torn));
    expect(found_torn.frames.at(-1)!.seq).toBe(5);
    expect(found_torn.torn_tail?.reason).toBe('past_end');
  });

  it('bounds its hashing on overlapping headers (hostile input): at most twice the window, and one frame', () => {
    // A header every 64 bytes, each claiming a frame that ends exactly at the end of the file.
    const size = 1_048_576;
    const bytes = Buffer.alloc(size, 0x61);
    for (let at = 0; at + 12 <= size; at += 64) {
      bytes.set([0x42, 0x57, 0x41, 0x4c, 1, 1, 0, 0], at);
      bytes.writeUInt32LE(size - at - 44, at + 8);
    }
    const before = digestWork.hashed_bytes;
    const found = findLastFrames(write(bytes));
    expect(found).toMatchObject({ frames: [], stop: 'budget' });
    expect(digestWork.hashed_bytes - before).toBeLessThanOrEqual(2 * size + size);
  });

  it('answers an empty or short file with no frames', () => {
    expect(findLastFrames(write(Buffer.alloc(0)))).toMatchObject({ frames: [], torn_tail: null, stop: 'start_of_file' });
    expect(findLastFrames(write(Buffer.from('BW')))).toMatchObject({ frames: [], torn_tail: { offset: 0, bytes: 2, reason: 'short_header' }, stop: 'start_of_file' });
    expect(findLastFrames(write(Buffer.from('not a wal at all')))).toMatchObject({ frames: [], torn_tail: null, stop: 'window' });
  });
});

// readFrameAt: one frame by offset through FileIO, checked as the reader checks it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FrameFile, ONE_FRAME_READ_AHEAD_BYTES, readFrameAt } from '../../src-main/engine/frame-access.js';
import { nodeFileIO, type FileIO } from '../../src-main/engine/file-io.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import { countingIO } from '../helpers/counting-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from '../app/wal-fixture.js';
import { lineageBody, recordBody, walBytes } from '../helpers/wal-bytes.js';

const tempDir = useTempDirs('walscope-frame-access-');

function sample(): { wal: string; frames: ReadFrame[] } {
  const root = tempDir();
  writeFinished(root, 's');
  const wal = walPath(sessionDir(root, 's'));
  const frames: ReadFrame[] = [];
  readWal(wal, { on_frame: (frame) => frames.push(frame) });
  return { wal, frames };
}

describe('readFrameAt', () => {
  it('reads every indexed frame back, payload and all', () => {
    const { wal, frames } = sample();
    for (const frame of frames) {
      const found = readFrameAt(wal, frame.offset);
      expect(found.kind).toBe('ok');
      if (found.kind !== 'ok' || found.body.kind !== 'ok') throw new Error('not intact');
      const body = found.body;
      expect(found.bytes.length).toBe(frame.size_bytes);
      expect({ seq: body.body.seq, type: body.body.type }).toEqual({ seq: frame.seq, type: frame.type });
      expect(body.body.payload).toEqual(frame.payload);
    }
  });

  it('names the damage of a flipped byte, a cut frame and an offset that is not a frame', () => {
    const { wal, frames } = sample();
    const last = frames.at(-1)!;
    const bytes = fs.readFileSync(wal);
    bytes[last.offset + 20] = bytes[last.offset + 20]! ^ 0x10;
    fs.writeFileSync(wal, bytes);
    expect(readFrameAt(wal, last.offset)).toMatchObject({ kind: 'damaged', reason: 'digest_mismatch' });
    fs.truncateSync(wal, last.offset + last.size_bytes - 5);
    expect(readFrameAt(wal, last.offset)).toMatchObject({ kind: 'damaged', reason: 'past_end' });
    expect(readFrameAt(wal, last.offset + 1)).toMatchObject({ kind: 'damaged', reason: 'bad_magic' });
    expect(readFrameAt(wal, bytes.length + 100)).toMatchObject({ kind: 'damaged', reason: 'short_header' });
  });

  it('an unreadable file is an I/O outcome, not an exception', () => {
    expect(readFrameAt(path.join(tempDir(), 'missing'), 0).kind).toBe('io');
    expect(readFrameAt(tempDir(), 0).kind).toBe('io');
  });

  it('reads about one small frame for a small frame, and a large one in two reads, not a walking window each', () => {
    const note = 'x'.repeat(100 * 1_024);
    const bodies = [lineageBody()];
    for (let seq = 1; seq <= 200; seq++) bodies.push(recordBody(seq, 'note', { text: seq === 100 ? note : `note ${seq}` }));
    const wal = path.join(tempDir(), 'wal');
    fs.writeFileSync(wal, walBytes(bodies));
    const frames: ReadFrame[] = [];
    readWal(wal, { on_frame: (frame) => frames.push(frame) });
    expect(fs.statSync(wal).size).toBeGreaterThan(ONE_FRAME_READ_AHEAD_BYTES * 4);
    for (const frame of [frames[1]!, frames[100]!, frames.at(-1)!]) {
      const { io, read_bytes, reads } = countingIO();
      expect(readFrameAt(wal, frame.offset, { io }).kind).toBe('ok');
      const small = frame.size_bytes <= ONE_FRAME_READ_AHEAD_BYTES;
      expect(reads()).toBe(small ? 1 : 2);
      expect(read_bytes()).toBeLessThanOrEqual(ONE_FRAME_READ_AHEAD_BYTES + (small ? 0 : frame.size_bytes));
    }
  });

  it('walks frames larger than its read-ahead in one buffer, grown to the largest, and hands each out intact', () => {
    const sizes = [300, 700, 200, 500, 100].map((kib) => kib * 1_024);
    const bodies = [lineageBody(), ...sizes.map((size, index) => recordBody(index + 1, 'note', { text: String(index).repeat(size) }))];
    const wal = path.join(tempDir(), 'wal');
    fs.writeFileSync(wal, walBytes(bodies));
    const frames: ReadFrame[] = [];
    readWal(wal, { on_frame: (frame) => frames.push(frame) });
    const buffers = new Set<ArrayBufferLike>();
    const io: FileIO = {
      ...nodeFileIO,
      read: (fd, buffer, offset, length, position) => (buffers.add(buffer.buffer), nodeFileIO.read(fd, buffer, offset, length, position)),
    };
    const file = FrameFile.open(wal, io, 64 * 1_024) as FrameFile;
    try {
      for (const frame of frames.slice(1)) {
        const read = file.at(frame.offset);
        expect(read.kind === 'ok' && read.body.kind === 'ok' && read.body.body.payload?.['text']).toBe(String(frame.seq - 1).repeat(sizes[frame.seq - 1]!));
      }
    } finally {
      file.close();
    }
    // The first read-ahead's, grown for the 300 KiB frame and again for the 700 KiB one, then that one for the
    // rest (a new buffer for every read before).
    expect(buffers.size).toBe(3);
  });
});


// The tailer decodes only appended bytes, treats a partial frame at the end as not-yet-committed, and follows a
// writer that truncates a torn tail under its lease. Checked against a full read of the same bytes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionTailer } from '../../src-main/services/session-tailer.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession, writeFinished, writeIndeterminate } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-tailer-');

/** A deterministic generator, so a failing split replays. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

function sampleWal(root: string): Buffer {
  writeIndeterminate(root, 's');
  withSession(root, 's', (append) => {
    for (let index = 0; index < 20; index++) append('steered', { input: [{ role: 'user', content: [{ type: 'text', text: `steer ${index} ${'x'.repeat(index * 37)}` }] }] });
  });
  return fs.readFileSync(walPath(sessionDir(root, 's')));
}

describe('session tailer', () => {
  it.each([1, 2, 3])('appends in arbitrary pieces end as a full read does (seed %i)', (seed) => {
    const bytes = sampleWal(tempDir());
    const full = readWal(writeTo(tempDir(), bytes));
    const file = path.join(tempDir(), 'export.wal');
    fs.writeFileSync(file, '');
    const tailer = new SessionTailer(resolveTargets(file)[0]!);
    const random = lcg(seed);
    let written = 0;
    let frames = 0;
    while (written < bytes.length) {
      const piece = Math.min(bytes.length - written, 1 + Math.floor(random() * 300));
      fs.appendFileSync(file, bytes.subarray(written, written + piece));
      written += piece;
      const update = tailer.refresh();
      expect(update.restarted).toBe(false);
      frames += update.frames_added;
      const read = tailer.read!;
      expect(read.error).toBeNull();
      // A partial frame at the end is never a record: the checkpoint stays before it.
      expect(read.valid_bytes + (read.torn_tail?.bytes ?? 0)).toBe(written);
      expect(tailer.index.length).toBe(frames);
    }
    expect(tailer.read!.torn_tail).toBeNull();
    expect(frames).toBe(full.frames);
    expect(tailer.read!.last_seq).toBe(full.last_seq);
    expect(tailer.fold().episodes[0]!.batches.at(0)!.calls[0]!.class).toBe('indeterminate');
  });

  it('reads only the appended bytes on each refresh', () => {
    const root = tempDir();
    writeFinished(root, 's');
    const tailer = new SessionTailer(resolveTargets(sessionDir(root, 's'))[0]!);
    expect(tailer.refresh().frames_added).toBe(4);
    const spy = fs.readSync;
    const wal_inode = fs.statSync(walPath(sessionDir(root, 's'))).ino;
    let bytes_read = 0;
    // Only the WAL's bytes count: the lease probe also reads /proc/locks, whose size depends on the machine.
    const counting = ((...args: Parameters<typeof fs.readSync>) => {
      const count = spy(...args);
      if (fs.fstatSync(args[0]).ino === wal_inode) bytes_read += count;
      return count;
    }) as typeof fs.readSync;
    fs.readSync = counting;
    try {
      withSession(root, 's', (append) => append('steered', { input: [] }));
      bytes_read = 0;
      expect(tailer.refresh().frames_added).toBe(2);
    } finally {
      fs.readSync = spy;
    }
    const size = fs.statSync(walPath(sessionDir(root, 's'))).size;
    expect(bytes_read).toBeGreaterThan(0);
    expect(bytes_read).toBeLessThan(size / 2);
  });

  it('follows a writer that truncates a torn tail, without restarting', () => {
    const root = tempDir();
    writeFinished(root, 's');
    const wal = walPath(sessionDir(root, 's'));
    fs.appendFileSync(wal, Buffer.from('BWAL\x01\x01\x00\x00\x10\x00\x00\x00half a frame'));
    const tailer = new SessionTailer(resolveTargets(sessionDir(root, 's'))[0]!);
    tailer.refresh();
    expect(tailer.read!.torn_tail).not.toBeNull();
    const records = tailer.read!.records;
    withSession(root, 's', (append) => append('steered', { input: [] }));
    const update = tailer.refresh();
    expect(update.restarted).toBe(false);
    expect(tailer.read!.torn_tail).toBeNull();
    expect(tailer.read!.records).toBe(records + 1);
    expect(tailer.index.length).toBe(readWal(wal).frames);
  });

  it('starts over when the file is replaced by another WAL', () => {
    const root = tempDir();
    writeFinished(root, 's', 'first');
    const wal = walPath(sessionDir(root, 's'));
    const tailer = new SessionTailer(resolveTargets(sessionDir(root, 's'))[0]!);
    tailer.refresh();
    const other = tempDir();
    writeIndeterminate(other, 's');
    fs.copyFileSync(walPath(sessionDir(other, 's')), `${wal}.new`);
    fs.renameSync(`${wal}.new`, wal);
    expect(tailer.refresh().restarted).toBe(true);
    expect(tailer.read!.error).toBeNull();
    expect(tailer.fold().episodes[0]!.batches).toHaveLength(1);
  });
});

function writeTo(dir: string, bytes: Buffer): string {
  const file = path.join(dir, 'copy.wal');
  fs.writeFileSync(file, bytes);
  return file;
}

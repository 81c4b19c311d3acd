// The scan past a non-tail damage reads each byte about once, however many frames follow the damage: it once
// read a fresh 4 MiB window for every frame it found (a 12 MB WAL of small frames took ~40 s). Work is counted
// in bytes read through the FileIO, never timed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanAfterDamage } from '../../src-main/engine/damage-scan.js';
import { nodeFileIO, type FileIO } from '../../src-main/engine/file-io.js';
import { lineageBody, recordBody, walBytes } from '../helpers/wal-bytes.js';
import { countingIO } from '../helpers/counting-io.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-damage-scan-');
const FRAMES_AFTER = 5_000;
const SHORT_READ_BYTES = 1_000;

/** A WAL whose second record is damaged, followed by `FRAMES_AFTER` small intact records. */
function damagedEarly(): { wal: string; damage_offset: number; size_bytes: number } {
  const damage_offset = walBytes([lineageBody(), recordBody(1, 'turn_finished', { step_id: 1 })]).length;
  const bodies = [lineageBody(), recordBody(1, 'turn_finished', { step_id: 1 }), recordBody(2, 'turn_finished', { step_id: 2 })];
  for (let seq = 3; seq < 3 + FRAMES_AFTER; seq++) bodies.push(recordBody(seq, 'turn_finished', { step_id: seq }));
  const bytes = walBytes(bodies);
  bytes[damage_offset + 20]! ^= 0xff;
  const wal = path.join(tempDir(), 'wal');
  fs.writeFileSync(wal, bytes);
  return { wal, damage_offset, size_bytes: bytes.length };
}

describe('the scan after a damage', () => {
  it(`finds ${FRAMES_AFTER} small frames reading the file about once`, () => {
    const { wal, damage_offset, size_bytes } = damagedEarly();
    const { io, read_bytes } = countingIO();
    const found = scanAfterDamage(wal, damage_offset, io);
    expect(found).toMatchObject({ frames: FRAMES_AFTER, records: FRAMES_AFTER, seq_first: 3, seq_last: 2 + FRAMES_AFTER, scan_cut: false });
    // Each frame is read once to hash it, and the window once more to find its magic.
    expect(read_bytes()).toBeLessThanOrEqual(3 * size_bytes);
  });

  it('finds every magic when the reads come back short and magics straddle the window edges', () => {
    const { wal, damage_offset } = damagedEarly();
    let short_reads = 0;
    // Only the window's reads are cut (a frame's own reads are a few dozen bytes): 1,000-byte windows put a
    // window edge inside some frame's magic at every alignment over 5,000 frames.
    const io: FileIO = {
      ...nodeFileIO,
      read(fd, buffer, offset, length, position) {
        if (length <= SHORT_READ_BYTES) return nodeFileIO.read(fd, buffer, offset, length, position);
        short_reads++;
        return nodeFileIO.read(fd, buffer, offset, SHORT_READ_BYTES, position);
      },
    };
    const found = scanAfterDamage(wal, damage_offset, io);
    expect(found).toMatchObject({ frames: FRAMES_AFTER, seq_last: 2 + FRAMES_AFTER, unaccounted_bytes: expect.any(Number) });
    expect(short_reads).toBeGreaterThan(FRAMES_AFTER / 100);
  });
});

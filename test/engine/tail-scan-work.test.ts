// Issue 13, M5: the tail scan's work is bounded, not 2 GiB of hashing. 200 frame headers that each claim 16 MiB
// after a damaged frame (an 18 MB file) once made every read hash up to 2 GiB (43–115 s with BLAKE3 in JS).
// Issue 30, item 11: the bound proves every ordinary tail (at least 64 MiB hashed, whatever the tail's size:
// twice a 9 KB tail refused a few overlapping candidates as corruption), and running out of it is a refusal of
// its own, never corruption that was not seen. Work is counted in bytes hashed, never timed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestWork } from '../../src-main/engine/digest.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { TAIL_SCAN_CANDIDATES_MAX, TAIL_SCAN_HASHED_BYTES_MIN } from '../../src-main/engine/limits.js';
import { readWal } from '../../src-main/engine/reader.js';
import type { DigestAlgorithmName } from '../../src-shared/wal.js';
import { lineageBody, recordBody } from '../helpers/wal-bytes.js';

const MIB = 1_048_576;
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-tail-work-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A clean prefix, then a record whose digest is wrong: the damage the scan starts after. */
function damagedPrefix(algorithm: DigestAlgorithmName): { bytes: Buffer; damaged_at: number } {
  const clean = Buffer.concat([encodeFrame(lineageBody(), algorithm), encodeFrame(recordBody(1, 'turn_finished', { step_id: 1 }), algorithm)]);
  const damaged = encodeFrame(recordBody(2, 'turn_finished', { step_id: 2 }), algorithm);
  damaged[damaged.length - 1]! ^= 0xff;
  return { bytes: Buffer.concat([clean, damaged]), damaged_at: clean.length };
}

/** A frame header claiming a body of `body_bytes`: a candidate the scan must hash to rule out. */
function candidateHeader(algorithm: DigestAlgorithmName, body_bytes: number): Buffer {
  const header = Buffer.from([0x42, 0x57, 0x41, 0x4c, 1, algorithm === 'sha256' ? 1 : 2, 0, 0, 0, 0, 0, 0]);
  header.writeUInt32LE(body_bytes, 8);
  return header;
}

function readCountingHashes(bytes: Buffer) {
  const file = path.join(dir, 'wal');
  fs.writeFileSync(file, bytes);
  const before = digestWork.hashed_bytes;
  const result = readWal(file, { with_payload: false });
  return { result, hashed_bytes: digestWork.hashed_bytes - before };
}

describe('the tail scan hashes a bounded multiple of the bytes after the damage', () => {
  it.each<DigestAlgorithmName>(['blake3', 'sha256'])('200 overlapping %s candidates claiming 16 MiB each: refused as unproven after hashing at most the bound', (algorithm) => {
    const { bytes: prefix, damaged_at } = damagedPrefix(algorithm);
    const region = Buffer.alloc(18 * MIB, 0x5a);
    for (let index = 0; index < 200; index++) candidateHeader(algorithm, 16 * MIB).copy(region, index * 5_000);
    const bytes = Buffer.concat([prefix, region]);
    const { result, hashed_bytes } = readCountingHashes(bytes);
    expect(hashed_bytes).toBeLessThanOrEqual(TAIL_SCAN_HASHED_BYTES_MIN + prefix.length);
    expect(result.torn_tail).toBeNull();
    expect(result.error).toMatchObject({ kind: 'tail_scan_bound', offset: damaged_at });
    expect(result.error!.message).toMatch(/stopped at offset \d+: the candidate frame headers claim [\d,]+ bytes so far, more than the 64 MiB it hashes at most \(they overlap\)/);
    expect(result.error!.message).toMatch(/bytes from there to the end were not checked, so walscope cannot tell a torn tail from non-tail corruption/);
    expect(result.error!.message).toContain('walscope verify --full-scan');
  });

  it('more candidates than the bound takes, however little they claim: refused as unproven', () => {
    const { bytes: prefix, damaged_at } = damagedPrefix('sha256');
    const region = Buffer.alloc((TAIL_SCAN_CANDIDATES_MAX + 1) * 16 + 64, 0x5a);
    for (let index = 0; index <= TAIL_SCAN_CANDIDATES_MAX; index++) candidateHeader('sha256', 1).copy(region, index * 16);
    const { result } = readCountingHashes(Buffer.concat([prefix, region]));
    expect(result.error).toMatchObject({ kind: 'tail_scan_bound', offset: damaged_at });
    expect(result.error!.message).toContain('it had checked 65,536 candidate frame headers, its most');
  });

  it.each([
    ['a 9 KB tail holding eight overlapping candidate headers', 9_000, 8],
    ['5 KB of garbage holding ten false magics', 5_000, 10],
  ])('%s is a usable torn tail: the candidates claim more than twice the tail, far less than the bound', (_name, tail_bytes, candidates) => {
    const { bytes: prefix, damaged_at } = damagedPrefix('sha256');
    const region = Buffer.alloc(tail_bytes, 0x5a);
    const spacing = Math.floor(tail_bytes / candidates);
    // Each claims every byte to the end of the file: together several times the tail, each one hashed.
    for (let index = 0; index < candidates; index++) candidateHeader('sha256', tail_bytes - index * spacing - 44).copy(region, index * spacing);
    const bytes = Buffer.concat([prefix, region]);
    const { result, hashed_bytes } = readCountingHashes(bytes);
    expect(hashed_bytes - prefix.length).toBeGreaterThan(2 * tail_bytes);
    expect(result.error).toBeNull();
    expect(result.torn_tail).toMatchObject({ offset: damaged_at, bytes: bytes.length - damaged_at, trailing_lineage: [] });
  });

  it('candidates that do not overlap are all checked, however many bytes they claim in all', () => {
    const algorithm = 'blake3';
    const { bytes: prefix, damaged_at } = damagedPrefix(algorithm);
    // 16 candidates of 1 MiB each, end to end, each with a wrong digest: nothing committed follows the damage.
    const region = Buffer.alloc(16 * (MIB + 44), 0x5a);
    for (let index = 0; index < 16; index++) candidateHeader(algorithm, MIB).copy(region, index * (MIB + 44));
    const bytes = Buffer.concat([prefix, region]);
    const { result, hashed_bytes } = readCountingHashes(bytes);
    expect(result.error).toBeNull();
    expect(result.torn_tail).toMatchObject({ offset: damaged_at, bytes: bytes.length - damaged_at, trailing_lineage: [] });
    expect(hashed_bytes).toBeGreaterThanOrEqual(16 * (MIB + 12));
    expect(hashed_bytes).toBeLessThanOrEqual(bytes.length);
  });
});

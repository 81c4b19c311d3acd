// The archive reader (wal-format §11, contract §4.1) on archives built by an independent encoder: every case
// of the index (valid, stale, missing, invalid, lying), corruption against torn tails, damaged content, the
// history chain's missing parents and counter regressions; and cut and flip sweeps at every byte of a small
// archive and its index, where every outcome must be one the spec allows — never a silent wrong answer.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArchive } from '../../src-main/engine/archive-reader.js';
import { verifyArchive } from '../../src-main/engine/archive-verify.js';
import { findLineage, readHistory } from '../../src-main/engine/lineage-chain.js';
import { archiveBytes, handWal, indexBytes, sealedMember, tombstone, walId, type HandMember } from '../helpers/archive-bytes.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-archive-');

const A = walId(0xa1);
const B = walId(0xb2);
const C = walId(0xc3);
const hexOf = (id: Buffer) => id.toString('hex');

/** A sealed (tags up to 4: next_tag 5), B deleted (next_tag 7), C live with parent B. */
function history(): { members: HandMember[]; live: Buffer } {
  const members = [sealedMember({ wal_id: A, records: 2 }, 5, 3), tombstone(B, 4, 7, 3)];
  return { members, live: handWal({ wal_id: C, parent: B, next_tag: 7, next_notice_seq: 3, records: 1 }) };
}

function sessionWith(files: { wal: Buffer; archive?: Buffer; index?: Buffer }): string {
  const dir = path.join(tempDir(), 's1');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'wal'), files.wal);
  if (files.archive !== undefined) fs.writeFileSync(path.join(dir, 'archive'), files.archive);
  if (files.index !== undefined) fs.writeFileSync(path.join(dir, 'archive.index'), files.index);
  return dir;
}

function flip(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

describe('reading an archive another implementation wrote', () => {
  it('lists the history newest first, with a valid index, and proves absence', () => {
    const { members, live } = history();
    const { bytes, offsets } = archiveBytes(members);
    const dir = sessionWith({ wal: live, archive: bytes, index: indexBytes(members, offsets) });
    const read = readHistory(dir);
    expect(read.archive.index).toBe('valid');
    expect(read.problems).toEqual([]);
    expect(read.lineages.map((entry) => [entry.wal_id, entry.where, entry.parent_wal_id, entry.next_tag])).toEqual([
      [hexOf(C), 'live', hexOf(B), 7],
      [hexOf(B), 'deleted', null, 7],
      [hexOf(A), 'sealed', null, 5],
    ]);
    expect(findLineage(dir, hexOf(A))).toEqual({ found: true, where: 'sealed', offset: 0 });
    expect(findLineage(dir, hexOf(B))).toEqual({ found: true, where: 'deleted', offset: offsets[1] });
    expect(findLineage(dir, hexOf(C))).toEqual({ found: true, where: 'live', offset: null });
    expect(findLineage(dir, '00'.repeat(16))).toEqual({ found: false, proven: true });
    expect(verifyArchive(dir, [])).toEqual({ index: 'valid', members: 2, torn_tail: null, error: null, damaged_members: [] });
  });

  it('a stale index hides nothing: the members after covered_bytes are found by their headers', () => {
    const { members, live } = history();
    const { bytes, offsets } = archiveBytes(members);
    const dir = sessionWith({ wal: live, archive: bytes, index: indexBytes(members, offsets, 1) });
    expect(readArchive(dir, { trust_index: true }).index).toBe('stale');
    expect(readArchive(dir, { trust_index: true }).members.map((member) => member.offset)).toEqual(offsets);
    expect(findLineage(dir, hexOf(B))).toMatchObject({ found: true, where: 'deleted' });
  });

  it('a missing index means every header is read from offset 0', () => {
    const { members, live } = history();
    const dir = sessionWith({ wal: live, archive: archiveBytes(members).bytes });
    expect(verifyArchive(dir, [])).toMatchObject({ index: 'missing', members: 2, error: null });
    expect(findLineage(dir, hexOf(A))).toMatchObject({ found: true });
  });

  it('an index that is digest-valid but lies (covered_bytes inside a member) is invalid, and ignored', () => {
    const { members, live } = history();
    const { bytes, offsets } = archiveBytes(members);
    const lying = indexBytes([members[0]!, { ...members[1]!, content: Buffer.alloc(3) }], [offsets[0]!, offsets[1]!]);
    const dir = sessionWith({ wal: live, archive: bytes, index: lying });
    const scan = readArchive(dir, { trust_index: true });
    expect(scan.index).toBe('invalid');
    expect(scan.members).toHaveLength(2);
  });

  it('a damaged header with a valid header after it is archive corruption: no absence, no partial history', () => {
    const { members, live } = history();
    const { bytes, offsets } = archiveBytes(members);
    const dir = sessionWith({ wal: live, archive: flip(bytes, 20) });
    const scan = readArchive(dir);
    expect(scan.error).toMatchObject({ kind: 'archive_corruption', offset: 0 });
    expect(scan.error!.message).toContain(`offset ${offsets[1]}`);
    const lookup = findLineage(dir, '00'.repeat(16));
    expect(lookup).toMatchObject({ found: false, proven: false, error: { kind: 'archive_corruption', offset: 0 } });
    expect(readHistory(dir).problems[0]).toMatchObject({ kind: 'archive_corruption', offset: 0 });
  });

  // 70,000 frames: more than the scan after a damage takes as candidates, so its content must not be hashed.
  it.each([3, 70_000])('a cut last member (of %i records) is the torn tail: never committed, the rest readable', (records) => {
    const { members, live } = history();
    const { bytes, offsets } = archiveBytes([members[0]!, sealedMember({ wal_id: B, records })]);
    const dir = sessionWith({ wal: live, archive: bytes.subarray(0, bytes.length - 5) });
    const scan = readArchive(dir);
    expect(scan.error).toBeNull();
    expect(scan.torn_tail).toEqual({ offset: offsets[1], bytes: bytes.length - 5 - offsets[1]!, reason: 'past_end' });
    expect(scan.members).toHaveLength(1);
  });

  it('a damaged header followed by overlapping member-header candidates past the scan budget: its own refusal, and --full-scan proves the torn tail', () => {
    const { members, live } = history();
    const { bytes } = archiveBytes(members);
    // 100 candidates that start as member headers do, each claiming about 1 MiB to the end: 100 MiB to hash.
    const region = Buffer.alloc(1_048_576 + 100 * 64, 0x5a);
    const body_head = Buffer.concat([Buffer.from([0x86, 0x02, 0x00, 0x01, 0x6e]), Buffer.from('archive_member')]);
    for (let index = 0; index < 100; index++) {
      const header = Buffer.from([0x42, 0x57, 0x41, 0x4c, 1, 1, 0, 0, 0, 0, 0, 0]);
      header.writeUInt32LE(region.length - index * 64 - 44, 8);
      Buffer.concat([header, body_head]).copy(region, index * 64);
    }
    const dir = sessionWith({ wal: live, archive: Buffer.concat([bytes, region]) });
    const scan = readArchive(dir);
    expect(scan.torn_tail).toBeNull();
    expect(scan.error).toMatchObject({ kind: 'archive_scan_bound', offset: bytes.length });
    expect(scan.error!.message).toContain("cannot tell the archive's torn tail from corruption");
    expect(findLineage(dir, '00'.repeat(16))).toMatchObject({ found: false, proven: false });
    const full = readArchive(dir, { full_scan: true });
    expect(full.error).toBeNull();
    expect(full.torn_tail).toEqual({ offset: bytes.length, bytes: region.length, reason: 'digest_mismatch' });
  });

  it('content that does not match content_sha256 refuses that member alone', () => {
    const { members, live } = history();
    const { bytes, header_ends } = archiveBytes(members);
    const dir = sessionWith({ wal: live, archive: flip(bytes, header_ends[0]! + 30) });
    expect(verifyArchive(dir, [])).toMatchObject({ error: null, members: 2, damaged_members: [hexOf(A)] });
    const read = readHistory(dir);
    expect(read.problems).toEqual([expect.objectContaining({ kind: 'member_damaged', wal_id: hexOf(A), offset: 0 })]);
    expect(read.lineages.map((entry) => entry.where)).toEqual(['live', 'deleted', 'sealed']);
  });

  it('a parent found nowhere after a covering read is missing, and a successor below its parent regresses', () => {
    const { members } = history();
    const { bytes } = archiveBytes(members);
    const orphan = sessionWith({ wal: handWal({ wal_id: C, parent: walId(0xdd), records: 1 }), archive: bytes });
    const read = readHistory(orphan);
    expect(read.lineages[1]).toMatchObject({ wal_id: 'dd'.repeat(16), where: 'missing' });
    expect(read.problems).toEqual([expect.objectContaining({ kind: 'missing_parent', parent_wal_id: 'dd'.repeat(16) })]);
    const regressed = sessionWith({ wal: handWal({ wal_id: C, parent: B, next_tag: 6, next_notice_seq: 3, records: 1 }), archive: bytes });
    expect(readHistory(regressed).problems).toEqual([expect.objectContaining({ kind: 'counter_regression', counter: 'next_tag', value: 6, parent_value: 7 })]);
  });
});

describe('sweeps over a small archive and its index', () => {
  const { members, live } = history();
  const small = archiveBytes([sealedMember({ wal_id: A, records: 1 }, 2, 1), tombstone(B, 2, 3, 1)]);
  const ends = [small.offsets[1]!, small.bytes.length];

  it('every cut of the archive is a prefix of whole members and a torn tail, never corruption', () => {
    for (let cut = 0; cut <= small.bytes.length; cut++) {
      const dir = sessionWith({ wal: live, archive: small.bytes.subarray(0, cut) });
      const scan = readArchive(dir);
      const whole = ends.filter((end) => end <= cut).length;
      expect(scan.error, `cut ${cut}`).toBeNull();
      expect(scan.members, `cut ${cut}`).toHaveLength(whole);
      expect(scan.torn_tail === null, `cut ${cut}`).toBe(cut === 0 || ends.includes(cut));
      for (const [position, member] of members.entries()) {
        const lookup = findLineage(dir, hexOf(member.wal_id));
        expect(lookup.found, `cut ${cut}, member ${position}`).toBe(position < whole);
        expect('proven' in lookup ? lookup.proven : true).toBe(true);
      }
    }
  });

  it('every flipped byte of the archive is caught: corruption, the torn tail, or that member damaged', () => {
    const first_header_end = small.header_ends[0]!;
    for (let at = 0; at < small.bytes.length; at++) {
      const dir = sessionWith({ wal: live, archive: flip(small.bytes, at) });
      const report = verifyArchive(dir, [])!;
      if (at < first_header_end) {
        expect(report.error, `flip at ${at}`).toMatchObject({ kind: expect.stringMatching(/^archive_(corruption|malformed)$/), offset: 0 });
        expect(findLineage(dir, '00'.repeat(16)).found).toBe(false);
        expect(findLineage(dir, '00'.repeat(16))).toMatchObject({ proven: false });
      } else if (at < small.offsets[1]!) {
        expect(report, `flip at ${at}`).toMatchObject({ error: null, members: 2, damaged_members: [hexOf(A)] });
      } else {
        expect(report, `flip at ${at}`).toMatchObject({ error: null, members: 1, torn_tail: { offset: small.offsets[1] } });
      }
    }
  });

  it('every flipped or cut byte of the index makes it invalid, and every member is still found', () => {
    const index = indexBytes([sealedMember({ wal_id: A, records: 1 }, 2, 1), tombstone(B, 2, 3, 1)], small.offsets);
    const damaged = [
      ...Array.from({ length: index.length }, (_, at) => flip(index, at)),
      ...Array.from({ length: index.length }, (_, cut) => index.subarray(0, cut)),
    ];
    for (const [position, bytes] of damaged.entries()) {
      const dir = sessionWith({ wal: live, archive: small.bytes, index: bytes });
      const scan = readArchive(dir, { trust_index: true });
      expect(scan.index, `damage ${position}`).toBe('invalid');
      expect(scan.members.map((member) => member.offset), `damage ${position}`).toEqual(small.offsets);
    }
  });
});

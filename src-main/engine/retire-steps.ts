// The steps of retiring (wal-format §11) that any writer under the session's lease may have to take: the plan
// read from what the disk holds, step 2 (the successor) and step 3 (the index). `retire` runs them after its
// step 1; an ordinary writer runs them when it finds a retire that died after step 1 (§11: "the next writer
// finishes steps 2–3"). One implementation for both, so the successor's counters are computed one way.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { MemberPlan, Payload, RetirePlan } from '../../src-shared/wal.js';
import { WAL_ID_BYTES, type RetireReason } from './archive-format.js';
import { openMember } from './archive-member.js';
import { latestMember, readArchive, type ArchiveMember, type ArchiveScan } from './archive-reader.js';
import { prefixDigest, tornCopyName, writeIndex, writeSynced } from './archive-writer.js';
import { readFloor } from './feature-floor.js';
import type { FileIO } from './file-io.js';
import { encodeFrame } from './frame-codec.js';
import { readLineage } from './lineage-chain.js';
import { FRAME_VER_PLAIN } from './limits.js';
import { hex, readWal, type ReadResult } from './reader.js';
import { walPath } from './state-root.js';

/** The successor is written under this name, then renamed over `wal`. */
export const SUCCESSOR_TEMP_NAME = 'wal.successor';

export type RetireRefusal = { kind: 'refused'; code: RetireRefusalCode; message: string };
export type RetireRefusalCode = 'not_a_session' | 'lease_held' | 'wal_refused' | 'archive_refused' | 'plan_changed' | 'nothing_to_retire';

export interface InterruptedRetireOptions {
  io: FileIO;
  writer_name: string;
  epoch: number;
  now_ms?: () => number;
}

/** Under the lease, before a writer appends anything: when the newest member for the live lineage is whole,
 *  digest-valid and holds exactly the live WAL's committed content (same frames, last_seq and bytes), a retire
 *  died after its step 1 and steps 2–3 are finished here. A member of an older state (the WAL grew since: any
 *  writer's open appends a lineage frame) is a stale copy, not an interrupted retire: nothing is done, the
 *  live WAL stays authoritative and the next retire appends a newer member. Returns the successor's wal_id. */
export function finishInterruptedRetire(root: string, dir: string, live: ReadResult | undefined, options: InterruptedRetireOptions): string | null {
  const io = options.io;
  if (live === undefined || live.wal_id === null || live.records === 0) return null;
  const archive = readArchive(dir, { io, trust_index: true });
  if (!archive.present || archive.error !== null) return null;
  const member = latestMember(archive, hex(live.wal_id));
  if (member === null || member.last_seq !== live.last_seq || member.frames !== live.frames) return null;
  const plan = planRetire(root, dir, member.reason, io);
  if ('kind' in plan || plan.member !== null) return null;
  return finishRetire(io, dir, plan, readArchive(dir, { io }).members, options.writer_name, options.epoch, (options.now_ms ?? Date.now)());
}

/** Under the lease, when the live lineage holds no records (a successor, or none yet): a retire that died after
 *  its step 2 left an index that does not cover the archive, and step 3 is finished here (§11: "the next writer
 *  finishes steps 2–3"; readers cope with a stale index, but it stayed stale until the next retire). Returns
 *  whether the index was written. */
export function finishInterruptedIndex(io: FileIO, dir: string, epoch: number): boolean {
  const archive = readArchive(dir, { io });
  if (!owesIndex(archive)) return false;
  writeIndex(io, dir, archive.members, epoch);
  return true;
}

/** Whether the archive is readable and its index does not cover it (stale, missing or invalid). Read-only. */
export function indexOwed(io: FileIO, dir: string): boolean {
  return owesIndex(readArchive(dir, { io }));
}

function owesIndex(archive: ArchiveScan): boolean {
  return archive.present && archive.error === null && archive.index !== 'valid';
}

/** Steps 2 and 3, once the member is in `members` (appended now, or by a retire that died after step 1). */
/** Steps 2 and 3; `retired`: what the successor's lineage frame records of the retire that made it (its audit and
 *  cuts), when an operator approved it. */
export function finishRetire(io: FileIO, dir: string, plan: RetirePlan, members: readonly ArchiveMember[], writer: string, epoch: number, now_ms: number, retired?: Payload): string {
  const successor_wal_id = writeSuccessor(io, dir, plan, writer, epoch, now_ms, retired);
  writeIndex(io, dir, members, epoch);
  return successor_wal_id;
}

/** A member already in the archive stands for the live lineage only when whole, digest-valid and equal to it. */
function holdsLive(dir: string, existing: ArchiveMember, member: MemberPlan, io: FileIO): boolean {
  if (existing.reason !== member.reason || hex(existing.content_sha256) !== member.content_sha256) return false;
  if (existing.last_seq !== member.last_seq || existing.frames !== member.frames) return false;
  return existing.reason === 'deleted' || openMember(dir, existing, { io, with_payload: false }).ok;
}

/** Reads the live WAL and the archive as they are and computes every byte-relevant value retiring writes. */
export function planRetire(root: string, dir: string, reason: RetireReason, io: FileIO): RetirePlan | RetireRefusal {
  const wal = walPath(dir);
  const lineage = readLineage((on_frame) => readWal(wal, { io, floor_features: readFloor(root, io), on_frame }));
  const read = lineage.read;
  if (read.error !== null) return refusal('wal_refused', `the live WAL is refused (${read.error.kind}): ${read.error.message}`);
  if (read.wal_id === null) return refusal('nothing_to_retire', `${wal} holds no lineage yet: there is nothing to retire`);
  if (read.records === 0) return refusal('nothing_to_retire', `lineage ${hex(read.wal_id)} holds no records (a fresh successor): there is nothing to retire`);
  const archive = readArchive(dir, { io });
  if (archive.error !== null) return refusal('archive_refused', `the archive is refused, so nothing is appended to it: ${archive.error.message}`);
  const wal_id = hex(read.wal_id);
  const counters = lineage.end;
  const content_bytes = reason === 'sealed' ? read.valid_bytes : 0;
  const sha = prefixDigest(io, wal, content_bytes);
  const existing = latestMember(archive, wal_id);
  const member: MemberPlan = {
    wal_id,
    reason,
    first_seq: lineage.first_seq ?? 0,
    last_seq: read.last_seq,
    frames: read.frames,
    content_bytes,
    content_sha256: hex(sha),
    next_tag: Math.max(counters.next_tag, existing?.next_tag ?? 0),
    next_notice_seq: Math.max(counters.next_notice_seq, existing?.next_notice_seq ?? 0),
    offset: archive.committed_bytes,
  };
  const archived = existing !== null && holdsLive(dir, existing, member, io);
  const tail = archive.torn_tail;
  return {
    session_dir: dir,
    reason,
    live: { wal_id, parent_wal_id: lineage.parent_wal_id, records: read.records, last_seq: read.last_seq, valid_bytes: read.valid_bytes, torn_tail: read.torn_tail },
    archive_torn_tail: tail === null ? null : { offset: tail.offset, bytes: tail.bytes, copy_name: tornCopyName(io, archive) },
    member: archived ? null : member,
    successor: { parent_wal_id: wal_id, next_tag: member.next_tag, next_notice_seq: member.next_notice_seq },
    index: { before: archive.index, members: archive.members.length + (archived ? 0 : 1) },
  };
}

/** Step 2: the successor's one lineage frame, synced under a temporary name, renamed over `wal`, folder synced. */
function writeSuccessor(io: FileIO, dir: string, plan: RetirePlan, writer: string, epoch: number, created_ms: number, retired: Payload | undefined): string {
  const wal_id = new Uint8Array(randomBytes(WAL_ID_BYTES));
  const payload: Payload = {
    wal_id,
    created_ms,
    writer,
    parent_wal_id: Buffer.from(plan.successor.parent_wal_id, 'hex'),
    next_tag: plan.successor.next_tag,
    next_notice_seq: plan.successor.next_notice_seq,
    epoch,
    ...(retired === undefined ? {} : { retired }),
  };
  const frame = encodeFrame({ ver: FRAME_VER_PLAIN, seq: 0, fence: epoch, type: 'lineage', features: [], payload });
  const temp = path.join(dir, SUCCESSOR_TEMP_NAME);
  writeSynced(io, temp, frame);
  io.rename(temp, walPath(dir));
  io.fsyncDirectory(dir);
  return hex(wal_id);
}

export function refusal(code: RetireRefusalCode, message: string): RetireRefusal {
  return { kind: 'refused', code, message };
}

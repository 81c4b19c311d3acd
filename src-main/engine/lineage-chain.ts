// A session's whole history (wal-format §11): the live `wal`, then each `parent_wal_id` in turn, found in the
// archive as a sealed member (read in full) or a tombstone (counts only). A parent found nowhere after a
// covering read is `missing`, never skipped; a successor starting its counters below its parent's is a
// counter regression, reported and never repaired. Read-only, like every reader of the engine.
import { appendAll } from '../../src-shared/arrays.js';
import type { Payload, ReadFrame, WalErrorInfo } from '../../src-shared/wal.js';
import { archivePath } from './archive-format.js';
import { archiveSteps, latestMember, readArchive, type ArchiveError, type ArchiveMember, type ArchiveScan } from './archive-reader.js';
import { openMember } from './archive-member.js';
import { CborDecoder, SCALAR, WHOLE, type CborProjection } from './cbor.js';
import type { HistoryLineage } from '../../src-shared/ipc.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { CounterFold, startCounters, type LineageCounters } from './lineage-counters.js';
import { hex, ioError, readWal, refusedRead, type ReadResult } from './reader.js';
import { walPath } from './state-root.js';
import { runSteps } from './steps.js';

export type LineageWhere = HistoryLineage['where'];

/** A lineage as the app shows it (src-shared's HistoryLineage: ids, where, seq range, the counters a successor
 *  carries on from, the time span its frames carry), plus the member's offset in the archive (sealed, deleted). */
export interface LineageEntry extends HistoryLineage {
  offset: number | null;
}

export type LineageProblem =
  | { kind: 'counter_regression'; wal_id: string; parent_wal_id: string; counter: 'next_tag' | 'next_notice_seq'; value: number; parent_value: number; message: string }
  | { kind: 'missing_parent'; wal_id: string; parent_wal_id: string; message: string }
  | { kind: 'archive_corruption'; error_kind: ArchiveError['kind']; offset: number | null; message: string }
  | { kind: 'member_damaged'; wal_id: string; offset: number; message: string };

export interface SessionHistory {
  lineages: LineageEntry[];
  problems: LineageProblem[];
  archive: ArchiveScan;
  /** The live WAL's refusal, when it is refused: the history shown is then the archive's alone. */
  live_error: WalErrorInfo | null;
  /** Each sealed member's operator_action frames (with their payloads), by wal_id: the app finds a retire there. */
  member_actions: ReadonlyMap<string, readonly ReadFrame[]>;
}

export interface HistoryOptions {
  io?: FileIO;
  floor_features?: readonly string[];
  live?: boolean;
  /** The sealed members read by earlier calls for this session, kept while its archive is unchanged. */
  member_reads?: MemberReads;
  /** The live lineage as the caller has read it already (the app's session model), so it is not read again;
   *  null while the caller's read has not reached it (it is left out). Absent: it is read here. */
  live_lineage?: LineageRead | null;
}

/** What a lineage's frames tell the chain: its parent, start counters, end counters, first seq and time span. */
export interface LineageFactsValue {
  parent_wal_id: string | null;
  start: LineageCounters;
  end: LineageCounters;
  first_seq: number | null;
  first_ms: number | null;
  last_ms: number | null;
}

/** What reading one lineage tells the chain: the read (identity, last seq, refusal) and the facts of its frames. */
export interface LineageRead extends LineageFactsValue {
  read: ReadResult;
}

/** The payload members the facts read: the lineage frame's parent and counters, a record's runner tags, a
 *  compaction notice's number, the stamps of the time span. The stamps are built whole: a `ts_ms` that is not a
 *  number must hide `created_ms` as it does in a built payload, not read as null and let it through. */
const FACT_MEMBERS: CborProjection = { parent_wal_id: SCALAR, next_tag: SCALAR, next_notice_seq: SCALAR, tags: WHOLE, notice_seq: SCALAR, ts_ms: WHOLE, created_ms: WHOLE };

/** Gathers a lineage's facts frame by frame, so a tailer's append costs only its own frames. Every reader of a
 *  lineage's facts (the chain below, a retire's plan, the app's session read) gathers them here. */
export class LineageFacts {
  private readonly counters = new CounterFold();
  private lineage_seen = false;
  private lineage: Payload | null = null;
  private first_seq: number | null = null;
  private first_ms: number | null = null;
  private last_ms: number | null = null;

  /** Payloads read here for FACT_MEMBERS: a second pass over each one (the tests count them). */
  projected = 0;

  /** `built`: the fact members as another pass over the payload built them (the fold's, replay/fold.ts
   *  `keptFacts`), or null. Without it, and when the frame's payload was not built, `payload_cbor` (the payload
   *  map's validated CBOR) is read, and then only for FACT_MEMBERS: a tool output of megabytes is passed over. */
  push(frame: ReadFrame, payload_cbor?: Buffer, built: Payload | null = null): void {
    const payload = frame.payload ?? built ?? (payload_cbor === undefined ? null : this.project(payload_cbor));
    if (!this.lineage_seen && frame.seq === 0) {
      this.lineage_seen = true;
      this.lineage = payload;
    }
    if (this.first_seq === null && frame.seq > 0) this.first_seq = frame.seq;
    this.counters.push(frame, payload);
    // The time span: the earliest and latest stamp any frame carries (lineage created_ms, record ts_ms).
    const stamp = payload?.['ts_ms'] ?? payload?.['created_ms'];
    if (typeof stamp !== 'number') return;
    this.first_ms = Math.min(this.first_ms ?? stamp, stamp);
    this.last_ms = Math.max(this.last_ms ?? stamp, stamp);
  }

  private project(payload_cbor: Buffer): Payload | null {
    this.projected += 1;
    return factMembers(payload_cbor);
  }

  get value(): LineageFactsValue {
    const parent = this.lineage?.['parent_wal_id'];
    return {
      parent_wal_id: parent instanceof Uint8Array ? hex(parent) : null,
      start: startCounters(this.lineage),
      end: this.counters.value,
      first_seq: this.first_seq,
      first_ms: this.first_ms,
      last_ms: this.last_ms,
    };
  }
}

/** Builds only FACT_MEMBERS of a payload map; the other members are passed over, their texts not checked for
 *  UTF-8 again (the reader validated the payload before handing it over). A map projection builds a map or,
 *  for anything else, null. */
function factMembers(payload_cbor: Buffer): Payload | null {
  const decoder = new CborDecoder(payload_cbor);
  decoder.utf8_checked = true;
  return decoder.readProjected(FACT_MEMBERS) as Payload | null;
}

export function readLineage(read: (on_frame: (frame: ReadFrame, payload_cbor?: Buffer) => void) => ReadResult): LineageRead {
  const facts = new LineageFacts();
  const result = read((frame, payload_cbor) => facts.push(frame, payload_cbor));
  return { read: result, ...facts.value };
}

/** One sealed member's part of a history: its entry, the link to its parent, its own problems. */
interface MemberRead {
  entry: LineageEntry;
  next: { wal_id: string; start: LineageCounters; parent_wal_id: string | null } | null;
  problems: LineageProblem[];
  operator_actions: ReadFrame[];
}

/** A session's sealed members as earlier histories read them, kept while the archive file has the size and
 *  mtime it had then: members are appended and never rewritten (wal-format §11), so the history a live session
 *  asks for at every append does not hash and read every sealed member again (seconds an append for a retired
 *  1 GiB lineage). Any change to the file, or another feature floor, drops them all and reads them anew. */
export class MemberReads {
  private archive_key: string | null = null;
  private readonly reads = new Map<string, MemberRead>();

  /** Starts a history's reads: the kept ones stay only while the archive is as it was (one stat a history). */
  begin(session_dir: string, io: FileIO, floor_features: readonly string[]): void {
    const stat = io.stat(archivePath(session_dir));
    const archive_key = stat === null ? null : `${stat.size_bytes}:${stat.mtime_ms}:${floor_features.join(',')}`;
    if (archive_key === null || archive_key !== this.archive_key) this.reads.clear();
    this.archive_key = archive_key;
  }

  /** The read of `member`, made by `read` unless kept. */
  of(member: ArchiveMember, read: () => MemberRead): MemberRead {
    const member_key = `${member.offset}:${hex(member.wal_id)}:${member.content_bytes}:${hex(member.content_sha256)}`;
    let kept = this.reads.get(member_key);
    if (kept === undefined) {
      kept = read();
      if (this.archive_key !== null) this.reads.set(member_key, kept);
    }
    return kept;
  }
}

export function readHistory(session_dir: string, options: HistoryOptions = {}): SessionHistory {
  return runSteps(historySteps(session_dir, options));
}

/** `readHistory` in steps (steps.ts): a few hundred member headers walked, or one sealed member read (its content
 *  hashed and read as a WAL), so a caller serving other requests between them (the session worker) holds none
 *  of them for a whole history of thousands of lineages. */
export function* historySteps(session_dir: string, options: HistoryOptions = {}): Generator<void, SessionHistory> {
  const io = options.io ?? nodeFileIO;
  const archive = yield* archiveSteps(session_dir, { io, trust_index: true });
  const member_actions = new Map<string, readonly ReadFrame[]>();
  options.member_reads?.begin(session_dir, io, options.floor_features ?? []);
  const memberRead = (member: ArchiveMember): MemberRead => {
    const read = () => memberLineage(session_dir, member, io, options);
    const found = options.member_reads === undefined ? read() : options.member_reads.of(member, read);
    member_actions.set(found.entry.wal_id, found.operator_actions);
    appendAll(problems, found.problems);
    return found;
  };
  const problems: LineageProblem[] = [];
  if (archive.error !== null) problems.push(archiveProblem(archive.error));
  const lineages: LineageEntry[] = [];
  const live = options.live_lineage !== undefined
    ? options.live_lineage
    : readLineage((on_frame) => readWal(walPath(session_dir), { io, with_payload: false, floor_features: options.floor_features, live: options.live, on_frame }));
  const listed = new Set<string>();
  let child: { wal_id: string; start: LineageCounters; parent_wal_id: string | null } | null = null;
  if (live !== null && live.read.wal_id !== null) {
    const wal_id = hex(live.read.wal_id);
    lineages.push(liveEntry(wal_id, live));
    listed.add(wal_id);
    child = { wal_id, start: live.start, parent_wal_id: live.parent_wal_id };
  }
  while (child !== null && child.parent_wal_id !== null && !listed.has(child.parent_wal_id)) {
    const parent_wal_id: string = child.parent_wal_id;
    const member = latestMember(archive, parent_wal_id);
    if (member === null) {
      // Absence is reported only after a covering read; a damaged archive already failed loud above.
      if (archive.error === null) {
        lineages.push(missingEntry(parent_wal_id));
        problems.push({ kind: 'missing_parent', wal_id: child.wal_id, parent_wal_id, message: `lineage ${child.wal_id} names parent ${parent_wal_id}, which is in neither the live WAL nor the archive (the whole archive was read)` });
      }
      break;
    }
    listed.add(parent_wal_id);
    const opened = memberRead(member);
    lineages.push(opened.entry);
    appendAll(problems, regressions(child, opened.entry));
    child = opened.next;
    yield;
  }
  // Members no parent link reaches (after a tombstone, whose parent is not recorded): newest first.
  for (const member of [...archive.members].reverse()) {
    const wal_id = hex(member.wal_id);
    if (listed.has(wal_id)) continue;
    listed.add(wal_id);
    lineages.push(memberRead(member).entry);
    yield;
  }
  return { lineages, problems, archive, live_error: live?.read.error ?? null, member_actions };
}

export type LineageLookup =
  | { found: true; where: 'live' | 'sealed' | 'deleted'; offset: number | null }
  | { found: false; proven: true }
  | { found: false; proven: false; error: ArchiveError };

/** Where lineage `wal_id` is. Absence only after the whole archive was covered; otherwise the archive's error. */
export function findLineage(session_dir: string, wal_id: string, options: HistoryOptions = {}): LineageLookup {
  const io = options.io ?? nodeFileIO;
  const live = readWal(walPath(session_dir), { io, with_payload: false, floor_features: options.floor_features, live: options.live });
  if (live.wal_id !== null && hex(live.wal_id) === wal_id) return { found: true, where: 'live', offset: null };
  const archive = readArchive(session_dir, { io, trust_index: true });
  const member = latestMember(archive, wal_id);
  if (member !== null && archive.error === null) return { found: true, where: member.reason, offset: member.offset };
  if (archive.error !== null) return { found: false, proven: false, error: archive.error };
  return { found: false, proven: true };
}

function liveEntry(wal_id: string, live: LineageRead): LineageEntry {
  return {
    wal_id,
    parent_wal_id: live.parent_wal_id,
    where: 'live',
    first_seq: live.first_seq ?? 0,
    last_seq: live.read.last_seq,
    next_tag: live.end.next_tag,
    next_notice_seq: live.end.next_notice_seq,
    first_ms: live.first_ms,
    last_ms: live.last_ms,
    offset: null,
  };
}

function missingEntry(wal_id: string): LineageEntry {
  return { wal_id, parent_wal_id: null, where: 'missing', first_seq: null, last_seq: null, next_tag: null, next_notice_seq: null, first_ms: null, last_ms: null, offset: null };
}

function memberLineage(session_dir: string, member: ArchiveMember, io: FileIO, options: HistoryOptions): MemberRead {
  const wal_id = hex(member.wal_id);
  const entry: LineageEntry = {
    wal_id,
    parent_wal_id: null,
    where: member.reason,
    first_seq: member.first_seq,
    last_seq: member.last_seq,
    next_tag: member.next_tag,
    next_notice_seq: member.next_notice_seq,
    first_ms: null,
    last_ms: member.sealed_ms,
    offset: member.offset,
  };
  const operator_actions: ReadFrame[] = [];
  const damaged = (message: string): MemberRead => ({ entry, next: null, problems: [{ kind: 'member_damaged', wal_id, offset: member.offset, message }], operator_actions });
  if (member.reason === 'deleted') return { entry, next: null, problems: [], operator_actions };
  let damage: string | null = null;
  const opened = readLineage((on_frame) => {
    const seen = (frame: ReadFrame, payload_cbor: Buffer) => {
      on_frame(frame, payload_cbor);
      if (frame.type === 'operator_action') operator_actions.push(frame);
    };
    const result = openMember(session_dir, member, { io, floor_features: options.floor_features, on_frame: seen });
    if (result.ok) return result.read;
    damage = result.damage.message;
    return refusedRead(ioError(result.damage.message));
  });
  if (damage !== null) return damaged(damage);
  if (opened.read.error !== null) return damaged(`member ${wal_id} at offset ${member.offset} is refused as a WAL: ${opened.read.error.message}`);
  entry.parent_wal_id = opened.parent_wal_id;
  entry.first_ms = opened.first_ms;
  entry.last_ms = Math.max(opened.last_ms ?? member.sealed_ms, member.sealed_ms);
  return { entry, next: { wal_id, start: opened.start, parent_wal_id: opened.parent_wal_id }, problems: [], operator_actions };
}

function regressions(child: { wal_id: string; start: LineageCounters }, parent: LineageEntry): LineageProblem[] {
  const found: LineageProblem[] = [];
  for (const counter of ['next_tag', 'next_notice_seq'] as const) {
    const parent_value = parent[counter];
    if (parent_value === null || child.start[counter] >= parent_value) continue;
    found.push({
      kind: 'counter_regression',
      wal_id: child.wal_id,
      parent_wal_id: parent.wal_id,
      counter,
      value: child.start[counter],
      parent_value,
      message: `lineage ${child.wal_id} starts ${counter} at ${child.start[counter]}, below its parent ${parent.wal_id}'s ${parent_value}: numbers would repeat — reported, never repaired`,
    });
  }
  return found;
}

function archiveProblem(error: ArchiveError): LineageProblem {
  return { kind: 'archive_corruption', error_kind: error.kind, offset: error.offset, message: error.message };
}

// Reading a session's archive (wal-format §11, contract §4.1). Members are framed like a WAL: each header frame
// is judged by §5 rules 1–3, then its content is stepped over. The index is a shortcut, never an authority: it
// is trusted only when digest-valid, well-formed and in agreement with the headers it names, and only up to its
// `covered_bytes`; everything after that is found by reading headers. Like the WAL reader, nothing here writes,
// truncates, creates or locks, and bad data comes back as a typed result, never a throw.
import assert from 'node:assert/strict';
import type { DamageReason } from '../../src-shared/wal.js';
import {
  ARCHIVE_INDEX_FILE_NAME,
  archiveIndexPath,
  archivePath,
  decodeShell,
  INDEX_TYPE,
  MEMBER_TYPE,
  parseIndex,
  parseMemberHeader,
  type ArchiveIndex,
  type MemberHeader,
} from './archive-format.js';
import { CborDecoder, CborError, MAJOR_ARRAY, MAJOR_UINT } from './cbor.js';
import { MagicFinder } from './damage-scan.js';
import { describe } from './errors.js';
import { nodeFileIO, readAt, type FileIO } from './file-io.js';
import { checkFrameAt, checkHeader } from './frame-codec.js';
import { FRAME_BYTES_MAX, FRAME_HEADER_BYTES, FRAME_VER_PLAIN } from './limits.js';
import { hex } from './reader.js';
import { ScanBudget, unprovenText } from './scan-budget.js';
import { runSteps } from './steps.js';

/** A member as its header frame describes it, with where it lies in the archive. */
export interface ArchiveMember extends MemberHeader {
  offset: number;
  header_bytes: number;
  /** Where its content starts and where the member ends (the next header's offset). */
  content_offset: number;
  end: number;
}

export type IndexState = 'valid' | 'stale' | 'missing' | 'invalid';

/** `archive_scan_bound`: a damaged header, and the scan for a member header after it ran out of its budget
 *  (hostile, overlapping headers) before it could tell the torn tail from corruption. */
export type ArchiveErrorKind = 'archive_corruption' | 'archive_malformed' | 'archive_scan_bound' | 'newer_writer' | 'io';

export interface ArchiveError {
  kind: ArchiveErrorKind;
  offset: number | null;
  message: string;
}

export interface ArchiveTornTail {
  offset: number;
  bytes: number;
  reason: DamageReason;
}

export interface ArchiveScan {
  path: string;
  /** false when the session has no archive file: a history of one lineage. */
  present: boolean;
  bytes: number;
  /** Whole members in file order. With `error` set, only those before the damage: never the whole history.
   *  Never changed once read (lookups index it once). */
  readonly members: readonly ArchiveMember[];
  index: IndexState;
  /** Why the index is invalid or stale, for the human outputs. */
  index_note: string | null;
  /** Where the committed members end: the torn tail (if any) starts here. */
  committed_bytes: number;
  torn_tail: ArchiveTornTail | null;
  error: ArchiveError | null;
}

/** true when a lookup may report absence: every header from 0 (or a trusted covered_bytes) to the end was read. */
export function coversArchive(scan: ArchiveScan): boolean {
  return scan.error === null;
}

export interface ArchiveReadOptions {
  io?: FileIO;
  /** Use a trustworthy index for the members it covers (lookups). False reads every header from 0 (verify). */
  trust_index?: boolean;
  /** The scan after a damaged header is bounded by the file alone (`verify --full-scan`), not its budget. */
  full_scan?: boolean;
}

export function readArchive(session_dir: string, options: ArchiveReadOptions = {}): ArchiveScan {
  return runSteps(archiveSteps(session_dir, options));
}

/** `readArchive`, yielding every HEADERS_PER_STEP headers (a history of 20,000 lineages walks 20,000). */
export function* archiveSteps(session_dir: string, options: ArchiveReadOptions = {}): Generator<void, ArchiveScan> {
  const io = options.io ?? nodeFileIO;
  const file = archivePath(session_dir);
  const index = readIndex(io, archiveIndexPath(session_dir));
  let found;
  try {
    found = io.stat(file);
  } catch (error) {
    // A looping link, a folder without permission: the archive cannot be looked at, so nothing is proven.
    return failed(file, 0, { kind: 'io', offset: null, message: `cannot look at ${file}: ${describe(error)}` });
  }
  if (found === null) return absentArchive(file, index);
  let fd: number;
  try {
    fd = io.open(file, 'read');
  } catch (error) {
    return failed(file, 0, { kind: 'io', offset: null, message: `cannot open ${file}: ${describe(error)}` });
  }
  try {
    const bytes = io.fstat(fd).size_bytes;
    const walk = new HeaderWalk(io, fd, bytes, options.full_scan === true);
    const trusted = options.trust_index === true && index.kind === 'ok' ? yield* walk.adoptIndex(index.value) : null;
    const members = trusted ?? [];
    const tail = yield* walk.walkFrom(trusted === null ? 0 : index.kind === 'ok' ? index.value.covered_bytes : 0, members);
    const scan: ArchiveScan = { path: file, present: true, bytes, members, index: 'missing', index_note: null, committed_bytes: tail.committed_bytes, torn_tail: tail.torn_tail, error: tail.error };
    judgeIndex(scan, index, trusted !== null);
    return scan;
  } catch (error) {
    return failed(file, 0, { kind: 'io', offset: null, message: `cannot read ${file}: ${describe(error)}` });
  } finally {
    io.close(fd);
  }
}

/** The latest whole member for `wal_id` (a later one supersedes an earlier one), or null. */
export function latestMember(scan: ArchiveScan, wal_id: string): ArchiveMember | null {
  return membersById(scan).get(wal_id) ?? null;
}

/** Each scan's latest member by wal_id (hex), made at its first lookup: a history walks one parent a lineage,
 *  and a scan of the members for each made `lineages` of 20,000 sealed lineages take 58 s. */
const members_by_id = new WeakMap<ArchiveScan, ReadonlyMap<string, ArchiveMember>>();

function membersById(scan: ArchiveScan): ReadonlyMap<string, ArchiveMember> {
  let found = members_by_id.get(scan);
  if (found === undefined) {
    const by_id = new Map<string, ArchiveMember>();
    for (const member of scan.members) by_id.set(hex(member.wal_id), member);
    members_by_id.set(scan, (found = by_id));
  }
  return found;
}

function absentArchive(file: string, index: IndexRead): ArchiveScan {
  const scan: ArchiveScan = { path: file, present: false, bytes: 0, members: [], index: 'missing', index_note: null, committed_bytes: 0, torn_tail: null, error: null };
  // An index with no archive beside it indexes nothing that exists: only an empty one is true.
  if (index.kind === 'ok') {
    const empty = index.value.covered_bytes === 0;
    scan.index = empty ? 'valid' : 'invalid';
    scan.index_note = empty ? null : `${ARCHIVE_INDEX_FILE_NAME} covers ${index.value.covered_bytes} bytes of an archive that does not exist`;
  } else if (index.kind === 'bad') {
    scan.index = 'invalid';
    scan.index_note = index.why;
  }
  return scan;
}

function failed(file: string, bytes: number, error: ArchiveError): ArchiveScan {
  return { path: file, present: true, bytes, members: [], index: 'missing', index_note: null, committed_bytes: 0, torn_tail: null, error };
}

/** The index's state once the headers are read: the headers, not the index, say what is there. */
function judgeIndex(scan: ArchiveScan, index: IndexRead, adopted: boolean): void {
  if (index.kind === 'missing') return;
  if (index.kind === 'bad') {
    scan.index = 'invalid';
    scan.index_note = index.why;
    return;
  }
  const disagreement = adopted ? null : disagreeing(index.value, scan);
  if (disagreement !== null) {
    scan.index = 'invalid';
    scan.index_note = disagreement;
    return;
  }
  const stale = index.value.covered_bytes < scan.committed_bytes;
  scan.index = stale ? 'stale' : 'valid';
  scan.index_note = stale ? `covers ${index.value.covered_bytes} of ${scan.committed_bytes} committed bytes; the members after it were found by reading their headers` : null;
}

/** Why the index does not describe the members the headers show, or null when it does. */
function disagreeing(index: ArchiveIndex, scan: ArchiveScan): string | null {
  const below = scan.members.filter((member) => member.offset < index.covered_bytes);
  if (index.covered_bytes > scan.committed_bytes && scan.error === null) {
    return `covers ${index.covered_bytes} bytes but the archive's committed members end at ${scan.committed_bytes}`;
  }
  const boundary = below.at(-1)?.end ?? 0;
  if (scan.error === null && boundary !== index.covered_bytes) return `covered_bytes ${index.covered_bytes} is not a member boundary`;
  if (below.length !== index.members.length) return `lists ${index.members.length} members where the headers show ${below.length}`;
  for (const [position, entry] of index.members.entries()) {
    const member = below[position]!;
    if (!sameEntry(entry, member)) return `member ${position} (offset ${entry.offset}) does not match the header there`;
  }
  return null;
}

function sameEntry(entry: ArchiveIndex['members'][number], member: ArchiveMember): boolean {
  return (
    entry.offset === member.offset &&
    hex(entry.wal_id) === hex(member.wal_id) &&
    entry.reason === member.reason &&
    entry.first_seq === member.first_seq &&
    entry.last_seq === member.last_seq &&
    entry.content_bytes === member.content_bytes
  );
}

/** An index frame is small: a member entry is under 100 bytes. */
export const INDEX_BYTES_MAX = FRAME_BYTES_MAX;

type IndexRead = { kind: 'missing' } | { kind: 'bad'; why: string } | { kind: 'ok'; value: ArchiveIndex };

function readIndex(io: FileIO, file: string): IndexRead {
  let found;
  try {
    found = io.stat(file);
  } catch (error) {
    return { kind: 'bad', why: `cannot look at it: ${describe(error)}` };
  }
  if (found === null) return { kind: 'missing' };
  if (!found.is_file) return { kind: 'bad', why: `${file} is not a file` };
  let fd: number;
  try {
    fd = io.open(file, 'read');
  } catch (error) {
    return { kind: 'bad', why: `cannot open it: ${describe(error)}` };
  }
  try {
    const size_bytes = io.fstat(fd).size_bytes;
    const head = readAt(io, fd, 0, Math.min(FRAME_HEADER_BYTES, size_bytes));
    const header = checkHeader(head, size_bytes);
    if (typeof header === 'string') return { kind: 'bad', why: `its first frame is damaged (${header.replaceAll('_', ' ')})` };
    const frame = readAt(io, fd, 0, header.size_bytes);
    const damage = checkFrameAt(frame, 0, size_bytes);
    if (damage !== null) return { kind: 'bad', why: `its first frame is damaged (${damage.replaceAll('_', ' ')})` };
    const shell = decodeShell(frame, INDEX_TYPE);
    if (!shell.ok) return { kind: 'bad', why: `its first frame is not an archive index: ${shell.why}` };
    const parsed = parseIndex(shell.value);
    return parsed.ok ? { kind: 'ok', value: parsed.value } : { kind: 'bad', why: parsed.why };
  } catch (error) {
    return { kind: 'bad', why: `cannot read it: ${describe(error)}` };
  } finally {
    io.close(fd);
  }
}

type HeaderRead = { kind: 'member'; member: ArchiveMember } | { kind: 'damaged'; reason: DamageReason } | { kind: 'refused'; error: ArchiveError };

interface WalkEnd {
  committed_bytes: number;
  torn_tail: ArchiveTornTail | null;
  error: ArchiveError | null;
}

class HeaderWalk {
  constructor(
    private readonly io: FileIO,
    private readonly fd: number,
    private readonly size_bytes: number,
    private readonly full_scan: boolean,
  ) {}

  /** The members a well-formed index names, each confirmed by its header; null (read from 0) on any doubt. */
  *adoptIndex(index: ArchiveIndex): Generator<void, ArchiveMember[] | null> {
    if (index.covered_bytes > this.size_bytes) return null;
    const members: ArchiveMember[] = [];
    for (const entry of index.members) {
      if (entry.offset !== (members.at(-1)?.end ?? 0)) return null;
      const read = this.headerAt(entry.offset);
      if (read.kind !== 'member' || !sameEntry(entry, read.member)) return null;
      members.push(read.member);
      if (members.length % HEADERS_PER_STEP === 0) yield;
    }
    return (members.at(-1)?.end ?? 0) === index.covered_bytes ? members : null;
  }

  /** Reads headers from `start` to the end of the file, appending whole members to `members`. */
  *walkFrom(start: number, members: ArchiveMember[]): Generator<void, WalkEnd> {
    let offset = start;
    for (let walked = 1; offset < this.size_bytes; walked++) {
      if (walked % HEADERS_PER_STEP === 0) yield;
      const read = this.headerAt(offset);
      if (read.kind === 'refused') return { committed_bytes: offset, torn_tail: null, error: read.error };
      if (read.kind === 'damaged') return this.damaged(offset, read.reason);
      // A header whose content runs past the end: a member cut short, the torn tail, only when nothing valid
      // follows (§11); a header claiming 2^53 - 1 bytes must not hide the members after it.
      if (read.member.end > this.size_bytes) return this.damaged(offset, 'past_end');
      assert.ok(read.member.end > offset, 'the walk moves forward');
      members.push(read.member);
      offset = read.member.end;
    }
    return { committed_bytes: offset, torn_tail: null, error: null };
  }

  private headerAt(offset: number): HeaderRead {
    const available_bytes = this.size_bytes - offset;
    const header = checkHeader(readAt(this.io, this.fd, offset, Math.min(FRAME_HEADER_BYTES, available_bytes)), available_bytes);
    if (typeof header === 'string') return { kind: 'damaged', reason: header };
    const frame = readAt(this.io, this.fd, offset, header.size_bytes);
    const damage = checkFrameAt(frame, 0, available_bytes);
    if (damage !== null) return { kind: 'damaged', reason: damage };
    const shell = decodeShell(frame, MEMBER_TYPE);
    if (!shell.ok) return { kind: 'refused', error: headerRefusal(offset, shell.why, shell.newer === true) };
    const parsed = parseMemberHeader(shell.value);
    if (!parsed.ok) return { kind: 'refused', error: headerRefusal(offset, parsed.why, false) };
    const content_offset = offset + header.size_bytes;
    return { kind: 'member', member: { ...parsed.value, offset, header_bytes: header.size_bytes, content_offset, end: content_offset + parsed.value.content_bytes } };
  }

  /** A damaged header: archive corruption when any digest-valid member header follows it, else the torn tail. */
  private damaged(offset: number, reason: DamageReason): WalkEnd {
    const later = this.nextValidHeader(offset + 1);
    if (later === null) return { committed_bytes: offset, torn_tail: { offset, bytes: this.size_bytes - offset, reason }, error: null };
    const damage = `at offset ${offset} (${reason.replaceAll('_', ' ')})`;
    if (typeof later !== 'number') {
      const message = unprovenText(`a damaged archive member header ${damage}`, later.offset, later.why, this.size_bytes, "the archive's torn tail from corruption");
      return { committed_bytes: offset, torn_tail: null, error: { kind: 'archive_scan_bound', offset, message } };
    }
    const message = `archive corruption ${damage}: a digest-valid member header follows at offset ${later}, so committed history is damaged; nothing at or after ${offset} is used and no lookup reports absence`;
    return { committed_bytes: offset, torn_tail: null, error: { kind: 'archive_corruption', offset, message } };
  }

  /** The offset of the first digest-valid member header at or after `start`, null when there is none, or where
   *  the scan's budget ran out and why (then nothing is proven). Only candidates whose body starts as a member
   *  header's are hashed: the content of a member is a WAL, every frame of it a candidate. */
  private nextValidHeader(start: number): number | { offset: number; why: string } | null {
    const budget = new ScanBudget(this.size_bytes - start, this.full_scan);
    const magic = new MagicFinder(this.io, this.fd, this.size_bytes);
    let position = start;
    while (position + FRAME_HEADER_BYTES <= this.size_bytes) {
      const found = magic.next(position);
      if (found === null) return null;
      const available_bytes = this.size_bytes - found;
      const header = checkHeader(readAt(this.io, this.fd, found, Math.min(FRAME_HEADER_BYTES, available_bytes)), available_bytes);
      position = found + 1;
      if (typeof header === 'string') continue;
      if (!startsAsMemberHeader(readAt(this.io, this.fd, found + FRAME_HEADER_BYTES, Math.min(MEMBER_HEAD_BYTES, header.size_bytes - FRAME_HEADER_BYTES)))) continue;
      const spent = budget.take(header.size_bytes);
      if (spent !== null) return { offset: found, why: spent };
      const frame = readAt(this.io, this.fd, found, header.size_bytes);
      if (checkFrameAt(frame, 0, available_bytes) !== null) continue;
      if (decodeShell(frame, MEMBER_TYPE).ok) return found;
    }
    return null;
  }
}

/** Headers walked between two yields of `archiveSteps`. */
const HEADERS_PER_STEP = 256;

/** The bytes of a body that hold its first four items when it is a member header's: the array's head, ver, seq,
 *  a fence of at most 9 bytes and the 15 bytes of "archive_member". */
const MEMBER_HEAD_BYTES = 1 + 1 + 1 + 9 + 1 + MEMBER_TYPE.length;

/** Whether a body starts as a member header's does, [2, 0, fence, "archive_member", …]: what decodeShell
 *  requires of one, read before the digest is checked, so a member's content is passed over unhashed. */
function startsAsMemberHeader(body_head: Buffer): boolean {
  const decoder = new CborDecoder(body_head);
  const head = (major: number): number | null => {
    decoder.nextHead();
    return decoder.head_major === major ? decoder.head_argument : null;
  };
  try {
    if (head(MAJOR_ARRAY) !== 6 || head(MAJOR_UINT) !== FRAME_VER_PLAIN || head(MAJOR_UINT) !== 0 || head(MAJOR_UINT) === null) return false;
    return decoder.readItem() === MEMBER_TYPE;
  } catch (error) {
    if (error instanceof CborError) return false;
    throw error;
  }
}

function headerRefusal(offset: number, why: string, newer: boolean): ArchiveError {
  return {
    kind: newer ? 'newer_writer' : 'archive_malformed',
    offset,
    message: newer
      ? `archive member header at offset ${offset}: ${why}; open it with a newer walscope`
      : `malformed archive member header at offset ${offset}: ${why}; the frame is intact (its digest matches) but not of the format's shape — refused, never repaired`,
  };
}

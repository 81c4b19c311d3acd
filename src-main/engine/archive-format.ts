// The archive's two record shapes (wal-format §11): the member header frame and the index frame. Encoding
// asserts its input; parsing a digest-valid frame names the first field that is not of the format's shape,
// because a malformed header is refused, never guessed at.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { CborValue, Payload } from '../../src-shared/wal.js';
import { decodeBody, encodeFrame } from './frame-codec.js';
import { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, FRAME_VER_PLAIN } from './limits.js';

export const ARCHIVE_FILE_NAME = 'archive';
export const ARCHIVE_INDEX_FILE_NAME = 'archive.index';
export const MEMBER_TYPE = 'archive_member';
export const INDEX_TYPE = 'archive_index';
export const WAL_ID_BYTES = 16;
export const SHA256_BYTES = 32;

export const archivePath = (session_dir: string): string => path.join(session_dir, ARCHIVE_FILE_NAME);
export const archiveIndexPath = (session_dir: string): string => path.join(session_dir, ARCHIVE_INDEX_FILE_NAME);

export type RetireReason = 'sealed' | 'deleted';

/** The payload of a member's header frame. */
export interface MemberHeader {
  wal_id: Uint8Array;
  reason: RetireReason;
  first_seq: number;
  last_seq: number;
  frames: number;
  content_bytes: number;
  content_sha256: Uint8Array;
  sealed_ms: number;
  next_tag: number;
  next_notice_seq: number;
}

/** One entry of `archive.index`: every member whose header starts below `covered_bytes`, in file order. */
export interface IndexEntry {
  wal_id: Uint8Array;
  offset: number;
  reason: RetireReason;
  first_seq: number;
  last_seq: number;
  content_bytes: number;
}

export interface ArchiveIndex {
  covered_bytes: number;
  members: IndexEntry[];
}

/** `fence` is the retiring writer's lease epoch: a forensic stamp, as on every frame. */
export function encodeMemberHeader(header: MemberHeader, fence: number): Buffer {
  assert.equal(header.wal_id.length, WAL_ID_BYTES, 'wal_id is 16 bytes');
  assert.equal(header.content_sha256.length, SHA256_BYTES, 'content_sha256 is 32 bytes');
  assert.ok(header.reason === 'sealed' || header.content_bytes === 0, 'a tombstone has no content');
  const payload: Payload = { ...header };
  return encodeFrame({ ver: FRAME_VER_PLAIN, seq: 0, fence, type: MEMBER_TYPE, features: [], payload });
}

export function encodeIndex(index: ArchiveIndex, fence: number): Buffer {
  const members: CborValue[] = index.members.map((entry) => ({ ...entry }));
  return encodeFrame({ ver: FRAME_VER_PLAIN, seq: 0, fence, type: INDEX_TYPE, features: [], payload: { covered_bytes: index.covered_bytes, members } });
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; why: string; newer?: boolean };

/** Decodes a digest-valid frame (`frame` holds exactly it) as a body of `type` (seq 0, ver 2). */
export function decodeShell(frame: Buffer, type: string): Parsed<Payload> {
  const decoded = decodeBody(frame.subarray(FRAME_HEADER_BYTES, frame.length - FRAME_DIGEST_BYTES), true);
  if (decoded.kind !== 'ok') return { ok: false, why: decoded.message, newer: decoded.kind === 'newer_version' };
  const body = decoded.body;
  if (body.type !== type) return { ok: false, why: `type "${body.type}" where "${type}" belongs` };
  if (body.seq !== 0 || body.ver !== FRAME_VER_PLAIN) return { ok: false, why: `seq ${body.seq}, ver ${body.ver} where seq 0, ver 2 belong` };
  return { ok: true, value: body.payload! };
}

export function parseMemberHeader(payload: Payload): Parsed<MemberHeader> {
  const wal_id = payload['wal_id'];
  const reason = payload['reason'];
  const content_sha256 = payload['content_sha256'];
  if (!(wal_id instanceof Uint8Array) || wal_id.length !== WAL_ID_BYTES) return bad('wal_id is not a 16-byte byte string');
  if (reason !== 'sealed' && reason !== 'deleted') return bad('reason is not "sealed" or "deleted"');
  if (!(content_sha256 instanceof Uint8Array) || content_sha256.length !== SHA256_BYTES) return bad('content_sha256 is not a 32-byte byte string');
  const numbers = uints(payload, ['first_seq', 'last_seq', 'frames', 'content_bytes', 'sealed_ms', 'next_tag', 'next_notice_seq']);
  if (!numbers.ok) return numbers;
  const value = { wal_id, reason, content_sha256, ...numbers.value } as MemberHeader;
  if (reason === 'deleted' && value.content_bytes !== 0) return bad('a "deleted" member (a tombstone) has content_bytes other than 0');
  if (value.first_seq > value.last_seq && value.last_seq !== 0) return bad(`first_seq ${value.first_seq} is above last_seq ${value.last_seq}`);
  return { ok: true, value };
}

export function parseIndex(payload: Payload): Parsed<ArchiveIndex> {
  const covered_bytes = payload['covered_bytes'];
  const members = payload['members'];
  if (!isUint(covered_bytes)) return bad('covered_bytes is not an unsigned integer');
  if (!Array.isArray(members)) return bad('members is not an array');
  const entries: IndexEntry[] = [];
  for (const [position, member] of members.entries()) {
    const entry = parseEntry(member);
    if (!entry.ok) return bad(`member ${position}: ${entry.why}`);
    const previous = entries.at(-1);
    if (previous !== undefined && entry.value.offset <= previous.offset) return bad(`member ${position}: offsets are not in file order`);
    if (entry.value.offset >= covered_bytes) return bad(`member ${position}: offset ${entry.value.offset} is not below covered_bytes ${covered_bytes}`);
    entries.push(entry.value);
  }
  if (entries.length === 0 && covered_bytes !== 0) return bad(`covers ${covered_bytes} bytes with no member`);
  if (entries.length > 0 && entries[0]!.offset !== 0) return bad('the first member does not start at offset 0');
  return { ok: true, value: { covered_bytes, members: entries } };
}

function parseEntry(value: CborValue): Parsed<IndexEntry> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return bad('not a map');
  const wal_id = value['wal_id'];
  const reason = value['reason'];
  if (!(wal_id instanceof Uint8Array) || wal_id.length !== WAL_ID_BYTES) return bad('wal_id is not a 16-byte byte string');
  if (reason !== 'sealed' && reason !== 'deleted') return bad('reason is not "sealed" or "deleted"');
  const numbers = uints(value, ['offset', 'first_seq', 'last_seq', 'content_bytes']);
  if (!numbers.ok) return numbers;
  return { ok: true, value: { wal_id, reason, ...numbers.value } as IndexEntry };
}

function uints(payload: Payload, names: readonly string[]): Parsed<Record<string, number>> {
  const values: Record<string, number> = {};
  for (const name of names) {
    const value = payload[name];
    if (!isUint(value)) return bad(`${name} is not an unsigned integer`);
    values[name] = value;
  }
  return { ok: true, value: values };
}

function isUint(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function bad<T>(why: string): Parsed<T> {
  return { ok: false, why };
}

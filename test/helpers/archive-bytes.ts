// An independent, minimal encoder of wal-format §2, §3, §4 and §11, written from the spec alone: its own CBOR,
// its own frames, its own members and index. It shares no code with the engine, so the archive reader is
// tested against bytes another implementation would write, not only against its own writer.
import { createHash } from 'node:crypto';

type Item = number | string | Uint8Array | Item[] | { [key: string]: Item };

function head(major: number, value: number): Buffer {
  if (value < 24) return Buffer.of((major << 5) | value);
  if (value < 0x100) return Buffer.of((major << 5) | 24, value);
  if (value < 0x10000) return Buffer.of((major << 5) | 25, value >> 8, value & 0xff);
  if (value < 0x100000000) {
    const bytes = Buffer.alloc(5);
    bytes[0] = (major << 5) | 26;
    bytes.writeUInt32BE(value, 1);
    return bytes;
  }
  const bytes = Buffer.alloc(9);
  bytes[0] = (major << 5) | 27;
  bytes.writeBigUInt64BE(BigInt(value), 1);
  return bytes;
}

export function cbor(item: Item): Buffer {
  if (typeof item === 'number') return head(0, item);
  if (typeof item === 'string') {
    const text = Buffer.from(item, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (item instanceof Uint8Array) return Buffer.concat([head(2, item.length), item]);
  if (Array.isArray(item)) return Buffer.concat([head(4, item.length), ...item.map(cbor)]);
  const entries = Object.entries(item);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, value]) => [cbor(key), cbor(value)])]);
}

/** One §2 frame: magic, layout 1, SHA-256, reserved 0, length, body, digest of header and body. */
export function frame(body: Item[]): Buffer {
  const encoded = cbor(body);
  const header = Buffer.alloc(12);
  header.write('BWAL', 0, 'latin1');
  header[4] = 1;
  header[5] = 1;
  header.writeUInt32LE(encoded.length, 8);
  const covered = Buffer.concat([header, encoded]);
  return Buffer.concat([covered, createHash('sha256').update(covered).digest()]);
}

export const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

export function walId(fill: number): Buffer {
  return Buffer.alloc(16, fill);
}

export interface HandLineage {
  wal_id: Buffer;
  parent?: Buffer;
  next_tag?: number;
  next_notice_seq?: number;
  /** Records turn_finished 1..records; a tag on each when `tag_from` is set. */
  records: number;
  tag_from?: number;
}

/** A lineage's WAL: its lineage frame, then `records` records. */
export function handWal(lineage: HandLineage): Buffer {
  const payload: { [key: string]: Item } = { wal_id: lineage.wal_id, created_ms: 1_750_000_000_000, writer: 'hand' };
  if (lineage.parent !== undefined) payload['parent_wal_id'] = lineage.parent;
  if (lineage.next_tag !== undefined) payload['next_tag'] = lineage.next_tag;
  if (lineage.next_notice_seq !== undefined) payload['next_notice_seq'] = lineage.next_notice_seq;
  const frames = [frame([2, 0, 1, 'lineage', [], payload])];
  for (let seq = 1; seq <= lineage.records; seq++) frames.push(frame([2, seq, 1, 'turn_finished', [], { step_id: seq }]));
  return Buffer.concat(frames);
}

export interface HandMember {
  wal_id: Buffer;
  reason: 'sealed' | 'deleted';
  content: Buffer;
  first_seq: number;
  last_seq: number;
  frames: number;
  next_tag: number;
  next_notice_seq: number;
}

/** A member's header and content; `content_bytes` is what the header claims (a lie, when given). */
export function memberBytes(member: HandMember, content_bytes = member.content.length): Buffer {
  const header = frame([2, 0, 1, 'archive_member', [], {
    wal_id: member.wal_id,
    reason: member.reason,
    first_seq: member.first_seq,
    last_seq: member.last_seq,
    frames: member.frames,
    content_bytes,
    content_sha256: sha256(member.content),
    sealed_ms: 1_750_000_100_000,
    next_tag: member.next_tag,
    next_notice_seq: member.next_notice_seq,
  }]);
  return Buffer.concat([header, member.content]);
}

export function sealedMember(lineage: HandLineage, next_tag = 1, next_notice_seq = 1): HandMember {
  return { wal_id: lineage.wal_id, reason: 'sealed', content: handWal(lineage), first_seq: 1, last_seq: lineage.records, frames: lineage.records + 1, next_tag, next_notice_seq };
}

export function tombstone(wal_id: Buffer, last_seq: number, next_tag = 1, next_notice_seq = 1): HandMember {
  return { wal_id, reason: 'deleted', content: Buffer.alloc(0), first_seq: 1, last_seq, frames: last_seq + 1, next_tag, next_notice_seq };
}

/** The archive's bytes and where each member starts. */
export function archiveBytes(members: HandMember[]): { bytes: Buffer; offsets: number[]; header_ends: number[] } {
  const offsets: number[] = [];
  const header_ends: number[] = [];
  let at = 0;
  const parts = members.map((member) => {
    const bytes = memberBytes(member);
    offsets.push(at);
    header_ends.push(at + bytes.length - member.content.length);
    at += bytes.length;
    return bytes;
  });
  return { bytes: Buffer.concat(parts), offsets, header_ends };
}

/** An index covering the first `count` members. */
export function indexBytes(members: HandMember[], offsets: number[], count = members.length): Buffer {
  const covered_bytes = count === 0 ? 0 : offsets[count - 1]! + memberBytes(members[count - 1]!).length;
  const entries = members.slice(0, count).map((member, position) => ({
    wal_id: member.wal_id,
    offset: offsets[position]!,
    reason: member.reason,
    first_seq: member.first_seq,
    last_seq: member.last_seq,
    content_bytes: member.content.length,
  }));
  return frame([2, 0, 1, 'archive_index', [], { covered_bytes, members: entries }]);
}

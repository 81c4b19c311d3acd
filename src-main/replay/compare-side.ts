// One side of a comparison as the comparison reports it (compare.ts): what was read, and how far it can be
// trusted — whole, whole but for a torn tail, or up to the refusal the engine's read names (its kind, offset and
// message), the fold holding only the intact prefix before it.
import type { CompareSideJson } from '../../src-shared/compare.js';
import { refusedStatus, STATUS_LABEL } from '../../src-shared/status.js';
import type { SessionReplay } from './report.js';

export function compareSide(name: string, session: string | null, member: string | null, { read, fold }: Pick<SessionReplay, 'read' | 'fold'>): CompareSideJson {
  const trust = read.error !== null ? 'refused' : read.torn_tail !== null ? 'torn_tail' : 'whole';
  return { name, session, wal_id: fold.wal_id, member, trust, valid_bytes: read.valid_bytes, last_seq: fold.last_seq, error: read.error, trust_words: trustWords(read, fold.last_seq) };
}

function trustWords(read: SessionReplay['read'], last_seq: number): string | null {
  if (read.error !== null) {
    const where = read.error.offset === null ? '' : ` at offset ${read.error.offset.toLocaleString('en-US')}`;
    return `it is refused (${STATUS_LABEL[refusedStatus(read.error.kind)]})${where}: ${read.error.message}; only its first ${read.valid_bytes.toLocaleString('en-US')} bytes (up to seq ${last_seq}) are trusted and compared`;
  }
  if (read.torn_tail !== null) return `its last ${read.torn_tail.bytes.toLocaleString('en-US')} bytes, at offset ${read.torn_tail.offset.toLocaleString('en-US')}, are a torn tail never committed (not compared); it is compared up to seq ${last_seq}`;
  return null;
}

/** A side read only up to the first divergence (`diff --first`): its first `read_bytes` of `size_bytes`. */
export function stoppedSide(side: CompareSideJson, size_bytes: number): CompareSideJson {
  const trust_words = `only its first ${side.valid_bytes.toLocaleString('en-US')} of ${size_bytes.toLocaleString('en-US')} bytes (up to seq ${side.last_seq}) were read: reading stopped at the first divergence, which nothing after it can change`;
  return { ...side, trust: 'stopped', trust_words };
}

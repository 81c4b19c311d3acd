// Types of the WAL as every layer sees it: the engine produces them, the CLI prints them, the renderer shows
// them. Plain data only (JSON-safe once byte strings are hex), so they cross IPC and HTTP unchanged.

export type DigestAlgorithmName = 'sha256' | 'blake3';

/** A WAL file is at most this many bytes, lineage frames included (wal-format §9): here so a copy of one (a fleet
 *  fetch) refuses a larger claim where the engine is not at hand. */
export const WAL_BYTES_CEILING = 1_073_741_824;

/** A CBOR value as the format allows it (wal-format §3). Byte strings decode to Uint8Array. */
export type CborValue = number | string | boolean | null | Uint8Array | CborValue[] | { [key: string]: CborValue };

export type Payload = { [key: string]: CborValue };

/** The six items of a frame body (wal-format §3). */
export interface FrameBody {
  ver: number;
  seq: number;
  fence: number;
  type: string;
  features: string[];
  payload: Payload;
}

/** One intact frame as read from disk. `payload` is absent when the reader was asked to skip payloads. */
export interface ReadFrame {
  offset: number;
  size_bytes: number;
  digest_algorithm: DigestAlgorithmName;
  ver: number;
  seq: number;
  fence: number;
  type: string;
  features: string[];
  payload: Payload | null;
}

/** Why a frame could not be trusted (wal-format §5 step 1). */
export type DamageReason =
  | 'short_header'
  | 'bad_magic'
  | 'unknown_layout'
  | 'unknown_digest_algorithm'
  | 'reserved_nonzero'
  | 'bad_body_length'
  | 'past_end'
  | 'digest_mismatch';

/** The ways a WAL is refused. A torn tail is not among them: it is discarded and reported. */
export type WalErrorKind =
  /** wal-format §5 rule 0: a non-empty file whose first bytes are neither the magic (or a prefix of it) nor zeros. */
  | 'not_a_wal'
  | 'non_tail_corruption'
  | 'malformed_frame'
  | 'newer_writer'
  | 'sequence_error'
  /** A damaged frame, and the scan for intact frames after it ran out of its budget (hostile, overlapping
   *  headers) before it could tell a torn tail from non-tail corruption: nothing after the damage is used. */
  | 'tail_scan_bound'
  | 'io'
  /** The WAL may be intact, but a record holds more than this build keeps in memory to fold it (named by offset). */
  | 'too_large'
  /** Opening a sealed lineage (SESSION_DIR@WAL_ID): the archive is corrupt, the member's content does not match
   *  its digest, or no member for that lineage exists (wal-format §11). */
  | 'archive_corruption'
  | 'archive_member_damaged'
  | 'not_archived';

export interface WalErrorInfo {
  kind: WalErrorKind;
  offset: number | null;
  seq: number | null;
  features: string[];
  message: string;
}

export interface TornTail {
  offset: number;
  bytes: number;
  reason: DamageReason;
  /** Offsets of digest-valid lineage frames found after the damage: reported, never used as records. */
  trailing_lineage: number[];
}

/** A partial frame at the end of a WAL that a live writer holds: not damage, read on when the file grows. */
export interface InProgressTail {
  offset: number;
  bytes: number;
}

/** What `walscope verify --json` prints for one WAL. */
export interface VerifyReport {
  path: string;
  session: string | null;
  wal_id: string | null;
  frames: number;
  records: number;
  last_seq: number;
  bytes: number;
  valid_bytes: number;
  digest_algorithms: DigestAlgorithmName[];
  features: string[];
  torn_tail: TornTail | null;
  in_progress_tail: InProgressTail | null;
  error: WalErrorInfo | null;
  /** The session's archive (wal-format §11); null when it has none, or for a bare WAL file. */
  archive: ArchiveReport | null;
}

/** What `walscope verify --json` says of a session's archive. `error` set: the session is refused. */
export interface ArchiveReport {
  index: 'valid' | 'stale' | 'missing' | 'invalid';
  /** Whole members read (with `error` set: only those before the damage). */
  members: number;
  torn_tail: { offset: number; bytes: number } | null;
  /** `archive_scan_bound`: the scan after a damaged header ran out of its budget before it could tell. */
  error: { kind: 'archive_corruption' | 'archive_malformed' | 'archive_scan_bound' | 'newer_writer' | 'io'; offset: number | null; message: string } | null;
  /** wal_ids (hex) of members refused alone: content not matching content_sha256, or not a readable WAL. */
  damaged_members: string[];
}

/** The lease file's tenure record (wal-format §8). */
export interface LeaseTenure {
  epoch: number;
  pid: number;
  host: string;
  acquired_ms: number;
  writer: string;
}

/** What retiring a lineage writes (wal-format §11), as previewed and as re-checked under the lease. */
export interface MemberPlan {
  wal_id: string;
  reason: 'sealed' | 'deleted';
  first_seq: number;
  last_seq: number;
  frames: number;
  content_bytes: number;
  content_sha256: string;
  next_tag: number;
  next_notice_seq: number;
  /** Where it goes: the archive's committed end (after its torn tail is cut). */
  offset: number;
}

export interface RetirePlan {
  session_dir: string;
  reason: 'sealed' | 'deleted';
  /** The live lineage as read: its identity, records and the valid prefix a member keeps. */
  live: { wal_id: string; parent_wal_id: string | null; records: number; last_seq: number; valid_bytes: number; torn_tail: TornTail | null };
  /** The archive's torn tail, cut before appending; its bytes kept in `copy_name` beside it. */
  archive_torn_tail: { offset: number; bytes: number; copy_name: string } | null;
  /** null when a whole, matching member for the live wal_id is already archived (step 1 is skipped). */
  member: MemberPlan | null;
  successor: { parent_wal_id: string; next_tag: number; next_notice_seq: number };
  /** The index is rewritten to cover the whole archive: this many members. */
  index: { before: ArchiveReport['index']; members: number };
}

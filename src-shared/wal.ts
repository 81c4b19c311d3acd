// Types of the WAL as every layer sees it: the engine produces them, the CLI prints them, the renderer shows
// them. Plain data only (JSON-safe once byte strings are hex), so they cross IPC and HTTP unchanged.

export type DigestAlgorithmName = 'sha256' | 'blake3';

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

/** The ways a WAL is refused. A torn tail is not among them: it is discarded and reported. `too_large`: the
 *  WAL may be intact, but a record holds more than this build keeps in memory to fold it (named by offset). */
export type WalErrorKind = 'non_tail_corruption' | 'malformed_frame' | 'newer_writer' | 'sequence_error' | 'io' | 'too_large';

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
}

/** The lease file's tenure record (wal-format §8). */
export interface LeaseTenure {
  epoch: number;
  pid: number;
  host: string;
  acquired_ms: number;
  writer: string;
}

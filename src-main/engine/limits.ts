// Every bound of the format and the engine in one place (wal-format §2, §9; TIGER_STYLE: a limit on everything).

export const MIB = 1_048_576;

export const FRAME_MAGIC = Uint8Array.of(0x42, 0x57, 0x41, 0x4c); // "BWAL"
export const FRAME_LAYOUT = 1;
export const FRAME_HEADER_BYTES = 12;
export const FRAME_DIGEST_BYTES = 32;
export const FRAME_OVERHEAD_BYTES = FRAME_HEADER_BYTES + FRAME_DIGEST_BYTES;
export const FRAME_BODY_BYTES_MIN = 1;
export const FRAME_BODY_BYTES_MAX = 16 * MIB;
export const FRAME_BYTES_MAX = FRAME_BODY_BYTES_MAX + FRAME_OVERHEAD_BYTES;

export const FRAME_VER_PLAIN = 2;
export const FRAME_VER_GATED = 3;

export { WAL_BYTES_CEILING } from '../../src-shared/wal.js';
export const WAL_BYTES_RESERVE = 65_536;

/** CBOR nesting deeper than this is refused: it bounds the decoder's recursion on hostile input. */
export const CBOR_DEPTH_MAX = 64;
/** Integers must stay within ±2^53 (wal-format §3). */
export const CBOR_INTEGER_MAX = 2 ** 53;

/** Forward scan after a damaged frame (wal-format §5 step 2, and §11's for an archive header): it hashes each
 *  candidate header's claimed frame, and overlapping (hostile) headers can claim far more than the file holds.
 *  It may hash the most of TAIL_SCAN_HASHED_BYTES_MIN and twice the bytes after the damage (candidates that do
 *  not overlap hash at most those bytes, so every ordinary tail is proven whatever its size), and take at most
 *  TAIL_SCAN_CANDIDATES_MAX candidates. Past either, nothing is proven either way: see scan-budget.ts. */
export const TAIL_SCAN_CANDIDATES_MAX = 65_536;
export const TAIL_SCAN_HASHED_BYTES_PER_SCANNED_BYTE_MAX = 2;
export const TAIL_SCAN_HASHED_BYTES_MIN = 64 * MIB;

/** The reader's read size when streaming; frames larger than this get a buffer of their own size. */
export const READ_CHUNK_BYTES = 4 * MIB;

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
export const FEATURE_NAME_PATTERN = /^[a-z0-9-]+\/v[0-9]+$/;

/** Waiting for the feature floor's cross-process lock: how often to try, and for how long at most. */
export const FLOOR_LOCK_RETRY_INTERVAL_MS = 5;
export const FLOOR_LOCK_WAIT_MS_MAX = 10_000;

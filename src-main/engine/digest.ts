// Frame digests (wal-format §2): SHA-256 through node:crypto (hardware SHA where the CPU has it) and BLAKE3
// (256-bit output) through @noble/hashes. Both cover header and body together.
import { hash } from 'node:crypto';
import { blake3 } from '@noble/hashes/blake3.js';
import type { DigestAlgorithmName } from '../../src-shared/wal.js';
import { FRAME_DIGEST_BYTES } from './limits.js';

export const DIGEST_ALGORITHM_CODES: Record<DigestAlgorithmName, number> = { sha256: 1, blake3: 2 };

export function digestAlgorithmName(code: number): DigestAlgorithmName | null {
  if (code === 1) return 'sha256';
  if (code === 2) return 'blake3';
  return null;
}

/** Bytes hashed by this thread so far, and bytes whose verdict a digest worker gave it (digest-runs.ts): lets
 *  tests bound the work a read does, and see where it was done, without timing it. */
export const digestWork = { hashed_bytes: 0, worker_hashed_bytes: 0 };

/** Digest of `covered` (header and body, contiguous) as 32 bytes. One-shot `hash`: a Hash object per frame
 *  cost more than hashing a small frame. */
export function frameDigest(algorithm: DigestAlgorithmName, covered: Uint8Array): Uint8Array {
  digestWork.hashed_bytes += covered.length;
  if (algorithm === 'sha256') return hash('sha256', covered, 'buffer');
  return blake3(covered);
}

/** Whether the 32 bytes at `digest_at` in `stored` are the digest of `covered`, compared in place. SHA-256 is
 *  asked for as a 'binary' (latin1) string, one character per byte: Node's one-shot `hash` normalises the 'buffer'
 *  encoding on a slow path and allocates a Buffer, which was half the cost of checking a 200-byte frame. */
export function frameDigestMatches(algorithm: DigestAlgorithmName, covered: Uint8Array, stored: Uint8Array, digest_at: number): boolean {
  digestWork.hashed_bytes += covered.length;
  if (algorithm === 'sha256') {
    const expected = hash('sha256', covered, 'binary');
    for (let index = 0; index < FRAME_DIGEST_BYTES; index++) {
      if (expected.charCodeAt(index) !== stored[digest_at + index]) return false;
    }
    return true;
  }
  const expected = blake3(covered);
  for (let index = 0; index < FRAME_DIGEST_BYTES; index++) {
    if (expected[index] !== stored[digest_at + index]) return false;
  }
  return true;
}

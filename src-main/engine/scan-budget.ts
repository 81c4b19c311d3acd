// The budget of a forward scan after a damaged frame (limits.ts: TAIL_SCAN_*). Every scan that looks for intact
// frames past damage — the reader's (§5 step 2), the archive's (§11), the count of what follows a non-tail
// damage — takes its candidates here, so one bound holds for all of them. A scan that runs out has proven
// nothing: the reader refuses with its own kind (`tail_scan_bound`), never as damage it did not see.
import { formatBytes } from '../../src-shared/format.js';
import { TAIL_SCAN_CANDIDATES_MAX, TAIL_SCAN_HASHED_BYTES_MIN, TAIL_SCAN_HASHED_BYTES_PER_SCANNED_BYTE_MAX } from './limits.js';

export class ScanBudget {
  private candidates = 0;
  private hashed_bytes = 0;
  private readonly hashed_bytes_max: number;

  /** `scanned_bytes`: the bytes after the damage. `full`: no bound but the file (`verify --full-scan`). */
  constructor(scanned_bytes: number, full = false) {
    this.hashed_bytes_max = full ? Number.POSITIVE_INFINITY : Math.max(TAIL_SCAN_HASHED_BYTES_MIN, TAIL_SCAN_HASHED_BYTES_PER_SCANNED_BYTE_MAX * scanned_bytes);
  }

  /** Takes a candidate whose frame of `size_bytes` is about to be hashed: null within the budget, else what the
   *  scan had done when it ran out, for the refusal. */
  take(size_bytes: number): string | null {
    if (this.hashed_bytes_max === Number.POSITIVE_INFINITY) return null;
    this.candidates += 1;
    this.hashed_bytes += size_bytes;
    if (this.candidates > TAIL_SCAN_CANDIDATES_MAX) return `it had checked ${TAIL_SCAN_CANDIDATES_MAX.toLocaleString('en-US')} candidate frame headers, its most`;
    if (this.hashed_bytes > this.hashed_bytes_max) {
      return `the candidate frame headers claim ${this.hashed_bytes.toLocaleString('en-US')} bytes so far, more than the ${formatBytes(this.hashed_bytes_max)} it hashes at most (they overlap)`;
    }
    return null;
  }
}

/** The refusal of a scan that ran out: what was damaged (`damage`: "a damaged frame at offset …"), where the
 *  scan stopped and why, how many bytes it did not check, that nothing is used or cut, and how to check it. */
export function unprovenText(damage: string, stopped_at: number, why: string, size_bytes: number, tail: string): string {
  const unchecked = (size_bytes - stopped_at).toLocaleString('en-US');
  return `${damage}, and the scan for intact frames after it stopped at offset ${stopped_at}: ${why}. The ${unchecked} bytes from there to the end were not checked, so walscope cannot tell ${tail}; nothing from the damage on is used, and no writer truncates it. Check it fully with \`walscope verify --full-scan\` (it hashes every candidate, however long that takes)`;
}

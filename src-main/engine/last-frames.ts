// The last frames of a WAL, found from its end without reading its head: what the app shows of a big session
// at once, while the reader (which alone can verify a WAL, from offset 0) is still on its way. It reads one
// bounded window at the end through FileIO, finds the frame magic there (as damage-scan.ts resyncs on it), and
// keeps only a chain: digest-valid frames, each ending where the next begins, the last ending at the end of
// the file or at a torn tail (a partial last frame). WAL content is untrusted and a payload may embed bytes
// that are a whole valid frame; such a frame ends before its carrier's digest, so it ends neither at the end
// of the file nor where a real frame starts, and no chain takes it. (Bytes crafted inside a torn last frame
// can still pass for a chain: why what this finds is provisional.) The sequence before the window is
// unverified too, so nothing found here is ever planned from or acted on.
import type { DamageReason, DigestAlgorithmName, ReadFrame } from '../../src-shared/wal.js';
import { checkFrameAt, checkHeader, decodeBody } from './frame-codec.js';
import { nodeFileIO, readAt, type FileIO } from './file-io.js';
import { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, FRAME_MAGIC, MIB, TAIL_SCAN_CANDIDATES_MAX, TAIL_SCAN_HASHED_BYTES_PER_SCANNED_BYTE_MAX } from './limits.js';

/** Bytes read from the end at most: the last episode of a busy session fits (its outputs are long-tailed but
 *  rarely past a few MiB), and hashing this much takes tens of milliseconds. */
export const TAIL_WINDOW_BYTES_MAX = 16 * MIB;
/** Frames kept at most: several pages of rows, and the bound on what the fold of the tail holds. */
export const TAIL_FRAMES_MAX = 2_000;

/** A frame of the tail: its header and body's head (as the record list shows it), and its payload's CBOR,
 *  a view into the window (validated, for the fold of the last episode). */
export interface LastFrame extends Omit<ReadFrame, 'payload'> {
  payload_cbor: Buffer;
}

/** Why the chain starts where it does. */
export type LastFramesStop =
  /** it starts at offset 0: the whole WAL is in the window */
  | 'start_of_file'
  /** TAIL_FRAMES_MAX (or the caller's `frames_max`) frames were found */
  | 'frames_max'
  /** the frame before it starts before the window, or no frame ends at the end within the window */
  | 'window'
  /** what ends where it starts is not an intact frame of the sequence */
  | 'unchained'
  /** the hashing budget ran out (overlapping candidates: hostile input) */
  | 'budget'
  /** what the caller asked for was found (`reach`): the frames before it were not looked at */
  | 'reached';

export interface LastFrames {
  size_bytes: number;
  /** The first byte read. */
  window_offset: number;
  /** The chain, in file order. */
  frames: LastFrame[];
  /** A partial last frame after the chain (what the reader would call a torn tail, if nothing else is wrong). */
  torn_tail: { offset: number; bytes: number; reason: DamageReason } | null;
  stop: LastFramesStop;
}

export interface LastFramesOptions {
  io?: FileIO;
  window_bytes?: number;
  frames_max?: number;
  /** The walk back stops once the chain holds `frames_min` frames and one of type `type`: a caller that shows
   *  the last frames and the last episode (from its run_started) hashes no frame before those. */
  reach?: LastFramesReach;
}

export interface LastFramesReach {
  frames_min: number;
  type: string;
}

/** Scans the end of the WAL at `path`. Throws only on an I/O error (the caller says whose). */
export function findLastFrames(path: string, options: LastFramesOptions = {}): LastFrames {
  const io = options.io ?? nodeFileIO;
  const fd = io.open(path, 'read');
  try {
    const size_bytes = io.fstat(fd).size_bytes;
    const window_offset = Math.max(0, size_bytes - Math.min(options.window_bytes ?? TAIL_WINDOW_BYTES_MAX, TAIL_WINDOW_BYTES_MAX));
    const buffer = readAt(io, fd, window_offset, size_bytes - window_offset);
    return new FrameChain(buffer, window_offset, size_bytes).scan(Math.min(options.frames_max ?? TAIL_FRAMES_MAX, TAIL_FRAMES_MAX), options.reach ?? null);
  } finally {
    io.close(fd);
  }
}

interface Candidate {
  start: number;
  end: number;
  algorithm: DigestAlgorithmName;
}

class FrameChain {
  /** Header-valid candidates by the offset they end at, latest start first (found from the end backwards). */
  private readonly by_end = new Map<number, Candidate[]>();
  /** Where a partial last frame may start, highest first, with why it is not whole. */
  private readonly torn: { offset: number; reason: DamageReason }[] = [];
  private readonly intact = new Map<number, LastFrame | null>();
  private hashed_bytes = 0;
  private readonly hashed_bytes_max: number;

  constructor(
    private readonly buffer: Buffer,
    private readonly window_offset: number,
    private readonly size_bytes: number,
  ) {
    this.hashed_bytes_max = TAIL_SCAN_HASHED_BYTES_PER_SCANNED_BYTE_MAX * buffer.length;
    this.findCandidates();
  }

  scan(frames_max: number, reach: LastFramesReach | null): LastFrames {
    const result = (torn_tail: LastFrames['torn_tail'], [frames, stop]: [LastFrame[], LastFramesStop]): LastFrames => ({ size_bytes: this.size_bytes, window_offset: this.window_offset, frames, torn_tail, stop });
    if (this.size_bytes === 0) return result(null, [[], 'start_of_file']);
    const last = this.frameEndingAt(this.size_bytes);
    if (last !== null) return result(null, this.chainFrom(last, frames_max, reach));
    for (const torn of this.torn) {
      // Past the budget "no frame ends here" is not known any more: nothing is claimed.
      if (this.over_budget) break;
      const torn_tail = { offset: torn.offset, bytes: this.size_bytes - torn.offset, reason: torn.reason };
      if (torn.offset === 0) return result(torn_tail, [[], 'start_of_file']);
      const before = this.frameEndingAt(torn.offset);
      if (before !== null) return result(torn_tail, this.chainFrom(before, frames_max, reach));
    }
    return result(null, [[], this.over_budget ? 'budget' : 'window']);
  }

  private get over_budget(): boolean {
    return this.hashed_bytes > this.hashed_bytes_max;
  }

  /** Every frame magic in the window, from its end, as many as TAIL_SCAN_CANDIDATES_MAX. */
  private findCandidates(): void {
    this.tornPrefix();
    let found = 0;
    for (let at = this.buffer.lastIndexOf(FRAME_MAGIC); at >= 0 && found < TAIL_SCAN_CANDIDATES_MAX; at = at === 0 ? -1 : this.buffer.lastIndexOf(FRAME_MAGIC, at - 1)) {
      found++;
      const start = this.window_offset + at;
      const header = checkHeader(this.buffer, this.size_bytes - start, at);
      if (header === 'past_end' || header === 'short_header') this.torn.push({ offset: start, reason: header });
      if (typeof header === 'string') continue;
      const candidate = { start, end: start + header.size_bytes, algorithm: header.algorithm };
      const list = this.by_end.get(candidate.end);
      if (list === undefined) this.by_end.set(candidate.end, [candidate]);
      else list.push(candidate);
      // A whole last frame whose digest fails is a tail torn inside it (its pages not all written).
      if (candidate.end === this.size_bytes) this.torn.push({ offset: start, reason: 'digest_mismatch' });
    }
    this.torn.sort((a, b) => b.offset - a.offset);
  }

  /** The file ends inside a frame magic: a frame torn in its first bytes. */
  private tornPrefix(): void {
    for (let length = Math.min(FRAME_MAGIC.length - 1, this.buffer.length); length > 0; length--) {
      const tail = this.buffer.subarray(this.buffer.length - length);
      if (tail.equals(FRAME_MAGIC.subarray(0, length))) this.torn.push({ offset: this.size_bytes - length, reason: 'short_header' });
    }
  }

  /** The intact, decodable frame ending at `end`; the earliest-starting one when several do (only crafted bytes
   *  can make two: a frame held in another's payload ends before the holder's digest). */
  private frameEndingAt(end: number): LastFrame | null {
    const candidates = this.by_end.get(end) ?? [];
    for (let index = candidates.length - 1; index >= 0; index--) {
      const frame = this.frameAt(candidates[index]!);
      if (frame !== null) return frame;
    }
    return null;
  }

  private frameAt(candidate: Candidate): LastFrame | null {
    const known = this.intact.get(candidate.start);
    if (known !== undefined) return known;
    if (this.over_budget) return null;
    const at = candidate.start - this.window_offset;
    const size_bytes = candidate.end - candidate.start;
    this.hashed_bytes += size_bytes;
    const frame = checkFrameAt(this.buffer, at, this.size_bytes - candidate.start) === null ? this.decoded(candidate, at, size_bytes) : null;
    this.intact.set(candidate.start, frame);
    return frame;
  }

  private decoded(candidate: Candidate, at: number, size_bytes: number): LastFrame | null {
    const body = this.buffer.subarray(at + FRAME_HEADER_BYTES, at + size_bytes - FRAME_DIGEST_BYTES);
    const decoded = decodeBody(body, false);
    if (decoded.kind !== 'ok') return null;
    const { ver, seq, fence, type, features } = decoded.body;
    return { offset: candidate.start, size_bytes, digest_algorithm: candidate.algorithm, ver, seq, fence, type, features, payload_cbor: body.subarray(decoded.payload_at) };
  }

  /** The chain ending with `last`, walked back frame by frame (no further than `reach` asks, when it does). */
  private chainFrom(last: LastFrame, frames_max: number, reach: LastFramesReach | null): [LastFrame[], LastFramesStop] {
    const chain = [last];
    let reached = false;
    let stop: LastFramesStop;
    for (;;) {
      const first = chain[chain.length - 1]!;
      reached ||= reach !== null && first.type === reach.type;
      if (first.offset === 0) stop = 'start_of_file';
      else if (chain.length >= frames_max) stop = 'frames_max';
      else if (reach !== null && reached && chain.length >= reach.frames_min) stop = 'reached';
      else {
        const before = this.frameEndingAt(first.offset);
        if (before !== null && inSequence(before, first)) {
          chain.push(before);
          continue;
        }
        stop = this.over_budget ? 'budget' : this.by_end.has(first.offset) ? 'unchained' : 'window';
      }
      break;
    }
    chain.reverse();
    return [chain, stop];
  }
}

/** Records on a chain follow each other in seq (lineage frames, seq 0, stand anywhere). */
function inSequence(before: LastFrame, after: LastFrame): boolean {
  return before.seq === 0 || after.seq === 0 || after.seq === before.seq + 1;
}

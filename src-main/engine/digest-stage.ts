// What the reader's digest stages share (digest-runs.ts is the one that checks on a second thread): the view a
// stage has of the reader's window, the check in place, and the start, wait and end of a digest worker. Every
// stage's verdicts are the same function of the same bytes, only computed elsewhere, so a read stops at the same
// offset, with the same torn-tail or corruption judgement, wherever its frames were hashed.
import type { Worker } from 'node:worker_threads';
import type { DigestAlgorithmName } from '../../src-shared/wal.js';
import { digestMatches } from './frame-codec.js';
import { startScriptWorker } from './script-worker.js';
import { FRAME_BYTES_MAX, READ_CHUNK_BYTES } from './limits.js';

/** What a digest stage sees of the reader's window over the file. */
export interface WindowView {
  readonly buffer: Buffer;
  /** The file offset of `buffer[0]`. */
  readonly start: number;
  /** Where the loaded bytes end in `buffer`. */
  readonly valid_end: number;
  readonly size_bytes: number;
  /** Reads a chunk from `offset` on into the window's other buffer, which it moves to when it gets there;
   *  returns how many bytes it read. */
  readAhead(offset: number): number;
}

/** How the reader checks the digest of the frame at `window.buffer[at, covered_end + 32)`. */
export interface DigestStage {
  matches(algorithm: DigestAlgorithmName, window: WindowView, at: number, covered_end: number): boolean;
}

/** The digest checked on the reading thread: the reader's default, and what the worker stage falls back to. */
export const IN_PLACE_DIGESTS: DigestStage = {
  matches: (algorithm, window, at, covered_end) => digestMatches(algorithm, window.buffer, at, covered_end),
};

/** How long the reader waits for the worker to start or to move on before it stops using it and hashes in
 *  place: it starts in ~45 ms and hashes one frame (at most 16 MiB, tens of ms) at a time, so only a worker
 *  that died or never ran reaches this. The read's verdicts do not depend on it, only its speed does. */
export const DIGEST_WORKER_SILENCE_MS_MAX = 10_000;
/** Workers started and told to end so far in this thread: tests check that every read ends its worker. */
export const digestWorkers = { started: 0, ended: 0 };

/** A digest worker running `source` (counted in `digestWorkers`), or null where none can start. */
export function startDigestWorker(source: string, shared: unknown): Worker | null {
  const worker = startScriptWorker(source, shared);
  if (worker !== null) digestWorkers.started += 1;
  return worker;
}

/** Tells a digest worker to exit (`control[stop_slot]`, then the wake-up its wait needs) and terminates it; the
 *  read never waits for it to exit. */
export function endDigestWorker(worker: Worker, control: Int32Array, stop_slot: number, wake: () => void): void {
  digestWorkers.ended += 1;
  Atomics.store(control, stop_slot, 1);
  wake();
  void worker.terminate();
}

/** Waits until `reached(array[slot])`, with `control[waiting_slot]` set meanwhile (a worker wakes the reader only
 *  then); false when the worker stays silent for DIGEST_WORKER_SILENCE_MS_MAX: the caller gives it up. */
export function waitForWorker(control: Int32Array, waiting_slot: number, array: Int32Array, slot: number, reached: (value: number) => boolean): boolean {
  for (;;) {
    const seen = Atomics.load(array, slot);
    if (reached(seen)) return true;
    Atomics.store(control, waiting_slot, 1);
    const outcome = Atomics.wait(array, slot, seen, DIGEST_WORKER_SILENCE_MS_MAX);
    Atomics.store(control, waiting_slot, 0);
    if (outcome === 'timed-out') return false;
  }
}

/** Each of the two shared window buffers: the largest frame plus one read chunk, the most the window holds. */
export const DIGEST_WINDOW_BYTES = FRAME_BYTES_MAX + READ_CHUNK_BYTES;

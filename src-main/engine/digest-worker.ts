// The reader's digest check on a second thread (docs/performance.md, "Where the time and the memory go" →
// verify). The reader's window lives in two SharedArrayBuffers. The stage queues the frames of the window for
// the worker, reads the next chunk into the other buffer and queues its frames too, so the worker goes from one
// chunk to the next without waiting for the reader; it hashes them in file order while the reader validates
// their bodies — hashing, reading and validating overlap. Only large frames go to the worker
// (DIGEST_WORKER_FRAME_BYTES_MIN), and while it hashes one the reader hashes a later one itself, so a worker
// short of CPU on a busy machine costs little more than hashing in place. The reader still accepts a frame
// only once that frame's own verdict is in, so a mismatch stops the read at the same offset, with the same
// torn-tail or corruption judgement, as hashing in place does: the verdicts are the same function of the same
// bytes, only computed elsewhere.
import type { Worker } from 'node:worker_threads';
import type { DigestAlgorithmName } from '../../src-shared/wal.js';
import { DIGEST_ALGORITHM_CODES, digestWork, frameDigestMatches } from './digest.js';
import { digestMatches } from './frame-codec.js';
import { startScriptWorker } from './script-worker.js';
import { FRAME_BYTES_MAX, FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, FRAME_OVERHEAD_BYTES, READ_CHUNK_BYTES } from './limits.js';

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

/** Frames queued from one buffer: bounds the job ring (two buffers' worth) and its verdict slots. A 4 MiB chunk
 *  holds up to ~93k minimal frames; the frames past this many are queued when the reader gets to them. */
export const DIGEST_BUFFER_FRAMES_MAX = 16_384;
const RING_JOBS = 2 * DIGEST_BUFFER_FRAMES_MAX;
/** Frames from this size (covered bytes) go to the worker; smaller ones are hashed in place. Hashing 64 KiB
 *  takes ~50 µs, about what handing a frame over costs on a busy machine (claims, wake-ups, cache lines moving
 *  between cores): on the million ~250-byte frames the worker made verify slower at load 4, not faster. On the
 *  1 GiB session 92 % of the bytes are in the 1,521 frames from 64 KiB. */
export const DIGEST_WORKER_FRAME_BYTES_MIN = 64 * 1024;
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
/** A job: which window buffer, where the covered bytes start and end in it. */
const JOB_SLOTS = 3;
const SHA256_CODE = DIGEST_ALGORITHM_CODES.sha256;

// Slots of the shared control array. Jobs are numbered from 0 in each run of the queue.
const SIGNAL = 0; // bumped whenever jobs are queued, to wake the worker
const COUNT = 1; // jobs queued in this run
const CLAIM = 2; // the first job neither the worker nor the reader has claimed; STOPPED ends the run
const WORKING = 3; // the job the worker is at (claimed or about to be), IDLE_JOB when it waits
const READY = 4; // 1 once the worker runs
const STOP = 5; // 1: the worker is to exit
const WAITING = 6; // 1 while the reader waits: the worker wakes it only then (a wake costs ~0.2 µs)
const CONTROL_SLOTS = 7;
const STOPPED = 2 ** 30;
const IDLE_JOB = -1;
// A job's state: free, claimed (by the worker or by the reader), or its verdict and who gave it.
const FREE = 0;
const WORKER_CLAIMED = 1;
const READER_CLAIMED = 2;
const WORKER_MATCH = 3;
const WORKER_MISMATCH = 4;
const READER_MATCH = 5;
const READER_MISMATCH = 6;
/** How far past the frame it needs the reader looks for a free frame to hash while the worker hashes that one. */
const HELP_AHEAD_JOBS = 8;

// The worker's code, evaluated as a script (`eval: true`): the reader is bundled into the CLI, the Electron
// main process and the session worker, and runs from source under the tests, so no one file path would name a
// worker module in all of them. It only reads the shared window and writes verdicts. It says which job it is
// at before it claims one, so that a reader who sees it elsewhere knows it will not touch that job's bytes.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { hash } = require('node:crypto');
const windows = workerData.windows.map((shared) => Buffer.from(shared));
const control = new Int32Array(workerData.control);
const jobs = new Int32Array(workerData.jobs);
const verdicts = new Int32Array(workerData.verdicts);
const wake = (array, slot) => { if (Atomics.load(control, ${WAITING}) === 1) Atomics.notify(array, slot); };
Atomics.store(control, ${WORKING}, ${IDLE_JOB});
Atomics.store(control, ${READY}, 1);
Atomics.notify(control, ${READY});
let signal = Atomics.load(control, ${SIGNAL});
while (Atomics.load(control, ${STOP}) !== 1) {
  for (;;) {
    const index = Atomics.load(control, ${CLAIM});
    if (index >= Atomics.load(control, ${COUNT})) break;
    Atomics.store(control, ${WORKING}, index);
    wake(control, ${WORKING});
    if (Atomics.compareExchange(control, ${CLAIM}, index, index + 1) !== index) continue;
    const slot = index % ${RING_JOBS};
    if (Atomics.compareExchange(verdicts, slot, ${FREE}, ${WORKER_CLAIMED}) !== ${FREE}) continue;
    const job = ${JOB_SLOTS} * slot;
    const window = windows[jobs[job]];
    const start = jobs[job + 1];
    const end = jobs[job + 2];
    const expected = hash('sha256', window.subarray(start, end), 'binary');
    let same = true;
    for (let byte = 0; byte < ${FRAME_DIGEST_BYTES} && same; byte++) same = expected.charCodeAt(byte) === window[end + byte];
    Atomics.store(verdicts, slot, same ? ${WORKER_MATCH} : ${WORKER_MISMATCH});
    wake(verdicts, slot);
  }
  Atomics.store(control, ${WORKING}, ${IDLE_JOB});
  wake(control, ${WORKING});
  Atomics.wait(control, ${SIGNAL}, signal);
  signal = Atomics.load(control, ${SIGNAL});
}
`;

type SharedMemory = { windows: [SharedArrayBuffer, SharedArrayBuffer]; control: SharedArrayBuffer; jobs: SharedArrayBuffer; verdicts: SharedArrayBuffer };

/** The digest check on a worker thread, for one read (`verify`'s). `buffers` are the two the reader's window must
 *  use; `release` must run before the window overwrites one and when the read ends, and `close` when the read
 *  ends, however it ends. */
export class WorkerDigests implements DigestStage {
  readonly buffers: readonly [Buffer, Buffer];
  private readonly control: Int32Array;
  private readonly jobs: Int32Array;
  private readonly verdicts: Int32Array;
  /** Jobs queued in this run, and the next one the reader takes. */
  private count = 0;
  private next = 0;
  /** Per buffer: one past the last job queued from it. */
  private readonly jobs_end = [0, 0];
  /** The buffer of the job the reader took last. */
  private reading_buffer = -1;
  /** Where the queued frames end in the file, and whether the frames after it may be queued from a chunk read
   *  ahead (the last queueing stopped at the end of its chunk, not at the frame cap or a frame it cannot queue). */
  private queued_end_offset = 0;
  private extendable = false;
  /** Set once the worker could not start or stopped answering: every frame after is hashed in place. */
  private abandoned = false;
  private worker: Worker | null = null;
  private readonly shared: SharedMemory;

  /** The shared memory now (the window reads into it from the start); the worker with the first large frame,
   *  so that a WAL of small frames never starts one. */
  constructor(private readonly inPlace: DigestStage = IN_PLACE_DIGESTS) {
    this.shared = {
      windows: [new SharedArrayBuffer(DIGEST_WINDOW_BYTES), new SharedArrayBuffer(DIGEST_WINDOW_BYTES)],
      control: new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT),
      jobs: new SharedArrayBuffer(JOB_SLOTS * RING_JOBS * Int32Array.BYTES_PER_ELEMENT),
      verdicts: new SharedArrayBuffer(RING_JOBS * Int32Array.BYTES_PER_ELEMENT),
    };
    this.buffers = [Buffer.from(this.shared.windows[0]), Buffer.from(this.shared.windows[1])];
    this.control = new Int32Array(this.shared.control);
    this.jobs = new Int32Array(this.shared.jobs);
    this.verdicts = new Int32Array(this.shared.verdicts);
  }

  /** Whether large frames go to the worker now: it runs (started here and waited for), and was not given up on. */
  private running(): boolean {
    if (this.abandoned) return false;
    return this.worker !== null || this.startWorker();
  }

  /** Starts the worker and waits until it runs; false where it cannot start or does not run within
   *  DIGEST_WORKER_SILENCE_MS_MAX (a resource limit, an embedder that forbids worker threads): the reader then
   *  hashes in place, which gives the same verdicts, only on one thread. */
  private startWorker(): boolean {
    this.worker = startDigestWorker(WORKER_SOURCE, this.shared);
    if (this.worker === null) {
      this.abandoned = true;
      return false;
    }
    if (this.waitUntil(this.control, READY, (ready) => ready === 1)) return true;
    this.abandon();
    return false;
  }

  matches(algorithm: DigestAlgorithmName, window: WindowView, at: number, covered_end: number): boolean {
    const buffer_id = this.buffers.indexOf(window.buffer);
    if (buffer_id >= 0 && !this.abandoned && buffer_id !== this.reading_buffer && this.count > 0) this.enterBuffer(window, buffer_id);
    const large = algorithm === 'sha256' && covered_end - at >= DIGEST_WORKER_FRAME_BYTES_MIN;
    if (large && buffer_id >= 0 && this.running()) {
      if (!this.isNext(buffer_id, at, covered_end)) this.queueFrom(window, buffer_id, at);
      if (this.isNext(buffer_id, at, covered_end)) {
        const verdict = this.abandoned ? FREE : this.verdict(this.next++);
        if (verdict === WORKER_MATCH || verdict === WORKER_MISMATCH) digestWork.worker_hashed_bytes += covered_end - at;
        if (verdict !== FREE) return verdict === WORKER_MATCH || verdict === READER_MATCH;
      }
    }
    return this.inPlace.matches(algorithm, window, at, covered_end);
  }

  /** Ends the run and waits until the worker no longer reads either buffer: before the window is refilled
   *  other than by reading ahead. */
  release(): void {
    if (this.count === 0) return;
    this.count = 0;
    this.next = 0;
    this.jobs_end[0] = 0;
    this.jobs_end[1] = 0;
    this.reading_buffer = -1;
    this.extendable = false;
    if (this.abandoned) return;
    Atomics.store(this.control, CLAIM, STOPPED);
    if (!this.waitUntil(this.control, WORKING, (job) => job === IDLE_JOB)) this.abandon();
  }

  /** Ends the worker, if one started; the read never waits for it to exit. */
  close(): void {
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    endDigestWorker(worker, this.control, STOP, () => {
      Atomics.add(this.control, SIGNAL, 1);
      Atomics.notify(this.control, SIGNAL);
    });
  }

  /** Whether the next job is the frame the reader checks: the same bytes, covered and stored. */
  private isNext(buffer_id: number, at: number, covered_end: number): boolean {
    const job = JOB_SLOTS * (this.next % RING_JOBS);
    return this.next < this.count && this.jobs[job] === buffer_id && this.jobs[job + 1] === at && this.jobs[job + 2] === covered_end;
  }

  /** Starts a new run from the frame at `at`: queues it and the frames after it in the window, then the frames
   *  of the next chunk, read ahead into the other buffer. */
  private queueFrom(window: WindowView, buffer_id: number, at: number): void {
    this.release();
    if (this.abandoned) return;
    this.queue(window.buffer, buffer_id, at, window.valid_end, window.start + at);
    if (this.count === 0) return;
    Atomics.store(this.control, CLAIM, 0);
    Atomics.add(this.control, SIGNAL, 1);
    Atomics.notify(this.control, SIGNAL);
    this.enterBuffer(window, buffer_id);
  }

  /** The reader is in `buffer_id` now: the other buffer is done with once the worker is past its jobs, and
   *  gets the chunk after the queued frames, whose frames are queued in turn. */
  private enterBuffer(window: WindowView, buffer_id: number): void {
    this.reading_buffer = buffer_id;
    if (!this.extendable || this.queued_end_offset >= window.size_bytes) return;
    const other = 1 - buffer_id;
    const other_end = this.jobs_end[other]!;
    if (!this.waitUntil(this.control, WORKING, (job) => job === IDLE_JOB || job >= other_end)) {
      this.abandon();
      return;
    }
    const read_bytes = window.readAhead(this.queued_end_offset);
    const first = this.count;
    this.queue(this.buffers[other]!, other, 0, read_bytes, this.queued_end_offset);
    if (this.count > first) {
      Atomics.add(this.control, SIGNAL, 1);
      Atomics.notify(this.control, SIGNAL);
    }
  }

  /** Queues the large SHA-256 frames from `start` in `buffer` (file offset `offset`) that end by `valid_end`, up
   *  to DIGEST_BUFFER_FRAMES_MAX, and publishes them (COUNT). Frames are found by their length fields alone,
   *  unchecked: a verdict is used only once the reader has checked that header itself and found the very range
   *  (`isNext`), so a wrong guess costs a wasted hash. */
  private queue(buffer: Buffer, buffer_id: number, start: number, valid_end: number, offset: number): void {
    let at = start;
    let queued = 0;
    while (queued < DIGEST_BUFFER_FRAMES_MAX && at + FRAME_HEADER_BYTES <= valid_end && buffer[at + 5] === SHA256_CODE) {
      const end = at + FRAME_OVERHEAD_BYTES + buffer.readUInt32LE(at + 8);
      if (end > valid_end) break;
      const start_of_frame = at;
      at = end;
      if (end - FRAME_DIGEST_BYTES - start_of_frame < DIGEST_WORKER_FRAME_BYTES_MIN) continue;
      const index = this.count + queued;
      const job = JOB_SLOTS * (index % RING_JOBS);
      this.jobs[job] = buffer_id;
      this.jobs[job + 1] = start_of_frame;
      this.jobs[job + 2] = end - FRAME_DIGEST_BYTES;
      this.verdicts[index % RING_JOBS] = FREE;
      queued += 1;
    }
    this.extendable = queued < DIGEST_BUFFER_FRAMES_MAX && (at + FRAME_HEADER_BYTES > valid_end || buffer[at + 5] === SHA256_CODE);
    this.queued_end_offset = offset + (at - start);
    this.count += queued;
    if (queued > 0) this.jobs_end[buffer_id] = this.count;
    Atomics.store(this.control, COUNT, this.count);
  }

  /** The verdict on job `index` (WORKER_… or READER_…), or FREE when the reader is to hash the frame itself:
   *  nobody has begun it, or the worker fell silent. While the worker hashes it, the reader hashes a free frame
   *  after it. */
  private verdict(index: number): number {
    const slot = index % RING_JOBS;
    for (;;) {
      const state = Atomics.load(this.verdicts, slot);
      if (state >= WORKER_MATCH) return state;
      if (state === FREE && Atomics.compareExchange(this.verdicts, slot, FREE, READER_CLAIMED) === FREE) return FREE;
      if (this.helpAhead(index)) continue;
      if (!this.waitUntil(this.verdicts, slot, (verdict) => verdict >= WORKER_MATCH)) {
        this.abandon();
        return FREE;
      }
    }
  }

  /** Hashes, here, the first free job of the few queued after `index`, and leaves its verdict for when the
   *  reader gets there; false when there is none. */
  private helpAhead(index: number): boolean {
    const last = Math.min(this.count, index + 1 + HELP_AHEAD_JOBS);
    for (let ahead = index + 1; ahead < last; ahead++) {
      const slot = ahead % RING_JOBS;
      if (Atomics.load(this.verdicts, slot) !== FREE || Atomics.compareExchange(this.verdicts, slot, FREE, READER_CLAIMED) !== FREE) continue;
      const job = JOB_SLOTS * slot;
      const buffer = this.buffers[this.jobs[job]!]!;
      const covered_end = this.jobs[job + 2]!;
      const same = frameDigestMatches('sha256', buffer.subarray(this.jobs[job + 1]!, covered_end), buffer, covered_end);
      Atomics.store(this.verdicts, slot, same ? READER_MATCH : READER_MISMATCH);
      return true;
    }
    return false;
  }

  /** Waits until `reached(array[slot])`; false when the worker stays silent for DIGEST_WORKER_SILENCE_MS_MAX.
   *  WAITING is set before the wait reads the slot again, so a worker that finds it unset stored its change
   *  before that read: no wake is lost (every access here is sequentially consistent). */
  private waitUntil(array: Int32Array, slot: number, reached: (value: number) => boolean): boolean {
    return waitForWorker(this.control, WAITING, array, slot, reached);
  }

  private abandon(): void {
    this.abandoned = true;
    this.count = 0;
    this.next = 0;
    this.close();
  }
}

// The reader's digest check on a second thread (docs/performance.md, "Where the time and the memory go" →
// verify). The reader's window lives in two SharedArrayBuffers; when the reader asks for the digest of a frame,
// the stage hands the worker that frame and the SHA-256 frames after it in the window as one batch and reads
// the next chunk into the other buffer, and the worker hashes the batch in file order while the reader
// validates the frames' bodies — hashing, reading and validating overlap. A small frame the worker has not
// got to yet the reader hashes itself rather than wait for it (DIGEST_WAIT_BYTES_MIN), so a worker short of
// CPU on a busy machine costs little more than hashing in place. The reader still accepts a frame
// only once that frame's own verdict is in, so a mismatch stops the read at the same offset, with the same
// torn-tail or corruption judgement, as hashing in place does: the verdicts are the same function of the same
// bytes, only computed elsewhere.
import { Worker } from 'node:worker_threads';
import type { DigestAlgorithmName } from '../../src-shared/wal.js';
import { DIGEST_ALGORITHM_CODES, digestWork } from './digest.js';
import { FRAME_BYTES_MAX, FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, FRAME_OVERHEAD_BYTES, READ_CHUNK_BYTES } from './limits.js';

/** What a digest stage sees of the reader's window over the file. */
export interface WindowView {
  readonly buffer: Buffer;
  /** The file offset of `buffer[0]`. */
  readonly start: number;
  /** Where the loaded bytes end in `buffer`. */
  readonly valid_end: number;
  readonly size_bytes: number;
  /** Reads a chunk from `offset` on into the window's other buffer, which it moves to when it gets there. */
  readAhead(offset: number): void;
}

/** How the reader checks the digest of the frame at `window.buffer[at, covered_end + 32)`. */
export interface DigestStage {
  matches(algorithm: DigestAlgorithmName, window: WindowView, at: number, covered_end: number): boolean;
}

/** Frames in one batch: bounds the job and verdict arrays (a 4 MiB window holds up to ~93k minimal frames; a
 *  batch ending early only means the next frame starts the next one). */
export const DIGEST_BATCH_FRAMES_MAX = 16_384;
/** How long the reader waits for the worker to start or to move on before it stops using it and hashes in
 *  place: it starts in ~45 ms and hashes at most one window (20 MiB, tens of ms) at a time, so only a worker
 *  that died or never ran reaches this. The read's verdicts do not depend on it, only its speed does. */
export const DIGEST_WORKER_SILENCE_MS_MAX = 10_000;
/** A frame at least this large whose verdict is not in yet is waited for; a smaller one the reader hashes
 *  itself, having claimed it so that the worker skips it unless it has begun it. Hashing 64 KiB takes ~50 µs,
 *  about what a wake-up costs on a busy machine; and the worker falls behind the reader on small frames only
 *  when it is short of CPU, where waiting for it is what makes a second thread slower than one. */
export const DIGEST_WAIT_BYTES_MIN = 64 * 1024;
/** Workers started and told to end so far in this thread: tests check that every read ends its worker. */
export const digestWorkers = { started: 0, ended: 0 };
/** Each of the two shared window buffers: the largest frame plus one read chunk, the most the window holds. */
export const DIGEST_WINDOW_BYTES = FRAME_BYTES_MAX + READ_CHUNK_BYTES;
/** A job: which window buffer, where the covered bytes start and end in it. */
const JOB_SLOTS = 3;
const SHA256_CODE = DIGEST_ALGORITHM_CODES.sha256;

// Slots of the shared control array.
const BATCH = 0; // the batch number the reader posted last
const COUNT = 1; // frames in that batch
const CLAIM = 2; // the batch's first frame neither the worker nor the reader has claimed
const IDLE = 3; // the last batch the worker finished or was stopped in
const READY = 4; // 1 once the worker runs
const STOP = 5; // 1: the worker is to exit
const WAITING = 6; // 1 while the reader waits: the worker wakes it only then (a wake costs ~0.2 µs)
const CONTROL_SLOTS = 7;
// A frame's verdict slot.
const PENDING = 0;
const MATCH = 1;
const MISMATCH = 2;

// The worker's code, evaluated as a script (`eval: true`): the reader is bundled into the CLI, the Electron
// main process and the session worker, and runs from source under the tests, so no one file path would name a
// worker module in all of them. It only reads the shared window and writes verdicts.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { hash } = require('node:crypto');
const windows = workerData.windows.map((shared) => Buffer.from(shared));
const control = new Int32Array(workerData.control);
const jobs = new Int32Array(workerData.jobs);
const verdicts = new Int32Array(workerData.verdicts);
Atomics.store(control, ${READY}, 1);
Atomics.notify(control, ${READY});
let batch = 0;
for (;;) {
  Atomics.wait(control, ${BATCH}, batch);
  if (Atomics.load(control, ${STOP}) === 1) break;
  batch = Atomics.load(control, ${BATCH});
  const count = Atomics.load(control, ${COUNT});
  for (let index = Atomics.add(control, ${CLAIM}, 1); index < count; index = Atomics.add(control, ${CLAIM}, 1)) {
    const window = windows[jobs[${JOB_SLOTS} * index]];
    const start = jobs[${JOB_SLOTS} * index + 1];
    const end = jobs[${JOB_SLOTS} * index + 2];
    const expected = hash('sha256', window.subarray(start, end), 'binary');
    let same = 1;
    for (let byte = 0; byte < ${FRAME_DIGEST_BYTES}; byte++) {
      if (expected.charCodeAt(byte) !== window[end + byte]) { same = 0; break; }
    }
    Atomics.store(verdicts, index, same === 1 ? ${MATCH} : ${MISMATCH});
    if (Atomics.load(control, ${WAITING}) === 1) Atomics.notify(verdicts, index);
  }
  Atomics.store(control, ${IDLE}, batch);
  Atomics.notify(control, ${IDLE});
}
`;

type SharedMemory = { windows: [SharedArrayBuffer, SharedArrayBuffer]; control: SharedArrayBuffer; jobs: SharedArrayBuffer; verdicts: SharedArrayBuffer };

/** The digest check on a worker thread, for one read. `buffers` are the two the reader's window must use;
 *  `release` must run before the window overwrites one, and `close` when the read ends, however it ends. */
export class WorkerDigests implements DigestStage {
  readonly buffers: readonly [Buffer, Buffer];
  private readonly control: Int32Array;
  private readonly jobs: Int32Array;
  private readonly verdicts: Int32Array;
  private batch = 0;
  private count = 0;
  private next = 0;
  /** Set once the worker stopped answering: every frame after is hashed in place. */
  private abandoned = false;
  private ended = false;

  private constructor(
    private readonly worker: Worker,
    shared: SharedMemory,
    private readonly inPlace: DigestStage,
  ) {
    this.buffers = [Buffer.from(shared.windows[0]), Buffer.from(shared.windows[1])];
    this.control = new Int32Array(shared.control);
    this.jobs = new Int32Array(shared.jobs);
    this.verdicts = new Int32Array(shared.verdicts);
  }

  /** Starts the worker and waits until it runs, or returns null where it cannot start or does not run within
   *  DIGEST_WORKER_SILENCE_MS_MAX (a resource limit, an embedder that forbids worker threads): the reader then
   *  hashes in place, which gives the same verdicts, only on one thread. Waiting for it (~45 ms) rather than
   *  hashing in place meanwhile makes which frames the worker checks depend on the file, not on timing. */
  static start(inPlace: DigestStage): WorkerDigests | null {
    const shared: SharedMemory = {
      windows: [new SharedArrayBuffer(DIGEST_WINDOW_BYTES), new SharedArrayBuffer(DIGEST_WINDOW_BYTES)],
      control: new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT),
      jobs: new SharedArrayBuffer(JOB_SLOTS * DIGEST_BATCH_FRAMES_MAX * Int32Array.BYTES_PER_ELEMENT),
      verdicts: new SharedArrayBuffer(DIGEST_BATCH_FRAMES_MAX * Int32Array.BYTES_PER_ELEMENT),
    };
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true, workerData: shared });
    } catch {
      return null;
    }
    // A worker that fails reports it as an event on the event loop, which a synchronous read never reaches;
    // the read notices its silence instead. Without a listener the event would throw in the process that ran
    // the read, after the read.
    worker.on('error', () => undefined);
    // It must never keep a process alive: the CLI exits when its work is done whatever the worker does.
    worker.unref();
    digestWorkers.started += 1;
    const digests = new WorkerDigests(worker, shared, inPlace);
    if (digests.waitUntil(digests.control, READY, (ready) => ready === 1)) return digests;
    digests.close();
    return null;
  }

  matches(algorithm: DigestAlgorithmName, window: WindowView, at: number, covered_end: number): boolean {
    const buffer_id = this.buffers.indexOf(window.buffer);
    if (algorithm === 'sha256' && buffer_id >= 0 && !this.abandoned) {
      if (!this.isNext(buffer_id, at, covered_end)) this.post(window, buffer_id, at);
      if (this.isNext(buffer_id, at, covered_end)) {
        const verdict = this.verdict(this.next++, covered_end - at);
        if (verdict !== null) {
          digestWork.worker_hashed_bytes += covered_end - at;
          return verdict;
        }
      }
    }
    return this.inPlace.matches(algorithm, window, at, covered_end);
  }

  /** Waits until the worker no longer reads the window's buffers: before one is refilled. */
  release(): void {
    if (this.count === 0) return;
    this.count = 0;
    this.next = 0;
    if (this.abandoned) return;
    // Nothing left to claim: the worker ends the batch with the frame it is hashing, if any.
    Atomics.store(this.control, CLAIM, DIGEST_BATCH_FRAMES_MAX);
    const batch = this.batch;
    if (!this.waitUntil(this.control, IDLE, (idle) => idle === batch)) this.abandon();
  }

  /** Ends the worker; the read never waits for it to exit. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    digestWorkers.ended += 1;
    Atomics.store(this.control, STOP, 1);
    Atomics.add(this.control, BATCH, 1);
    Atomics.notify(this.control, BATCH);
    void this.worker.terminate();
  }

  /** Whether the batch's next job is the frame the reader checks: the same bytes, covered and stored. */
  private isNext(buffer_id: number, at: number, covered_end: number): boolean {
    const job = JOB_SLOTS * this.next;
    return this.next < this.count && this.jobs[job] === buffer_id && this.jobs[job + 1] === at && this.jobs[job + 2] === covered_end;
  }

  /** Posts the frame at `at` and the SHA-256 frames after it in the window as the next batch; when the batch
   *  runs to the window's end, reads the next chunk while the worker hashes it. The frames after the first are
   *  found by their length fields alone, unchecked: a range only gets a verdict used once the reader has
   *  checked that header itself and found the very range (`isNext`), so a wrong guess costs a wasted hash. */
  private post(window: WindowView, buffer_id: number, at: number): void {
    this.release();
    if (this.abandoned) return;
    const buffer = window.buffer;
    const valid_end = window.valid_end;
    let start = at;
    let count = 0;
    while (count < DIGEST_BATCH_FRAMES_MAX && start + FRAME_HEADER_BYTES <= valid_end && buffer[start + 5] === SHA256_CODE) {
      const end = start + FRAME_OVERHEAD_BYTES + buffer.readUInt32LE(start + 8);
      if (end > valid_end) break;
      const job = JOB_SLOTS * count;
      this.jobs[job] = buffer_id;
      this.jobs[job + 1] = start;
      this.jobs[job + 2] = end - FRAME_DIGEST_BYTES;
      count += 1;
      start = end;
    }
    if (count === 0) return;
    this.batch += 1;
    this.count = count;
    this.next = 0;
    this.verdicts.fill(PENDING, 0, count);
    Atomics.store(this.control, COUNT, count);
    Atomics.store(this.control, CLAIM, 0);
    Atomics.store(this.control, BATCH, this.batch);
    Atomics.notify(this.control, BATCH);
    if (count < DIGEST_BATCH_FRAMES_MAX && window.start + window.valid_end < window.size_bytes) window.readAhead(window.start + start);
  }

  /** The worker's verdict on the batch's frame `index`, or null when the reader is to hash it itself: a small
   *  frame not checked yet (DIGEST_WAIT_BYTES_MIN), or any frame once the worker fell silent. */
  private verdict(index: number, covered_bytes: number): boolean | null {
    const known = Atomics.load(this.verdicts, index);
    if (known !== PENDING) return known === MATCH;
    if (covered_bytes < DIGEST_WAIT_BYTES_MIN) {
      // Claimed only if the worker has not claimed it; if it has, it may hash it too, to no effect.
      Atomics.compareExchange(this.control, CLAIM, index, index + 1);
      return null;
    }
    if (!this.waitUntil(this.verdicts, index, (verdict) => verdict !== PENDING)) {
      this.abandon();
      return null;
    }
    return Atomics.load(this.verdicts, index) === MATCH;
  }

  /** Waits until `reached(array[slot])`; false when the worker stays silent for DIGEST_WORKER_SILENCE_MS_MAX.
   *  WAITING is set before the wait reads the slot again, so a worker that finds it unset stored its verdict
   *  before that read: no wake is lost (every access here is sequentially consistent). */
  private waitUntil(array: Int32Array, slot: number, reached: (value: number) => boolean): boolean {
    for (;;) {
      const seen = Atomics.load(array, slot);
      if (reached(seen)) return true;
      Atomics.store(this.control, WAITING, 1);
      const outcome = Atomics.wait(array, slot, seen, DIGEST_WORKER_SILENCE_MS_MAX);
      Atomics.store(this.control, WAITING, 0);
      if (outcome === 'timed-out') return false;
    }
  }

  private abandon(): void {
    this.abandoned = true;
    this.count = 0;
    this.next = 0;
    this.close();
  }
}

// The digest check on a second thread, for every read that uses one (verify, the fold, the service; docs/
// performance.md, "Where the time and the memory go"). The fold's thread does ~7 µs of work a frame and hashing
// a small frame is ~1 µs of it, so a worker hashes every frame of a chunk ahead of the reader, a run at a time
// rather than a frame at a time (a per-frame hand-over cost more than it saved). The reader publishes a run:
// a buffer of the window and the range of it its frames fill, found by their length fields from a frame the
// reader itself reaches. The worker walks the run by the same length fields, hashes each frame and publishes
// how far every frame matched; a mismatch ends its walk there. The reader trusts a frame that ends below that
// mark — it judged the header itself, and its frames follow the same length fields from the same start, so a
// frame below the mark is one the worker checked — and hashes in place every frame past it: the worker's
// verdicts only ever spare the reader a hash it would have found matching. A mismatch is therefore always
// found by the reader's own in-place hash, and the read stops at the same offset with the same judgement.
import type { Worker } from 'node:worker_threads';
import type { DigestAlgorithmName } from '../../src-shared/wal.js';
import { DIGEST_ALGORITHM_CODES, digestWork } from './digest.js';
import { DIGEST_WINDOW_BYTES, IN_PLACE_DIGESTS, endDigestWorker, startDigestWorker, waitForWorker, type DigestStage, type WindowView } from './digest-stage.js';
import { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, FRAME_OVERHEAD_BYTES } from './limits.js';

// Slots of the shared control array. Runs are numbered from 0 for the whole read; run n uses run slot n % 2.
const QUEUED = 0; // runs published; the worker waits on it
const CURRENT = 1; // the run the worker is at (it reads that run's buffer only while at it), NOT_STARTED before it runs
const CANCEL = 2; // runs below this are ended: the worker leaves them, untouched or half walked
const STOP = 3; // 1: the worker is to exit
const WAITING = 4; // 1 while the reader waits: the worker wakes it only then
const RUN_SLOTS_AT = 5;
// A run slot: its buffer, the range of it to walk, how far every frame matched, where the reader's own frames end.
const RUN_BUFFER = 0;
const RUN_START = 1;
const RUN_END = 2;
const RUN_MATCHED_END = 3;
const RUN_READER_END = 4;
const RUN_SLOTS = 5;
const CONTROL_SLOTS = RUN_SLOTS_AT + 2 * RUN_SLOTS;
const NOT_STARTED = -1;
const NO_READ_AHEAD = -2;
const SHA256_CODE = DIGEST_ALGORITHM_CODES.sha256;

// Evaluated as a script (script-worker.ts; the reader is bundled into the CLI and the Electron main
// process and runs from source under the tests). It reads the shared window and writes only its progress. It
// says which run it is at before it checks that run is not ended, so a reader that ended a run and sees it
// elsewhere knows it will not touch that run's bytes again. Frames the reader has hashed itself (those starting
// before RUN_READER_END) are stepped over unhashed.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { hash } = require('node:crypto');
const windows = workerData.windows.map((shared) => Buffer.from(shared));
const control = new Int32Array(workerData.control);
const wakeReader = () => { if (Atomics.load(control, ${WAITING}) === 1) Atomics.notify(control, ${CURRENT}); };
function walk(run) {
  const slot = ${RUN_SLOTS_AT} + ${RUN_SLOTS} * (run % 2);
  const buffer = windows[control[slot + ${RUN_BUFFER}]];
  const end = control[slot + ${RUN_END}];
  let at = control[slot + ${RUN_START}];
  while (at + ${FRAME_HEADER_BYTES} <= end && Atomics.load(control, ${CANCEL}) <= run) {
    const frame_end = at + ${FRAME_OVERHEAD_BYTES} + buffer.readUInt32LE(at + 8);
    if (frame_end > end) return;
    if (buffer[at + 5] === ${SHA256_CODE} && at >= Atomics.load(control, slot + ${RUN_READER_END})) {
      const covered_end = frame_end - ${FRAME_DIGEST_BYTES};
      const expected = hash('sha256', buffer.subarray(at, covered_end), 'binary');
      for (let byte = 0; byte < ${FRAME_DIGEST_BYTES}; byte++) if (expected.charCodeAt(byte) !== buffer[covered_end + byte]) return;
    }
    at = frame_end;
    Atomics.store(control, slot + ${RUN_MATCHED_END}, at);
  }
}
let run = 0;
Atomics.store(control, ${CURRENT}, run);
wakeReader();
while (Atomics.load(control, ${STOP}) !== 1) {
  const queued = Atomics.load(control, ${QUEUED});
  if (run >= queued) {
    Atomics.wait(control, ${QUEUED}, queued);
    continue;
  }
  if (Atomics.load(control, ${CANCEL}) <= run) walk(run);
  run += 1;
  Atomics.store(control, ${CURRENT}, run);
  wakeReader();
}
`;

/** Where the frames from `start` in `buffer` that lie wholly before `valid_end` end, by their length fields alone
 *  (unchecked: the reader judges each header itself, and stops at the first it refuses). */
function framesEnd(buffer: Buffer, start: number, valid_end: number): number {
  let at = start;
  while (at + FRAME_HEADER_BYTES <= valid_end) {
    // The length field byte by byte: `readUInt32LE` over shared memory was ~2x slower (measured in process).
    const frame_end = at + FRAME_OVERHEAD_BYTES + (buffer[at + 8]! | (buffer[at + 9]! << 8) | (buffer[at + 10]! << 16)) + buffer[at + 11]! * 0x1000000;
    if (frame_end > valid_end) break;
    at = frame_end;
  }
  return at;
}

/** Every SHA-256 frame's digest checked ahead of the reader on a worker thread: the fold's stage, for one read
 *  (ReadOptions.digest_runs_from_bytes) or kept across reads, one at a time (ReadOptions.digest_worker: the
 *  service's slices of a big session). `buffers` are the two the reader's window must use; `release` must run
 *  before the window overwrites one other than by reading ahead and when a read ends, and `close` when the reads
 *  end, however they end. Where the worker cannot start, or is behind, frames are hashed in place: the same
 *  verdicts. */
export class RunDigests implements DigestStage {
  readonly buffers: readonly [Buffer, Buffer];
  private readonly control: Int32Array;
  private worker: Worker | null = null;
  /** Set once the worker could not start or stopped answering: every frame after is hashed in place. */
  private abandoned = false;
  /** Runs published so far, and the one whose buffer the reader is in (-1: none, a run starts at its next frame). */
  private queued = 0;
  private reading_run = -1;
  private reading_buffer: Buffer | null = null;
  /** Where the reading run's slot is in `control`, and how far the worker had matched when last asked: frames
   *  ending by it are trusted without another atomic load. */
  private reading_slot = 0;
  private matched_end = 0;
  /** Where, in the file, the frames of the last run published end: the next run is read ahead from there. */
  private queued_end_offset = 0;
  /** The run left behind whose buffer gets the next chunk once the worker is past it (-1: none, the buffer is
   *  free), or NO_READ_AHEAD. The reader does not wait for a worker off its core to leave that run: it looks
   *  again at its next frames, and reads ahead when the worker has moved on. */
  private behind_run = NO_READ_AHEAD;

  constructor() {
    const windows = [new SharedArrayBuffer(DIGEST_WINDOW_BYTES), new SharedArrayBuffer(DIGEST_WINDOW_BYTES)];
    const control = new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    this.buffers = [Buffer.from(windows[0]!), Buffer.from(windows[1]!)];
    this.control = new Int32Array(control);
    this.control[CURRENT] = NOT_STARTED;
    // Started now and never waited for: until it runs the reader hashes in place, as it does whenever it is ahead.
    this.worker = startDigestWorker(WORKER_SOURCE, { windows, control });
    this.abandoned = this.worker === null;
  }

  matches(algorithm: DigestAlgorithmName, window: WindowView, at: number, covered_end: number): boolean {
    if (algorithm === 'sha256' && !this.abandoned) {
      if (window.buffer !== this.reading_buffer) this.follow(window, at);
      if (this.behind_run !== NO_READ_AHEAD) this.readAhead(window);
      const frame_end = covered_end + FRAME_DIGEST_BYTES;
      if (this.reading_run >= 0) {
        if (frame_end > this.matched_end) this.matched_end = Atomics.load(this.control, this.reading_slot + RUN_MATCHED_END);
        if (frame_end <= this.matched_end) {
          digestWork.worker_hashed_bytes += covered_end - at;
          return true;
        }
        // The worker is behind: this frame is the reader's, and the worker steps over it.
        Atomics.store(this.control, this.reading_slot + RUN_READER_END, frame_end);
      }
    }
    return IN_PLACE_DIGESTS.matches(algorithm, window, at, covered_end);
  }

  /** Ends every run and waits until the worker reads neither buffer: before the window is refilled other than by
   *  reading ahead, and when the read ends. */
  release(): void {
    this.reading_run = -1;
    this.reading_buffer = null;
    this.behind_run = NO_READ_AHEAD;
    if (this.queued > 0 && !this.abandoned) this.leave(this.queued);
  }

  /** Ends the worker, if one started; the read never waits for it to exit. */
  close(): void {
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    endDigestWorker(worker, this.control, STOP, () => Atomics.notify(this.control, QUEUED));
  }

  /** The reader is in a buffer other than its run's: the chunk read ahead (the next run), or a window loaded
   *  afresh (a new run from this frame on). */
  private follow(window: WindowView, at: number): void {
    const buffer_id = this.buffers.indexOf(window.buffer);
    const next = this.reading_run + 1;
    if (this.reading_run >= 0 && next < this.queued && this.control[this.slotOf(next) + RUN_BUFFER] === buffer_id) {
      // The run left behind is ended; its buffer gets the chunk after this one.
      if (Atomics.load(this.control, CANCEL) < next) Atomics.store(this.control, CANCEL, next);
      this.enter(next, window.buffer);
    } else {
      this.release();
      if (buffer_id < 0 || this.abandoned) return;
      this.queued_end_offset = window.start + at;
      this.publish(buffer_id, at, window.valid_end);
      this.enter(this.queued - 1, window.buffer);
    }
    if (this.queued_end_offset < window.size_bytes) this.behind_run = this.reading_run - 1;
  }

  /** Reads the chunk after the reader's into the other buffer and publishes its frames as the next run, once the
   *  worker is past the run that buffer held (or has not started, and so will see that run ended). */
  private readAhead(window: WindowView): void {
    const current = Atomics.load(this.control, CURRENT);
    if (current !== NOT_STARTED && current <= this.behind_run) return;
    this.behind_run = NO_READ_AHEAD;
    this.publish(1 - this.buffers.indexOf(window.buffer), 0, window.readAhead(this.queued_end_offset));
  }

  private enter(run: number, buffer: Buffer): void {
    this.reading_run = run;
    this.reading_buffer = buffer;
    this.reading_slot = this.slotOf(run);
    this.matched_end = 0;
  }

  /** Publishes the frames in `buffers[buffer_id]` from `start` that end by `valid_end` as the next run. */
  private publish(buffer_id: number, start: number, valid_end: number): void {
    const end = framesEnd(this.buffers[buffer_id]!, start, valid_end);
    const slot = this.slotOf(this.queued);
    this.control[slot + RUN_BUFFER] = buffer_id;
    this.control[slot + RUN_START] = start;
    this.control[slot + RUN_END] = end;
    this.control[slot + RUN_MATCHED_END] = start;
    this.control[slot + RUN_READER_END] = start;
    this.queued_end_offset += end - start;
    this.queued += 1;
    Atomics.store(this.control, QUEUED, this.queued);
    Atomics.notify(this.control, QUEUED);
  }

  private slotOf(run: number): number {
    return RUN_SLOTS_AT + RUN_SLOTS * (run % 2);
  }

  /** Ends the runs before `run` and waits until the worker is past them (or has not started, and so will see
   *  them ended): it then reads neither their buffers nor their slots. Gives the worker up if it stays silent. */
  private leave(run: number): void {
    if (Atomics.load(this.control, CANCEL) < run) Atomics.store(this.control, CANCEL, run);
    if (waitForWorker(this.control, WAITING, this.control, CURRENT, (current) => current === NOT_STARTED || current >= run)) return;
    this.abandoned = true;
    this.close();
  }
}

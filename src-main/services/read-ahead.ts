// Warming the page cache for the WALs a root's background read takes next. That read goes through the WALs one
// after the other on the session thread (hash, validate, fold); from a cold disk the thread also waited for each
// file's bytes in turn (2,000 sessions: 5.3 s of its 13 s blocked in `read`, against a cold `cat` of the files
// in 3.1 s). A worker thread of its own reads the next files ahead with blocking reads, so the disk works while
// the session thread folds. It must not depend on the session thread's event loop: an earlier version read ahead
// with libuv's asynchronous reads, whose callbacks ran only between two sessions' reads, and so was never more
// than a file ahead (it did not pay, and was reverted). What is read ahead is thrown away: it has only to be in
// the page cache when the real read, which checks everything, comes. A failure here is ignored: the real read
// meets it and reports it.
import type { Worker } from 'node:worker_threads';
import { startScriptWorker } from '../engine/index.js';

/** At most this many bytes of the planned files are read ahead of the real read: the page cache keeps them until
 *  it comes (a file larger than this is read ahead up to this many bytes of its start). */
export const READ_AHEAD_BYTES_MAX = 64 * 1_048_576;
const CHUNK_BYTES = 1_048_576;
/** When it is far enough ahead, the worker rests this long before it looks again where the real read is: the real
 *  read does not wake it (a wake-up a file cost the session thread ~0.1 ms: 0.24 s for 2,000 sessions), and
 *  64 MiB ahead last the real read longer than this. */
const REST_MS = 20;

export interface AheadFile {
  path: string;
  size_bytes: number;
}

// Slots of the shared control array.
const STOP = 0;
/** Bumped when a plan is posted and when the worker is stopped; it rests on it. */
const SIGNAL = 1;
/** The plan the session thread posted last, and the index in it of the file the real read takes now. */
const PLAN = 2;
const REACHED = 3;

const WORKER_SOURCE = `
const { workerData, parentPort, receiveMessageOnPort } = require('node:worker_threads');
const fs = require('node:fs');
const control = new Int32Array(workerData.control);
const bytes_read = new BigInt64Array(workerData.bytes_read);
const chunk = Buffer.allocUnsafe(${CHUNK_BYTES});
let plan = { id: -1, files: [] };
// read_ends[i]: the bytes read ahead of the plan's files 0 to i.
let read_ends = [];
let next = 0;
const passed = (bytes) => { read_ends[next] = (next === 0 ? 0 : read_ends[next - 1]) + bytes; next += 1; };
const taken = () => Atomics.load(control, ${PLAN}) === plan.id ? Atomics.load(control, ${REACHED}) : -1;
function readAhead(file, size_bytes) {
  let fd;
  let position = 0;
  // Non-blocking, and only a regular file: a FIFO or a device named as a WAL must not hold this thread.
  try { fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK); } catch { return 0; }
  try {
    if (!fs.fstatSync(fd).isFile()) return 0;
    while (position < size_bytes && Atomics.load(control, ${STOP}) === 0 && taken() < next) {
      const count = fs.readSync(fd, chunk, 0, Math.min(${CHUNK_BYTES}, size_bytes - position), position);
      if (count === 0) break;
      position += count;
      Atomics.add(bytes_read, 0, BigInt(count));
    }
  } catch {
  } finally {
    fs.closeSync(fd);
  }
  return position;
}
while (Atomics.load(control, ${STOP}) === 0) {
  const signal = Atomics.load(control, ${SIGNAL});
  for (let message = receiveMessageOnPort(parentPort); message !== undefined; message = receiveMessageOnPort(parentPort)) {
    plan = message.message;
    read_ends = [];
    next = 0;
  }
  const reached = taken();
  while (next <= reached) passed(0);
  const ahead_bytes = reached >= 0 && next > reached + 1 ? read_ends[next - 1] - read_ends[reached] : 0;
  const file = plan.files[next];
  if (reached < 0 || file === undefined || (ahead_bytes > 0 && ahead_bytes + file.size_bytes > workerData.bytes_ahead_max)) {
    Atomics.wait(control, ${SIGNAL}, signal, ${REST_MS});
    continue;
  }
  passed(readAhead(file.path, file.size_bytes));
}
`;

/** A worker thread reading ahead, in the real read's order, the files it takes next. */
export class ReadAhead {
  private readonly control = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  private readonly bytes_read_ = new BigInt64Array(new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker | null;
  private plan_id = 0;
  /** Settles when the worker has exited (or never started). */
  readonly exited: Promise<void>;

  constructor(private readonly bytes_ahead_max = READ_AHEAD_BYTES_MAX) {
    Atomics.store(this.control, PLAN, -1);
    // One that cannot start, or fails, only reads nothing ahead.
    const worker = startScriptWorker(WORKER_SOURCE, { control: this.control.buffer, bytes_read: this.bytes_read_.buffer, bytes_ahead_max });
    this.worker = worker;
    this.exited = worker === null ? Promise.resolve() : new Promise((resolve) => worker.once('exit', () => resolve()));
  }

  /** Bytes read ahead so far (what the tests count). */
  get bytes_read(): number {
    return Number(Atomics.load(this.bytes_read_, 0));
  }

  /** The files the real read takes from now, in its order, the first being the one it takes now; replaces the
   *  plan before. Each is read ahead up to the bound. */
  plan(files: readonly AheadFile[]): void {
    if (this.worker === null) return;
    const capped = files.map((file) => ({ path: file.path, size_bytes: Math.min(Math.max(0, file.size_bytes), this.bytes_ahead_max) }));
    this.plan_id += 1;
    this.worker.postMessage({ id: this.plan_id, files: capped });
    Atomics.store(this.control, REACHED, 0);
    Atomics.store(this.control, PLAN, this.plan_id);
    this.wake();
  }

  /** The real read takes the plan's file at `index` now: what is before it is no longer read ahead, and the
   *  bytes ahead are counted from it. */
  reached(index: number): void {
    Atomics.store(this.control, REACHED, index);
  }

  close(): void {
    Atomics.store(this.control, STOP, 1);
    this.wake();
  }

  private wake(): void {
    Atomics.add(this.control, SIGNAL, 1);
    Atomics.notify(this.control, SIGNAL);
  }
}

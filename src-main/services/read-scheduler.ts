// The order and the shape of a workspace's background reads: which session is read next (the one in the middle
// of its read, else the most recently written that needs one), in which slices, on which digest worker, and the
// read-ahead that warms the page cache for the WALs after it. The service runs the reads (one slice a turn of
// the event loop) and tells this what it did; this holds no fold and reads no WAL itself.
import fs from 'node:fs';
import { RunDigests, VERIFY_DIGEST_WORKER_FILE_BYTES_MIN } from '../engine/index.js';
import { ReadAhead } from './read-ahead.js';
import type { SessionModel } from './session-model.js';
import type { ReadPlan } from './session-tailer.js';

/** A background read takes about this many bytes of one WAL in its first turn of the event loop, twice as many
 *  in each turn after, up to READ_SLICE_BYTES_MAX: a request waits for at most the slice under way, so a session
 *  asked for early in a read is answered soon, and later slices are larger because each slice costs more than
 *  its bytes (the frame cut at its end is read again by the next; its first large frame is hashed here before
 *  the digest worker wakes: on the 1 GiB session, 8 MiB slices read 115 MiB and hashed here 150 MiB more than
 *  one read, 32 MiB slices 25 and 70 MiB more). */
export const READ_SLICE_BYTES = 8 * 1_048_576;
export const READ_SLICE_BYTES_MAX = 32 * 1_048_576;
/** A root's background reads read the next WALs ahead (read-ahead.ts) when the WALs after the first hold at
 *  least this many bytes: fewer are not worth a thread's start, and are read soon enough anyway. */
export const READ_AHEAD_BYTES_MIN = 16 * 1_048_576;

/** The sessions needing a read, in the order the background reads take them, and how far those have got. */
interface ReadOrder {
  models: SessionModel[];
  next: number;
  /** The WALs after the first hold READ_AHEAD_BYTES_MIN or more. */
  read_ahead: boolean;
}

export class ReadScheduler {
  /** Read-ahead workers started, and the bytes the ended ones read. */
  private read_ahead_started = 0;
  private read_ahead_ended_bytes = 0;
  /** The session the background reads are in the middle of. */
  private reading: SessionModel | null = null;
  /** The slices the background read of `reading` has taken so far (they grow, READ_SLICE_BYTES). */
  private slices: { model: SessionModel; taken: number } | null = null;
  /** The background reads' digest worker (engine/digest-runs.ts: every frame hashed ahead of the fold, as in
   *  `replay`), for WALs from VERIFY_DIGEST_WORKER_FILE_BYTES_MIN: kept across the slices of one read and the
   *  reads after it, so its start is paid once a busy spell; ended when every session is read and when the
   *  service closes (`idle`). */
  private digest_worker: RunDigests | null = null;
  /** The sessions needing a read, most recently written first, and how far the background reads have got:
   *  sorted once rather than searched at every read (a root of 2,000 sessions: 4 million looks, ~0.3 s). Dropped
   *  when a session may need a read again (`reorder`), and when it is used up. */
  private read_order: ReadOrder | null = null;
  /** The read-ahead (read-ahead.ts), and the read order its plan follows from which place. */
  private read_ahead: { worker: ReadAhead; order: ReadOrder; from: number } | null = null;

  /** Read-ahead workers started, and the bytes they read so far (the one at work included), for the tests. */
  get read_ahead_counts(): Readonly<{ started: number; bytes: number }> {
    return { started: this.read_ahead_started, bytes: this.read_ahead_ended_bytes + (this.read_ahead?.worker.bytes_read ?? 0) };
  }

  /** `listed` is the workspace's sessions now; `isListed` whether a model is still the one listed under its key. */
  constructor(
    private readonly listed: () => Iterable<SessionModel>,
    private readonly isListed: (model: SessionModel) => boolean,
  ) {}

  /** A session may need a read again (listed anew, its WAL or its lease changed): the order is made again. */
  reorder(): void {
    this.read_order = null;
  }

  /** The session to read a slice of next, with its plan: the one whose read is under way, else the most recently
   *  written that needs a read; null when none does. */
  next(): { model: SessionModel; plan: ReadPlan } | null {
    const reading = this.reading;
    const model = reading !== null && !reading.is_resident && this.isListed(reading) ? reading : this.nextUnread();
    if (model === null) return null;
    this.reading = model;
    return { model, plan: this.planOf(model) };
  }

  /** `model` was asked for before its read ended: its read goes on next, in slices. */
  readFirst(model: SessionModel): void {
    this.reading = model;
  }

  /** `model`'s read reached the end of its WAL. */
  readDone(model: SessionModel): void {
    if (this.reading === model) this.reading = null;
    if (this.slices?.model === model) this.slices = null;
  }

  /** Every session is read, or the service closes: the workers end. */
  idle(): void {
    this.digest_worker?.close();
    this.digest_worker = null;
    this.endReadAhead();
  }

  /** A background read's next slice, its digests checked on the kept worker when its WAL is big enough. */
  private planOf(model: SessionModel): ReadPlan {
    const taken = this.slices?.model === model ? this.slices.taken : 0;
    this.slices = { model, taken: taken + 1 };
    const slice_bytes = Math.min(READ_SLICE_BYTES_MAX, READ_SLICE_BYTES * 2 ** taken);
    if ((walSizeOf(model) ?? 0) < VERIFY_DIGEST_WORKER_FILE_BYTES_MIN) return { slice_bytes };
    // Its worker starts now and is not waited for: the first slice hashes in place until it runs, rather than
    // stall a request behind the worker's start.
    this.digest_worker ??= new RunDigests();
    return { slice_bytes, digest_worker: this.digest_worker };
  }

  /** The session needing a read that was written to most recently. */
  private nextUnread(): SessionModel | null {
    for (;;) {
      this.read_order ??= this.readOrder();
      const order = this.read_order;
      if (order.models.length === 0) return null;
      for (; order.next < order.models.length; order.next++) {
        const model = order.models[order.next]!;
        if (!model.needs_read || !this.isListed(model)) continue;
        this.readAheadOf(order);
        return model;
      }
      // Used up: sorted again, so that a session that came to need a read unannounced is not missed.
      this.read_order = null;
    }
  }

  /** The background read takes the read order's next session: the WALs after it are read ahead, when they are
   *  enough to be worth a thread. */
  private readAheadOf(order: ReadOrder): void {
    if (this.read_ahead?.order === order) {
      this.read_ahead.worker.reached(order.next - this.read_ahead.from);
      return;
    }
    if (!order.read_ahead) {
      this.endReadAhead();
      return;
    }
    const files = order.models.slice(order.next).map((model) => ({ path: model.target.wal_path, size_bytes: listedSizeOf(model) }));
    let worker = this.read_ahead?.worker;
    if (worker === undefined) {
      worker = new ReadAhead();
      this.read_ahead_started += 1;
    }
    worker.plan(files);
    this.read_ahead = { worker, order, from: order.next };
  }

  private endReadAhead(): void {
    if (this.read_ahead === null) return;
    this.read_ahead.worker.close();
    this.read_ahead_ended_bytes += this.read_ahead.worker.bytes_read;
    this.read_ahead = null;
  }

  private readOrder(): ReadOrder {
    const activity = (model: SessionModel) => model.summary().last_activity_ms ?? 0;
    const models = [...this.listed()].filter((model) => model.needs_read).sort((a, b) => activity(b) - activity(a));
    const bytes_after_first = models.slice(1).reduce((sum, model) => sum + listedSizeOf(model), 0);
    return { models, next: 0, read_ahead: bytes_after_first >= READ_AHEAD_BYTES_MIN };
  }
}

/** The size of `model`'s WAL as last listed or read. */
function listedSizeOf(model: SessionModel): number {
  return model.summary().size_bytes;
}

function walSizeOf(model: SessionModel): number | null {
  try {
    return fs.statSync(model.target.wal_path).size;
  } catch {
    return null;
  }
}

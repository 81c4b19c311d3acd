// Tails one WAL: each refresh decodes only the bytes appended since the last one (the reader's checkpoint),
// feeds the new frames to the replay fold and the record index, and notices when the file was cut back (a
// writer truncating a torn tail under its lease) or replaced, in which case it starts over from offset 0.
// A partial frame at the end of a live WAL is a tail in progress: the checkpoint stays before it.
import fs from 'node:fs';
import type { FoldChanges, SessionFold } from '../../src-shared/replay.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import {
  readTarget, type WalTarget, type RunDigests, nodeFileIO, type FileIO, cappedFileIO, FRAME_DIGEST_BYTES, LineageFacts,
  type LineageRead, type ReadCheckpoint, type ReadResult, type LeaseProbe,
} from '../engine/index.js';
import { keptFacts, SessionFolder } from '../replay/fold.js';
import { IncrementalSums } from '../views/incremental-sums.js';
import { RecordIndex } from './record-index.js';

/** Progress is reported at most once per this many bytes read. */
const PROGRESS_STEP_BYTES = 4 * 1_048_576;

export interface TailProgress {
  done_bytes: number;
  total_bytes: number;
}

export interface TailUpdate {
  /** New frames since the previous refresh (after a restart: every frame). */
  frames_added: number;
  /** The file was cut back or replaced and the view restarted from offset 0. */
  restarted: boolean;
  /** The read reached the end of the file (false after a slice that stopped short of it). */
  complete: boolean;
}

/** How one refresh reads. */
export interface ReadPlan {
  /** At most about this many bytes of what was appended: a big first read is done in slices, so the worker
   *  answers requests between them. */
  slice_bytes?: number;
  /** Digests checked on this worker thread (engine/digest-runs.ts), which the caller keeps across the slices
   *  of a read so that its start is paid once. */
  digest_worker?: RunDigests;
  /** The lease as the caller probed it for this refresh: the read does not probe it again. */
  lease?: LeaseProbe;
}

interface FileMark {
  inode: number;
  /** The digest that ends the last frame read: if those bytes changed, the file was rewritten. */
  last_digest: Buffer | null;
}

export class SessionTailer {
  private folder: SessionFolder;
  private index_ = new RecordIndex();
  /** The lineage's facts for the History panel, gathered in this one read: getHistory does not read it again. */
  private lineage_facts = new LineageFacts();
  private checkpoint: ReadCheckpoint | null = null;
  private mark: FileMark | null = null;
  private last: ReadResult | null = null;
  private fold_cache: SessionFold | null = null;
  /** The last snapshot, kept after new frames so the next one reuses its untouched episodes. */
  private fold_previous: SessionFold | null = null;
  /** What the last snapshot changed against the one before it (null before the first, and for `finalFold`). */
  private changes_: FoldChanges | null = null;
  /** The snapshot `changes_` was made against. */
  private changes_base: SessionFold | null = null;
  /** The fold was finished in place (`finalFold`): the next refresh starts over. */
  private spent = false;
  /** Episodes the fold snapshots re-copied and re-classified, over this tailer's life. */
  episodes_rebuilt = 0;
  /** Steps, batches, steers and approvals those episodes' copies made anew (the rest were shared with the
   *  snapshot before), over this tailer's life. */
  parts_copied = 0;

  /** `io`: the file system seam every read of the WAL goes through (tests count the opens). `sums`: the session's
   *  store, which its folder tells what each episode copy was made from. */
  constructor(
    readonly target: WalTarget,
    private readonly io: FileIO = nodeFileIO,
    readonly sums: IncrementalSums = new IncrementalSums(),
  ) {
    this.folder = new SessionFolder(sums);
  }

  get index(): RecordIndex {
    return this.index_;
  }

  /** The last read's outcome: integrity, counts, checkpoint. null before the first refresh. */
  get read(): ReadResult | null {
    return this.last;
  }

  /** The live lineage as read so far (all of it once the read is complete); null before the first refresh. */
  get lineage(): LineageRead | null {
    return this.last === null ? null : { read: this.last, ...this.lineage_facts.value };
  }

  /** Payloads the lineage's facts read a second time (the fold built the rest), this read. */
  get facts_projected(): number {
    return this.lineage_facts.projected;
  }

  get bytes_read(): number {
    return this.last?.bytes ?? 0;
  }

  /** The fold of every frame read so far, classified; cached until the next frame arrives, and then remade
   *  from the last one: only the episodes the new frames reached are copied again. */
  fold(): SessionFold {
    if (this.fold_cache !== null) return this.fold_cache;
    const { fold, changes, parts_copied } = this.folder.snapshotSince(this.fold_previous);
    this.episodes_rebuilt += changes.episodes.length;
    this.changes_ = changes;
    this.changes_base = this.fold_previous;
    this.parts_copied += parts_copied;
    this.fold_cache = fold;
    this.fold_previous = fold;
    return fold;
  }

  /** What `fold()` changed against the snapshot before it (FoldChanges); null when it was not made by `fold()`. */
  get changes(): FoldChanges | null {
    return this.fold_cache !== null && this.fold_cache === this.fold_previous ? this.changes_ : null;
  }

  /** What `fold()` changed against `base`, an earlier snapshot; null when it was not made from that one. */
  changesAgainst(base: SessionFold): FoldChanges | null {
    return this.changes !== null && this.changes_base === base ? this.changes_ : null;
  }

  /** The fold classified in place, not copied, for a read whose views are dropped once its summary is made (a
   *  background read of a session nobody has open): a copy of every episode would be made for nothing. */
  finalFold(): SessionFold {
    if (this.fold_cache !== null) return this.fold_cache;
    this.spent = true;
    this.fold_cache = this.folder.finish();
    return this.fold_cache;
  }

  /** Reads what was appended since the last refresh, as `plan` says, through one open of the WAL: the check that
   *  it is the file read before, the read of what was appended and the mark of where it ended all use it. */
  refresh(on_progress?: (progress: TailProgress) => void, plan: ReadPlan = {}): TailUpdate {
    const file = openWal(this.io, this.target.wal_path);
    try {
      return this.readOn(file, on_progress, plan);
    } finally {
      if (file !== null) this.io.close(file.fd);
    }
  }

  /** `file`: the WAL as this refresh opened it; null when it could not be (the read says why). */
  private readOn(file: OpenWal | null, on_progress: ((progress: TailProgress) => void) | undefined, plan: ReadPlan): TailUpdate {
    const restarted = this.spent || this.needsRestart(file);
    if (restarted) this.reset();
    const before = this.index_.length;
    let next_report = (this.checkpoint?.offset ?? 0) + PROGRESS_STEP_BYTES;
    const total_bytes = file?.size_bytes ?? 0;
    // Payloads are not built by the reader: the fold decodes what it keeps in the pass that validates them and
    // leaves tool outputs on disk, so reading a 1 GiB session builds no 1 GB of output strings.
    const on_frame = (frame: ReadFrame, payload_cbor: Buffer, kept?: unknown): void => {
      this.folder.push(frame, payload_cbor, kept);
      this.index_.push(frame);
      // The facts' members come from what the fold built of the payload: no second pass over it.
      this.lineage_facts.push(frame, payload_cbor, keptFacts(frame, kept));
      if (on_progress !== undefined && frame.offset >= next_report) {
        next_report = frame.offset + PROGRESS_STEP_BYTES;
        on_progress({ done_bytes: frame.offset, total_bytes });
      }
    };
    const start = this.checkpoint?.offset ?? 0;
    const { slice_bytes, digest_worker, lease } = plan;
    const capped = slice_bytes !== undefined && start + slice_bytes < total_bytes;
    const io = capped ? cappedFileIO(this.io, start + slice_bytes) : this.io;
    const from = this.checkpoint ?? undefined;
    const read = readTarget(this.target, { io, fd: file?.fd, lease, on_frame, with_payload: false, decode_payload: this.folder.decodePayload, digest_worker, from });
    // A slice's reader sees the file end at the slice's cap: the file's size is what a read reports of it (a
    // session refused in the middle of a slice showed the cap as its size, and cached its summary under it).
    const result = capped ? { ...read, bytes: total_bytes } : read;
    this.last = result;
    this.checkpoint = result.checkpoint;
    this.mark = this.checkpoint === null || file === null ? null : { inode: file.inode, last_digest: digestBefore(this.io, file.fd, this.checkpoint.offset) };
    const frames_added = this.index_.length - before;
    // A frame larger than the slice: read on to the end rather than stand still.
    if (capped && frames_added === 0 && result.checkpoint !== null) return { ...this.readOn(file, on_progress, { digest_worker, lease }), restarted };
    if (frames_added > 0 || restarted) this.fold_cache = null;
    return { frames_added, restarted, complete: !capped || read.checkpoint === null || read.bytes >= total_bytes };
  }

  /** Restart from 0 when the last read was refused (the refusal may be gone), or the file shrank below the
   *  checkpoint, or it is another file, or the bytes before the checkpoint are not the ones we read. */
  private needsRestart(file: OpenWal | null): boolean {
    if (this.last === null) return false;
    if (this.checkpoint === null || this.mark === null || file === null) return true;
    if (file.inode !== this.mark.inode || file.size_bytes < this.checkpoint.offset) return true;
    if (this.mark.last_digest === null) return false;
    const now = digestBefore(this.io, file.fd, this.checkpoint.offset);
    return now === null || !now.equals(this.mark.last_digest);
  }

  private reset(): void {
    this.folder = new SessionFolder(this.sums);
    this.index_ = new RecordIndex();
    this.lineage_facts = new LineageFacts();
    this.checkpoint = null;
    this.mark = null;
    this.fold_cache = null;
    this.fold_previous = null;
    this.changes_ = null;
    this.changes_base = null;
    this.spent = false;
  }
}

/** The WAL as one refresh opened it. */
interface OpenWal {
  fd: number;
  inode: number;
  size_bytes: number;
}

/** null when the WAL cannot be opened or looked at now. */
function openWal(io: FileIO, file: string): OpenWal | null {
  let fd: number;
  try {
    fd = io.open(file, 'read');
  } catch {
    return null;
  }
  try {
    // The seam has no inode (a look, not an effect): the path's, once the file is open. A file replaced between the
    // two is not the one read, and the next refresh's check of the bytes before its checkpoint starts it over.
    return { fd, inode: fs.statSync(file).ino, size_bytes: io.fstat(fd).size_bytes };
  } catch {
    io.close(fd);
    return null;
  }
}

/** The digest that ends the frame ending at `offset`: null before the first frame's end, or when the file is
 *  shorter. */
function digestBefore(io: FileIO, fd: number, offset: number): Buffer | null {
  if (offset < FRAME_DIGEST_BYTES) return null;
  const digest = Buffer.alloc(FRAME_DIGEST_BYTES);
  const count = io.read(fd, digest, 0, FRAME_DIGEST_BYTES, offset - FRAME_DIGEST_BYTES);
  return count === FRAME_DIGEST_BYTES ? digest : null;
}

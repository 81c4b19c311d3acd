// The WAL reader (wal-format §5). It streams: memory is bounded by the largest frame plus one read chunk,
// never by the file's size. It never writes, truncates, creates or locks anything, and it never throws on bad
// data: every way a WAL can be refused comes back as a typed `error`, and a torn tail comes back as a report
// of the bytes it discarded and why.
import assert from 'node:assert/strict';
import type {
  DamageReason,
  DigestAlgorithmName,
  InProgressTail,
  ReadFrame,
  TornTail,
  WalErrorInfo,
  WalErrorKind,
} from '../../src-shared/wal.js';
import { describe } from './errors.js';
import { unknownFeatures } from './features.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { IN_PLACE_DIGESTS, type DigestStage, type WindowView } from './digest-stage.js';
import { RunDigests } from './digest-runs.js';
import { digestAlgorithmName } from './digest.js';
import { notAWal, SNIFF_BYTES } from './not-a-wal.js';
import { BodyFields, checkedFrameSize, checkFrameAt, checkHeader, decodeBodyInto, type BodyRefusal, type PayloadDecoder } from './frame-codec.js';
import {
  FRAME_BYTES_MAX,
  FRAME_DIGEST_BYTES,
  FRAME_HEADER_BYTES,
  FRAME_MAGIC,
  FRAME_VER_PLAIN,
  READ_CHUNK_BYTES,
} from './limits.js';
import { ScanBudget, unprovenText } from './scan-budget.js';

/** Where a read stopped cleanly, so a tailer can read on from there when the file grows. */
export interface ReadCheckpoint {
  offset: number;
  wal_id: Uint8Array | null;
  frames: number;
  records: number;
  last_seq: number;
  max_fence: number;
  digest_algorithms: DigestAlgorithmName[];
  features: string[];
}

export interface ReadOptions {
  io?: FileIO;
  /** A descriptor open on the WAL already, read through rather than opening it again; the caller's, left open (a
   *  tailer checks what it read before and reads on through the one open a refresh makes). */
  fd?: number;
  /** Build each frame's payload (default). False validates payloads without building them, for `verify`. */
  with_payload?: boolean;
  /** A live writer holds the WAL: a partial frame at the end is a tail in progress, not damage. */
  live?: boolean;
  /** The state root's feature floor, checked before any frame is read. */
  floor_features?: readonly string[];
  /** Called for every intact frame, lineage frames included, in file order. `payload_cbor` is the payload map's
   *  CBOR, already validated: a view into the reader's buffer, valid only during the call. `kept` is what
   *  `decode_payload` built of it. */
  on_frame?: (frame: ReadFrame, payload_cbor: Buffer, kept?: unknown) => void;
  /** With `with_payload` false: builds what the caller keeps of each payload (the fold) in the one pass that
   *  validates it, rather than a validating pass and then a building one. */
  decode_payload?: PayloadDecoder;
  /** Continue a previous read from its checkpoint instead of from offset 0. */
  from?: ReadCheckpoint;
  /** Check every frame's digest on a worker that walks each chunk's frames ahead of the reader (digest-runs.ts)
   *  when the file has at least this many bytes; absent: in place. */
  digest_runs_from_bytes?: number;
  /** Check digests on this worker, which the caller keeps across reads (the slices of a big read, the reads
   *  of a busy spell) so that its start is paid once: the read releases it when it ends, never closes it. */
  digest_worker?: RunDigests;
  /** The scan after a damaged frame hashes every candidate, bounded by the file alone, not by the budget of
   *  scan-budget.ts (`verify --full-scan`: an operator who asked for it waits for it). */
  full_tail_scan?: boolean;
}

export interface ReadResult extends Omit<ReadCheckpoint, 'offset'> {
  bytes: number;
  valid_bytes: number;
  torn_tail: TornTail | null;
  in_progress_tail: InProgressTail | null;
  error: WalErrorInfo | null;
  /** Present when the read ended without a refusal: where the next read of a growing file starts. */
  checkpoint: ReadCheckpoint | null;
}

export function readWal(path: string, options: ReadOptions = {}): ReadResult {
  const io = options.io ?? nodeFileIO;
  const state = initialState(options.from);
  const floorUnknown = unknownFeatures(options.floor_features ?? []);
  if (floorUnknown.length > 0) {
    return finish(state, 0, {
      kind: 'newer_writer',
      offset: null,
      seq: null,
      features: floorUnknown,
      message: `the state root's feature floor names ${floorUnknown.join(', ')}, which this build does not know: a newer walscope is needed`,
    });
  }
  let fd: number;
  try {
    fd = options.fd ?? io.open(path, 'read');
  } catch (error) {
    return finish(state, 0, ioError(`cannot open ${path}: ${describe(error)}`));
  }
  let started: RunDigests | null = null;
  try {
    const size_bytes = io.fstat(fd).size_bytes;
    started = options.digest_worker === undefined ? startedStage(options, size_bytes) : null;
    const digests = options.digest_worker ?? started;
    const window = new FileWindow(io, fd, size_bytes, digests ?? undefined);
    return new WalScan(window, state, options, digests ?? IN_PLACE_DIGESTS).run();
  } catch (error) {
    return finish(state, 0, ioError(`cannot read ${path}: ${describe(error)}`));
  } finally {
    started?.close();
    // A kept worker hashes nothing past its read: the next read may refill either buffer.
    options.digest_worker?.release();
    if (options.fd === undefined) io.close(fd);
  }
}

/** The digest stage a read starts for itself, if any (see `digest_runs_from_bytes`). */
function startedStage(options: ReadOptions, size_bytes: number): RunDigests | null {
  return size_bytes >= (options.digest_runs_from_bytes ?? Number.POSITIVE_INFINITY) ? new RunDigests() : null;
}

interface ScanState extends ReadCheckpoint {
  algorithms: Set<DigestAlgorithmName>;
  feature_set: Set<string>;
}

function initialState(from: ReadCheckpoint | undefined): ScanState {
  const base: ReadCheckpoint = from ?? {
    offset: 0,
    wal_id: null,
    frames: 0,
    records: 0,
    last_seq: 0,
    max_fence: 0,
    digest_algorithms: [],
    features: [],
  };
  // Named field by field, not spread from `base`: a spread's result takes its shape from its source (a literal
  // here, a checkpoint there), and the frame loop reading it was re-optimized at every read of the service's slices.
  const { offset, wal_id, frames, records, last_seq, max_fence, digest_algorithms, features } = base;
  return { offset, wal_id, frames, records, last_seq, max_fence, digest_algorithms, features, algorithms: new Set(digest_algorithms), feature_set: new Set(features) };
}

/** The result of a read refused before any frame: a missing floor, an unreadable file. */
export function refusedRead(error: WalErrorInfo): ReadResult {
  return finish(initialState(undefined), 0, error);
}

export function ioError(message: string): WalErrorInfo {
  return { kind: 'io', offset: null, seq: null, features: [], message };
}

function finish(
  state: ScanState,
  bytes: number,
  error: WalErrorInfo | null,
  tails: { torn_tail?: TornTail; in_progress_tail?: InProgressTail } = {},
): ReadResult {
  const checkpoint: ReadCheckpoint = {
    offset: state.offset,
    wal_id: state.wal_id,
    frames: state.frames,
    records: state.records,
    last_seq: state.last_seq,
    max_fence: state.max_fence,
    digest_algorithms: [...state.algorithms].sort(),
    features: [...state.feature_set].sort(),
  };
  const { offset: valid_bytes, ...counts } = checkpoint;
  return {
    ...counts,
    bytes,
    valid_bytes,
    torn_tail: tails.torn_tail ?? null,
    in_progress_tail: tails.in_progress_tail ?? null,
    error,
    checkpoint: error === null ? checkpoint : null,
  };
}

const EMPTY_WINDOW = Buffer.alloc(0);

/** A sliding window over the file: holds at least the bytes asked for, reading forward in chunks. */
class FileWindow implements WindowView {
  /** Valid from index 0 to `end - start`; replaced when a load needs more than it holds (never, for the shared
   *  buffers of a digest worker, which hold the most the window can). Empty until the first load, which makes it
   *  as large as that load: a live tail's read of a few records was a 4 MiB buffer an append, off the heap, and
   *  that much external memory a refresh made the session worker collect its young generation at every one. */
  buffer: Buffer;
  private start_offset = 0;
  private end = 0;
  /** With a digest worker: the buffer the next chunk is read into while the worker hashes this one, and the
   *  file's bytes it holds, [ahead_start, ahead_end). */
  private ahead: Buffer | null;
  private ahead_start = 0;
  private ahead_end = 0;

  /** `shared`: the digest worker's two buffers, and what must run before one is overwritten (the worker may
   *  still be reading it). */
  constructor(
    private readonly io: FileIO,
    private readonly fd: number,
    readonly size_bytes: number,
    private readonly shared?: { buffers: readonly [Buffer, Buffer]; release(): void },
  ) {
    this.buffer = shared?.buffers[0] ?? EMPTY_WINDOW;
    this.ahead = shared?.buffers[1] ?? null;
  }

  get start(): number {
    return this.start_offset;
  }

  get valid_end(): number {
    return this.end - this.start_offset;
  }

  /** The file's bytes [offset, offset + length), length capped at the end of the file. */
  slice(offset: number, length: number): Buffer {
    const at = this.locate(offset, length);
    return this.buffer.subarray(at, at + Math.min(length, this.size_bytes - offset));
  }

  /** Where the file's bytes [offset, offset + length) (capped at the end of the file) are in `buffer`, loading
   *  them first if needed. Valid until the next call: the per-frame path reads through it without a slice. */
  locate(offset: number, length: number): number {
    const wanted_end = Math.min(offset + length, this.size_bytes);
    assert.ok(wanted_end - offset <= FRAME_BYTES_MAX + READ_CHUNK_BYTES, 'window request beyond the frame bound');
    if (offset < this.start_offset || wanted_end > this.end) this.load(offset, wanted_end);
    return offset - this.start_offset;
  }

  readAhead(offset: number): number {
    if (this.ahead === null) return 0;
    const fill_end = Math.min(offset + READ_CHUNK_BYTES, this.size_bytes);
    this.ahead_start = offset;
    this.ahead_end = offset; // empty until filled, should a read fail
    this.fill(this.ahead, 0, offset, fill_end);
    this.ahead_end = fill_end;
    return fill_end - offset;
  }

  private load(offset: number, wanted_end: number): void {
    // Moving to the chunk read ahead writes nothing: the worker may go on hashing either buffer.
    if (this.ahead !== null && offset >= this.ahead_start && wanted_end <= this.ahead_end) {
      [this.buffer, this.ahead] = [this.ahead, this.buffer];
      this.start_offset = this.ahead_start;
      this.end = this.ahead_end;
      this.ahead_end = this.ahead_start;
      return;
    }
    this.shared?.release();
    const fill_end = Math.min(Math.max(wanted_end, offset + READ_CHUNK_BYTES), this.size_bytes);
    const needed_bytes = fill_end - offset;
    const target = needed_bytes > this.buffer.length ? Buffer.allocUnsafe(needed_bytes) : this.buffer;
    let kept_bytes = 0;
    if (offset >= this.start_offset && offset < this.end) {
      kept_bytes = this.end - offset;
      this.buffer.copy(target, 0, offset - this.start_offset, this.end - this.start_offset);
    }
    this.buffer = target;
    this.fill(target, kept_bytes, offset, fill_end);
    this.start_offset = offset;
    this.end = fill_end;
  }

  /** Reads the file's bytes [offset + filled, fill_end) into `target` from index `filled`. */
  private fill(target: Buffer, filled: number, offset: number, fill_end: number): void {
    const needed_bytes = fill_end - offset;
    while (filled < needed_bytes) {
      const count = this.io.read(this.fd, target, filled, needed_bytes - filled, offset + filled);
      if (count === 0) throw new Error(`file shrank while being read: ended at ${offset + filled}, expected ${fill_end}`);
      filled += count;
    }
  }
}

/** `readFrameAt`'s answer when the frame stopped the read (`WalScan.stopped` says how). */
const STOPPED = -1;

class WalScan {
  private readonly with_payload: boolean;
  /** Copied from `options` once: the options object is made anew for each read (each slice of the service's
   *  read), and a hot path that reads it sees a new map and falls back to unoptimized code at every read. */
  private readonly on_frame: ReadOptions['on_frame'];
  private readonly decode_payload: ReadOptions['decode_payload'];
  /** The frame being judged: one for the whole read, refilled for every frame. */
  private readonly frame = new JudgedFrame();
  /** How the read ended, once a frame ended it. */
  private stopped: ReadResult | null = null;

  constructor(
    private readonly window: FileWindow,
    private readonly state: ScanState,
    private readonly options: ReadOptions,
    private readonly digests: DigestStage,
  ) {
    this.with_payload = options.with_payload ?? true;
    this.on_frame = options.on_frame;
    this.decode_payload = options.decode_payload;
  }

  run(): ReadResult {
    // Rule 0 judges the first bytes from the window the first frame is read through: no read of its own.
    const not_a_wal = this.state.offset === 0 && this.window.size_bytes > 0 ? notAWal(this.window.slice(0, SNIFF_BYTES)) : null;
    if (not_a_wal !== null) return finish(this.state, this.window.size_bytes, not_a_wal);
    while (this.state.offset < this.window.size_bytes) {
      const next_offset = this.readFrameAt(this.state.offset);
      if (this.stopped !== null) return this.stopped;
      assert.ok(next_offset > this.state.offset, 'the reader must move forward');
      this.state.offset = next_offset;
    }
    return finish(this.state, this.window.size_bytes, null);
  }

  /** Reads the frame at `offset`: the offset after it, or STOPPED. Numbers and one reused frame rather than a
   *  result object a step: on a million small frames the reader's objects were a sixth of verify. */
  private readFrameAt(offset: number): number {
    const available_bytes = this.window.size_bytes - offset;
    const header_at = this.window.locate(offset, FRAME_HEADER_BYTES);
    const size_bytes = checkedFrameSize(this.window.buffer, available_bytes, header_at);
    if (typeof size_bytes === 'string') return this.stop(this.damaged(offset, size_bytes));
    const algorithm = digestAlgorithmName(this.window.buffer[header_at + 5]!)!;
    const at = this.window.locate(offset, size_bytes);
    const buffer = this.window.buffer;
    const covered_end = at + size_bytes - FRAME_DIGEST_BYTES;
    if (!this.digests.matches(algorithm, this.window, at, covered_end)) return this.stop(this.damaged(offset, 'digest_mismatch'));
    return this.acceptFrame(offset, size_bytes, algorithm, buffer, at + FRAME_HEADER_BYTES, covered_end);
  }

  /** Judges and accepts the digest-valid frame whose body is `buffer[body_start, body_end)`. */
  private acceptFrame(offset: number, size_bytes: number, algorithm: DigestAlgorithmName, buffer: Buffer, body_start: number, body_end: number): number {
    const frame = this.frame;
    const error = judgeFrame(frame, offset, buffer, body_start, body_end, this.with_payload, this.state, this.decode_payload);
    if (error !== null) return this.stop(finish(this.state, this.window.size_bytes, error));
    if (frame.seq === 0 && this.state.wal_id === null) this.state.wal_id = frame.lineage_wal_id;
    this.state.frames += 1;
    if (frame.seq > 0) {
      this.state.records += 1;
      this.state.last_seq = frame.seq;
    }
    this.state.max_fence = Math.max(this.state.max_fence, frame.fence);
    this.state.algorithms.add(algorithm);
    // by index: a for-of made an iterator a frame (verify's scavenges of the million records 73 → 52)
    for (let index = 0; index < frame.features.length; index++) this.state.feature_set.add(frame.features[index]!);
    const on_frame = this.on_frame;
    if (on_frame !== undefined) {
      const { ver, seq, fence, type, features, payload } = frame;
      on_frame({ offset, size_bytes, digest_algorithm: algorithm, ver, seq, fence, type, features, payload }, buffer.subarray(body_start + frame.payload_at, body_end), frame.kept);
    }
    return offset + size_bytes;
  }

  private stop(result: ReadResult): number {
    this.stopped = result;
    return STOPPED;
  }

  private refuse(kind: WalErrorKind, offset: number, seq: number | null, features: string[], message: string): ReadResult {
    return finish(this.state, this.window.size_bytes, { kind, offset, seq, features, message });
  }

  /** A damaged frame: a torn tail if nothing trustworthy follows it, non-tail corruption otherwise, and its own
   *  refusal when the scan's budget ran out before it could tell. */
  private damaged(offset: number, reason: DamageReason): ReadResult {
    const bytes = this.window.size_bytes - offset;
    const budget = new ScanBudget(bytes - 1, this.options.full_tail_scan === true);
    const after = new TailScan(this.window, this.state.wal_id, this.state.last_seq, budget).scanFrom(offset + 1);
    const damage = `at offset ${offset} (${reason.replaceAll('_', ' ')})`;
    if (after.kind === 'corruption') {
      // What to do is each surface's to say (src-shared/status.ts WHAT_TO_DO): the message says what was found.
      return this.refuse('non_tail_corruption', offset, null, [], `non-tail corruption ${damage}: ${after.why}${NOT_USED}`);
    }
    if (after.kind === 'unproven') {
      return this.refuse('tail_scan_bound', offset, null, [], unprovenText(`a damaged frame ${damage}`, after.offset, after.why, this.window.size_bytes, 'a torn tail from non-tail corruption'));
    }
    if (this.options.live) return finish(this.state, this.window.size_bytes, null, { in_progress_tail: { offset, bytes } });
    return finish(this.state, this.window.size_bytes, null, {
      torn_tail: { offset, bytes, reason, trailing_lineage: after.trailing_lineage },
    });
  }
}

/** A frame's body as the reader judges it, and the identity a lineage frame claims (null for any other frame). */
class JudgedFrame extends BodyFields {
  lineage_wal_id: Uint8Array | null = null;
}

/** Decodes a body into `into`; lineage frames always get their payload built, since the reader needs their
 *  wal_id (and keep it only when payloads are asked for). */
function decodeLineageAware(
  into: JudgedFrame,
  bytes: Buffer,
  start: number,
  end: number,
  with_payload: boolean,
  decode_payload: PayloadDecoder | undefined,
): BodyRefusal | null {
  into.lineage_wal_id = null;
  const refusal = decodeBodyInto(into, bytes, start, end, with_payload, decode_payload);
  if (refusal !== null || into.seq !== 0) return refusal;
  // Only a seq-0 frame can be a lineage frame; the reader refuses any other that claims to be one.
  if (!with_payload) {
    const kept = into.kept;
    const built = decodeBodyInto(into, bytes, start, end, true);
    if (built !== null) return built;
    into.kept = kept;
  }
  const candidate = into.payload?.['wal_id'];
  into.lineage_wal_id = candidate instanceof Uint8Array && candidate.length === 16 ? candidate : null;
  if (!with_payload) into.payload = null;
  return null;
}

/** How a refusal of the frames from its offset on ends its message. */
const NOT_USED = '; nothing from this offset on is used';

/** A refusal's message as the cause of another: without its lead up to "at offset N: " (the outer message names
 *  the offset) and without NOT_USED (the outer refusal says it, once). */
function causeOf(error: WalErrorInfo): string {
  const lead = `at offset ${error.offset}: `;
  const at = error.message.indexOf(lead);
  const body = at >= 0 && at <= CAUSE_LEAD_CHARS_MAX ? error.message.slice(at + lead.length) : error.message;
  return body.endsWith(NOT_USED) ? body.slice(0, -NOT_USED.length) : body;
}
const CAUSE_LEAD_CHARS_MAX = 40;

function refusedAt(offset: number, kind: WalErrorKind, seq: number | null, features: string[], message: string): WalErrorInfo {
  return { kind, offset, seq, features, message };
}

/** What the frames before a frame have proven: the WAL's identity (once a lineage frame was read) and the last seq. */
interface Proven {
  wal_id: Uint8Array | null;
  last_seq: number;
}

/** Every rule of wal-format §3, §4 and §5 steps 3–4 for one digest-valid frame, whose body is
 *  `bytes[start, end)`, given what precedes it: null when it is accepted (`frame` then holds it: a record when
 *  its seq is not 0, else a lineage frame, whose `lineage_wal_id` is set), else why it is refused. The main
 *  read path and the tail scan both judge frames here, so a frame one of them refuses the other cannot accept. */
function judgeFrame(
  frame: JudgedFrame,
  offset: number,
  bytes: Buffer,
  start: number,
  end: number,
  with_payload: boolean,
  proven: Proven,
  decode_payload?: PayloadDecoder,
): WalErrorInfo | null {
  const decoded = decodeLineageAware(frame, bytes, start, end, with_payload, decode_payload);
  if (decoded?.kind === 'newer_version') return refusedAt(offset, 'newer_writer', null, [], decoded.message);
  if (decoded?.kind === 'malformed') return refusedAt(offset, 'malformed_frame', null, [], `malformed frame at offset ${offset}: ${decoded.message}; the frame is intact (its digest matches) but not of the format's shape — refused, never repaired`);
  const unknown = frame.features.length === 0 ? frame.features : unknownFeatures(frame.features);
  if (unknown.length > 0) {
    return refusedAt(offset, 'newer_writer', frame.seq, unknown, `frame at offset ${offset} (seq ${frame.seq}) requires ${unknown.join(', ')}, which this build does not know: a newer walscope is needed`);
  }
  if (frame.type !== 'lineage' && frame.seq !== 0) {
    if (proven.wal_id === null) return refusedAt(offset, 'malformed_frame', frame.seq, [], `malformed WAL: the first frame (offset ${offset}) is a record, not a lineage frame`);
    const expected = proven.last_seq + 1;
    if (frame.seq !== expected) return refusedAt(offset, 'sequence_error', frame.seq, [], `sequence error at offset ${offset}: seq ${frame.seq} where ${expected} was expected${NOT_USED}`);
    return null;
  }
  if (frame.type !== 'lineage' || frame.seq !== 0 || frame.ver !== FRAME_VER_PLAIN) {
    return refusedAt(offset, 'malformed_frame', frame.seq, [], `malformed frame at offset ${offset}: seq 0 and type "lineage" go together in a ver 2 frame (found seq ${frame.seq}, type "${frame.type}", ver ${frame.ver})`);
  }
  const wal_id = frame.lineage_wal_id;
  if (wal_id === null) return refusedAt(offset, 'malformed_frame', 0, [], `malformed lineage frame at offset ${offset}: wal_id is not a 16-byte byte string`);
  if (proven.wal_id !== null && Buffer.compare(proven.wal_id, wal_id) !== 0) {
    return refusedAt(offset, 'non_tail_corruption', 0, [], `non-tail corruption at offset ${offset}: a lineage frame claims identity ${hex(wal_id)} in a WAL whose identity is ${hex(proven.wal_id)}${NOT_USED}`);
  }
  return null;
}

type TailVerdict = { kind: 'tail'; trailing_lineage: number[] } | { kind: 'corruption'; why: string } | { kind: 'unproven'; offset: number; why: string };

/** The forward scan of wal-format §5 step 2, within its budget so hostile input cannot make it run for ever. */
class TailScan {
  private readonly trailing_lineage: number[] = [];

  constructor(
    private readonly window: FileWindow,
    private readonly proven_wal_id: Uint8Array | null,
    private readonly last_seq: number,
    private readonly budget: ScanBudget,
  ) {}

  scanFrom(start: number): TailVerdict {
    let position = start;
    let claimed_wal_id = this.proven_wal_id;
    while (position + FRAME_HEADER_BYTES <= this.window.size_bytes) {
      const found = this.findMagic(position);
      if (found === null) break;
      const verdict = this.checkCandidate(found, claimed_wal_id);
      if (verdict.kind === 'corruption' || verdict.kind === 'unproven') return verdict;
      if (verdict.kind === 'lineage') {
        this.trailing_lineage.push(found);
        claimed_wal_id = verdict.wal_id;
        position = found + verdict.size_bytes;
      } else {
        position = found + 1;
      }
    }
    return { kind: 'tail', trailing_lineage: this.trailing_lineage };
  }

  private findMagic(from: number): number | null {
    let position = from;
    while (position + FRAME_MAGIC.length <= this.window.size_bytes) {
      const chunk = this.window.slice(position, READ_CHUNK_BYTES);
      const index = chunk.indexOf(FRAME_MAGIC);
      if (index >= 0) return position + index;
      position += Math.max(1, chunk.length - (FRAME_MAGIC.length - 1));
    }
    return null;
  }

  private checkCandidate(
    offset: number,
    claimed_wal_id: Uint8Array | null,
  ): { kind: 'not_a_frame' } | { kind: 'lineage'; wal_id: Uint8Array; size_bytes: number } | { kind: 'corruption'; why: string } | { kind: 'unproven'; offset: number; why: string } {
    const available_bytes = this.window.size_bytes - offset;
    const header = checkHeader(this.window.slice(offset, FRAME_HEADER_BYTES), available_bytes);
    if (typeof header === 'string') return { kind: 'not_a_frame' };
    const spent = this.budget.take(header.size_bytes);
    if (spent !== null) return { kind: 'unproven', offset, why: spent };
    const frame = this.window.slice(offset, header.size_bytes);
    if (checkFrameAt(frame, 0, available_bytes) !== null) return { kind: 'not_a_frame' };
    const judged = new JudgedFrame();
    const error = judgeFrame(judged, offset, frame, FRAME_HEADER_BYTES, header.size_bytes - FRAME_DIGEST_BYTES, false, { wal_id: claimed_wal_id, last_seq: this.last_seq });
    if (error !== null) return { kind: 'corruption', why: `an intact frame follows at offset ${offset} that the reader refuses (${error.kind.replaceAll('_', ' ')}: ${causeOf(error)})` };
    if (judged.seq !== 0) return { kind: 'corruption', why: `an intact record frame follows at offset ${offset}` };
    return { kind: 'lineage', wal_id: judged.lineage_wal_id!, size_bytes: header.size_bytes };
  }
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}

// The fold of a WAL's frames: `foldFrames` is a function of the frames alone; `SessionFolder` builds the same
// fold frame by frame (the app folds a live WAL as it grows), its state the fold so far, and hands out
// read-only snapshots that never change once handed out. It attaches every record to its episode, step, batch and call; classification, the committable
// check and the episode states are derived from that in `snapshot`. Lineage frames, informational records and
// unknown types are kept as references, shown and never acted on (wal-format §5 step 5).
import assert from 'node:assert/strict';
import { appendAll, largest, NONE, withItem } from '../../src-shared/arrays.js';
import { ChunkedList, type Parts } from '../../src-shared/parts.js';
import type {
  ApprovalFold,
  BatchFold,
  CallFold,
  EpisodeChange,
  EpisodeFold,
  FoldChanges,
  JsonPayload,
  JsonValue,
  Live,
  PartChanges,
  QueueEntry,
  RecordRef,
  SessionFold,
  StepFold,
} from '../../src-shared/replay.js';
import type { CborValue, Payload, ReadFrame, WalErrorInfo } from '../../src-shared/wal.js';
import { CborDecoder, CborItemsExceeded, decodeCbor, encodedSize, headBytes, KeysSeen, MAJOR_ARRAY, MAJOR_MAP, MAJOR_TEXT, memberTable, ReadBy, SCALAR, setOwn, ShortText, WHOLE, type CborProjection, type MemberTable } from '../engine/index.js';
import { classifyBatch } from './classify.js';
import { anomaly, checkEpisode } from './committable.js';
import { FullSums, type Sums } from './sums.js';
import { episodeState } from './state.js';
import { replacementDigestOk, VIEW_RECORD_TYPE } from './views.js';
import { toJsonValue } from '../../src-shared/json.js';
import { asInteger, asText, flag, highestTag, integer, isMap, mapOrNull, TARGET_KEYS, targetHint, text, texts, toJsonPayload, toolUses } from './values.js';

/** The folder's own parts, which it changes until it hands them out (Live); a snapshot's are read-only. */
type LiveEpisode = Live<EpisodeFold>;
type LiveStep = Live<StepFold>;
type LiveBatch = Live<BatchFold>;
type LiveCall = Live<CallFold>;
type LiveSession = Live<SessionFold>;

export function foldFrames(frames: Iterable<ReadFrame>): SessionFold {
  const folder = new SessionFolder();
  for (const frame of frames) folder.push(frame);
  return folder.finish();
}

/** What the fold may build from one record's payload, in CBOR items (a 16 MiB frame can hold 16 million
 *  empty maps, ~60 bytes each once built): past it the session is refused, not folded into an out-of-memory. */
export const FOLD_RECORD_ITEMS_MAX = 4_194_304;
/** What the fold may keep from all of a session's payloads, in CBOR items (~1 GB at worst once built). */
export const FOLD_SESSION_ITEMS_MAX = 16_777_216;

/** Payload members the fold leaves on disk: tool outputs (up to 16 MiB each, most of a WAL's bytes). A call's
 *  terminal keeps the record's offset; readers of the output read it back from the WAL (payloads.ts). */
const LEFT_ON_DISK: Readonly<Record<string, string>> = { tool_result: 'output', late_result: 'output' };
/** …except a short text, which the fold reads: records older than the outcome field say "unknown_outcome"
 *  in their output. */
const LEFT_ON_DISK_TEXT_KEPT_BYTES_MAX = 32;

/** A tool_result's output as the fold keeps it: its size in a request (the CBOR size of its JSON form), and the
 *  text itself when it is a short one (an older record says unknown_outcome there). Measured from the fold's own
 *  read (a text by its head, anything else walked), a request is measured without reading its outputs back: a
 *  million records' first Context look read 200,000 of them. */
class KeptOutput {
  constructor(
    readonly text: string | null,
    readonly size_bytes: number,
  ) {}
}

/** What an absent output weighs in a request: the tool message carries null. */
const ABSENT_OUTPUT_BYTES = encodedSize(null);

const OUTPUT_KEPT = new ReadBy((decoder, depth) => {
  decoder.peekHead();
  const [major, length] = [decoder.head_major, decoder.head_argument];
  if (major !== MAJOR_TEXT) return new KeptOutput(null, decoder.measureItem(depth)) as unknown as CborValue;
  const text = length <= LEFT_ON_DISK_TEXT_KEPT_BYTES_MAX ? (decoder.readItem(depth) as string) : null;
  if (text === null) decoder.skipItem(depth);
  return new KeptOutput(text, headBytes(length) + length) as unknown as CborValue;
});

/** Records that only decorate the step they belong to (compaction and context-ceiling machinery). */
const STEP_NOTE_TYPES: ReadonlySet<string> = new Set([
  'compaction_view_applied',
  'compaction_notice',
  'compaction_message',
  'compaction_request',
  'compaction_answer',
  'compaction_wait',
  'context_ceiling_wait',
  'context_ceiling_decided',
  'budget_fired',
]);

type Handler = (folder: SessionFolder, payload: JsonPayload, ref: RecordRef) => void;

/** A kept record's members in their places: `values[at.step_id]` (KeptRecord), undefined when the record has
 *  no such member or it stays on disk. */
type KeptValues = (JsonValue | undefined)[];

/** What the fold builds of a record type's payload (KEPT): the members its handler reads, each in a fixed place
 *  of the values it is handed, and the handler. */
interface KeptRecord {
  table: MemberTable;
  /** The place of `tags`, which every record may carry (SessionFold.next_tag). */
  tags: number;
  /** The places of the stamps (STAMPS), which every record may carry (the lineage's time span). */
  ts_ms: number;
  created_ms: number;
  handle: (folder: SessionFolder, values: KeptValues, ref: RecordRef) => void;
}

/** A stamp as the lineage's time span reads it (engine/lineage-chain.ts): a scalar is built; a container is
 *  validated and reads as `true`, not a number yet present, so that it hides `created_ms` as the container
 *  itself would. No container is built. `counted`: the scalar counts against the fold's item bounds (a member
 *  the fold keeps, as SCALAR counted it), or not (read for the facts alone): the bounds count what they did. */
function stamp(counted: boolean): ReadBy {
  return new ReadBy((decoder, depth) => {
    const major = decoder.remaining > 0 ? decoder.bytes[decoder.position]! >> 5 : -1;
    if (major === MAJOR_ARRAY || major === MAJOR_MAP) {
      decoder.skipItem(depth);
      return true;
    }
    if (!counted) decoder.items_left += 1;
    return decoder.readItem(depth);
  });
}
const KEPT_STAMP = stamp(true);
/** The members of every kept record that the lineage's facts read besides `tags`: taken in the fold's pass, the
 *  facts need no second pass over the payload (`keptFacts`). A record that keeps one names it KEPT_STAMP. */
const STAMPS = { ts_ms: stamp(false), created_ms: stamp(false) } as const;

/** A KeptRecord of `members` (and the STAMPS it does not name), whose handler finds member `name` at
 *  `values[at[name]]`. */
function kept<const Members extends { readonly [key: string]: CborProjection; readonly tags: CborProjection }>(
  members: Members,
  handle: (folder: SessionFolder, values: KeptValues, at: { readonly [K in keyof Members | keyof typeof STAMPS]: number }, ref: RecordRef) => void,
): KeptRecord {
  const table = memberTable({ ...STAMPS, ...members });
  const at = Object.fromEntries(table.names.map((name, place) => [name, place])) as { [K in keyof Members | keyof typeof STAMPS]: number };
  return { table, tags: table.names.indexOf('tags'), ts_ms: table.names.indexOf('ts_ms'), created_ms: table.names.indexOf('created_ms'), handle: (folder, values, ref) => handle(folder, values, at, ref) };
}

/** What the lineage's facts read of a record (LineageFacts, engine/lineage-chain.ts: `tags`, `notice_seq` and
 *  the stamps), from what `decodePayload` built of it: a kept record's values, or any other payload, built whole
 *  but for a tool output. null when it built nothing (past the fold's bounds) or the frame is a lineage frame,
 *  whose `parent_wal_id` the facts need as bytes (the fold builds byte strings as hex). */
export function keptFacts(frame: Pick<ReadFrame, 'seq' | 'type'>, built: unknown): Payload | null {
  if (frame.seq === 0 || built === BEYOND_BOUNDS || built === undefined) return null;
  if (!Array.isArray(built)) return built as Payload;
  const record = keptRecord(frame.type)!;
  const values = built as KeptValues;
  return { tags: values[record.tags] as CborValue, ts_ms: values[record.ts_ms] as CborValue, created_ms: values[record.created_ms] as CborValue };
}

/** Batches of at most this many calls find a call by scanning them. */
const CALLS_SCANNED_MAX = 16;

/** `decodePayload`'s answer for a payload the fold does not build: past its bounds, or after a refusal. */
const BEYOND_BOUNDS = Symbol('beyond the fold\'s bounds');

/** Per-episode lookups that keep each record's routing O(1): a linear search per record made long episodes
 *  quadratic (80k planned calls, 40k approvals, 40k steers before 40k steps). */
interface EpisodeLookups {
  steps: Map<number, LiveStep>;
  approvals: Map<string, Live<ApprovalFold>>;
  /** Calls with a provider hold (and their batches), by call_key, for late_result. */
  held: Map<string, { batch: LiveBatch; call: LiveCall }[]>;
  /** Steers from this index on have not joined a step yet (they join in order, so that is a suffix). */
  steers_unjoined_from: number;
}

export class SessionFolder {
  private readonly fold: LiveSession = {
    wal_id: null,
    last_seq: 0,
    next_tag: 1,
    episodes: [],
    queue: [],
    queue_drain_order: [],
    outside: [],
    anomalies: [],
  };
  /** Every batch by id, for tool records that name it; `calls` by id only for a batch of more than
   *  CALLS_SCANNED_MAX calls (a Map a batch cost ~180 bytes a step, for what a scan of a few calls finds). */
  private readonly batches = new Map<string, { episode: LiveEpisode; batch: LiveBatch; calls: Map<string, LiveCall> | null }>();
  private readonly run_ids = new Map<string, number>();
  private readonly lookups = new WeakMap<LiveEpisode, EpisodeLookups>();
  /** Pending queue entries by submission id, oldest first from `next`. */
  private readonly pending_queue = new Map<string, { entries: Live<QueueEntry>[]; next: number }>();
  private items_kept = 0;
  /** Why the fold stopped: a record it cannot hold within its bounds. Frames after it are not folded. */
  refusal: WalErrorInfo | null = null;
  private finished = false;
  /** Episodes a frame may have changed since the last `snapshotSince`: the open one, and an earlier one that a
   *  late tool record reaches through its batch. */
  private readonly changed = new Set<LiveEpisode>();
  /** Live parts a frame changed since the last `snapshotSince`; null before the first one, which copies every
   *  part anyway (a fold read once and finished keeps no such set). */
  private touched: Set<object> | null = null;
  /** Finished episodes a snapshot holds as they are, not as a copy (with how many anomalies they had before
   *  classification added the checked ones): the live fold and its snapshots share them, so a million records'
   *  closed episodes are held once. A late record reaching one makes the live fold its own copy first. */
  private readonly handed_out = new WeakMap<LiveEpisode, number>();
  /** Parts (steps, batches, steers, approvals) `ownCopy` copied since the last `snapshotSince`. */
  private parts_owned = 0;

  /** `sums`: where classification keeps its checks; the session's views' store takes them on from snapshot to
   *  snapshot (views/incremental-sums.ts), told here what each episode copy was made from. */
  constructor(readonly sums: Sums = new FullSums()) {}

  /** Folds one frame. Its payload comes from `frame.payload` when the reader built it, else from
   *  `payload_cbor` (validated CBOR the reader hands over), decoded here without what stays on disk. */
  push(frame: ReadFrame, payload_cbor?: Buffer, kept?: unknown): void {
    assert.ok(!this.finished, 'a finished fold takes no more frames');
    if (this.refusal !== null) return;
    const open_before = this.openEpisode();
    this.route(frame, payload_cbor, kept);
    if (open_before !== null) this.changed.add(open_before);
    const open_after = this.openEpisode();
    if (open_after !== null) this.changed.add(open_after);
  }

  private route(frame: ReadFrame, payload_cbor: Buffer | undefined, kept: unknown): void {
    const payload = kept === undefined ? this.keptPayload(frame, payload_cbor) : this.decodedPayload(frame, kept);
    if (payload === null) return;
    const ref: RecordRef = { seq: smallInteger(frame.seq), offset: smallInteger(frame.offset), fence: smallInteger(frame.fence), type: frame.type };
    // A kept record type's members come in their places (an array); any other payload is a map.
    const record = Array.isArray(payload) ? keptRecord(frame.type)! : null;
    if (frame.seq === 0) {
      const lineage = Array.isArray(payload) ? {} : payload;
      this.fold.wal_id ??= text(lineage, 'wal_id');
      this.fold.next_tag = Math.max(this.fold.next_tag, integer(lineage, 'next_tag') ?? 0);
      this.fold.outside.push(ref);
      return;
    }
    this.fold.last_seq = frame.seq;
    // Every record counts, whatever its type: the count is per session, and a tag is never reused.
    this.fold.next_tag = Math.max(this.fold.next_tag, highestTag(Array.isArray(payload) ? payload[record!.tags] : payload['tags']) + 1);
    const episode = this.openEpisode();
    if (episode !== null) episode.last_seq = frame.seq;
    if (Array.isArray(payload)) return record!.handle(this, payload, ref);
    // The type is WAL text: a type named like an Object.prototype member is unknown, not a member (§5.5).
    const handler = Object.hasOwn(HANDLERS, frame.type) ? HANDLERS[frame.type] : undefined;
    if (handler !== undefined) handler(this, payload, ref);
    else if (STEP_NOTE_TYPES.has(frame.type)) this.attachNote(payload, ref, frame.type === VIEW_RECORD_TYPE ? replacementDigestOk(viewPayload(frame, payload_cbor)) : null);
    else this.show(ref);
  }

  /** The runner tag the next tagged part gets (SessionFold.next_tag), without the copy a snapshot makes. */
  get next_tag(): number {
    return this.fold.next_tag;
  }

  /** The fold so far, classified and checked. A copy: pushing more frames does not change it. */
  snapshot(): SessionFold {
    const copy = structuredClone({ ...this.fold, episodes: this.fold.episodes.map(withPlainLists) });
    return classified(copy, (index) => this.handed_out.has(this.fold.episodes[index]!), this.sums);
  }

  /** The fold, classified and checked, without the copy: for a reader that folds once and is done (the CLI,
   *  recovery). The folder takes no more frames after it. */
  finish(): SessionFold {
    this.finished = true;
    return classified(this.fold, (index) => this.handed_out.has(this.fold.episodes[index]!), this.sums);
  }

  /** The reader's `decode_payload`: builds the members the fold keeps in the pass that validates the payload
   *  (a validating pass and then a building one cost the fold a quarter more). Past the fold's bounds it
   *  validates the rest without building it, and `push` refuses the record. */
  readonly decodePayload = (decoder: CborDecoder, type: string): JsonPayload | KeptValues | typeof BEYOND_BOUNDS => {
    const start = decoder.position;
    if (this.refusal !== null) {
      decoder.skipItem();
      return BEYOND_BOUNDS;
    }
    decoder.bytes_as_hex = true;
    const items_max = Math.min(FOLD_RECORD_ITEMS_MAX, FOLD_SESSION_ITEMS_MAX - this.items_kept);
    decoder.items_left = items_max;
    try {
      const payload = decodeKept(decoder, type);
      this.items_kept += items_max - decoder.items_left;
      return payload;
    } catch (error) {
      if (!(error instanceof CborItemsExceeded)) throw error;
      decoder.position = start;
      decoder.skipItem();
      return BEYOND_BOUNDS;
    }
  };

  /** What `decodePayload` built for this frame; null (and `refusal` set) when it was beyond the bounds. */
  private decodedPayload(frame: ReadFrame, kept: unknown): JsonPayload | KeptValues | null {
    if (kept !== BEYOND_BOUNDS) return kept as JsonPayload | KeptValues;
    this.refuseTooLarge(frame);
    return null;
  }

  /** The payload members the fold keeps, built within its bounds; null (and `refusal` set) past them. */
  private keptPayload(frame: ReadFrame, payload_cbor: Buffer | undefined): JsonPayload | KeptValues | null {
    const left_on_disk = LEFT_ON_DISK[frame.type];
    if (frame.payload !== null || payload_cbor === undefined) {
      const payload = frame.payload ?? {};
      const record = keptRecord(frame.type);
      if (record !== undefined) return valuesOfBuilt(record.table, payload);
      if (left_on_disk === undefined || !Object.prototype.hasOwnProperty.call(payload, left_on_disk)) return toJsonPayload(payload);
      if (isShortText(payload[left_on_disk])) return toJsonPayload(payload);
      const { [left_on_disk]: _on_disk, ...rest } = payload;
      return toJsonPayload(rest);
    }
    const decoder = new CborDecoder(payload_cbor);
    decoder.bytes_as_hex = true;
    decoder.items_left = Math.min(FOLD_RECORD_ITEMS_MAX, FOLD_SESSION_ITEMS_MAX - this.items_kept);
    try {
      const payload = decodeKept(decoder, frame.type);
      this.items_kept += Math.min(FOLD_RECORD_ITEMS_MAX, FOLD_SESSION_ITEMS_MAX - this.items_kept) - decoder.items_left;
      return payload;
    } catch (error) {
      if (!(error instanceof CborItemsExceeded)) throw error;
      this.refuseTooLarge(frame);
      return null;
    }
  }

  private refuseTooLarge(frame: ReadFrame): void {
    const whole_session = FOLD_SESSION_ITEMS_MAX - this.items_kept < FOLD_RECORD_ITEMS_MAX;
    const bound = whole_session ? `the ${FOLD_SESSION_ITEMS_MAX.toLocaleString('en-US')} items walscope keeps for one session` : `the ${FOLD_RECORD_ITEMS_MAX.toLocaleString('en-US')} items walscope builds for one record`;
    this.refusal = {
      kind: 'too_large',
      offset: frame.offset,
      seq: frame.seq,
      features: [],
      message: `record ${frame.type} at offset ${frame.offset} (seq ${frame.seq}) holds more CBOR items than ${bound}: the WAL may be intact (walscope verify checks it), but this session is too large to fold here; nothing from this offset on is shown`,
    };
  }

  /** The same fold as `snapshot`, made from `previous` (this folder's last `snapshotSince`, or null): episodes
   *  no frame reached since then are taken from it as they are, so a live session's append costs its open
   *  episode, not the whole session. Record references are immutable and shared, not copied. `changes` names
   *  what is new against `previous` (FoldChanges), from the parts this folder marked as the frames came. */
  snapshotSince(previous: SessionFold | null): { fold: SessionFold; changes: FoldChanges; parts_copied: number } {
    const { episodes, outside, anomalies, queue, ...scalars } = this.fold;
    const changes: EpisodeChange[] = [];
    let parts_copied = this.parts_owned;
    this.parts_owned = 0;
    const copied = episodes.map((episode, index) => {
      const kept = previous?.episodes[index];
      if (kept !== undefined && !this.changed.has(episode)) return kept;
      // A finished episode no snapshot holds yet (the first read's, one started and finished since the last
      // snapshot) is classified in place and handed out: no copy.
      if (episode.finished !== null && kept === undefined) {
        const own_anomalies = episode.anomalies.length;
        classifyEpisode(episode, this.sums);
        changes.push(episodeChange(index, null, episode, null, NONE));
        return this.handOut(index, episode, episode, own_anomalies);
      }
      const { copy, fresh, fresh_batches, copied: count, places } = this.copyEpisode(episode, kept);
      parts_copied += count;
      if (kept !== undefined) this.sums.noteMadeFrom(copy, kept);
      const recopied = classifyEpisode(copy, this.sums, fresh, fresh_batches);
      changes.push(episodeChange(index, kept ?? null, copy, places, recopied));
      return episode.finished === null ? copy : this.handOut(index, episode, copy);
    });
    this.changed.clear();
    this.touched = new Set();
    const queue_copy = structuredClone(queue);
    const fold: SessionFold = { ...scalars, episodes: copied, outside: outside.slice(), anomalies: structuredClone(anomalies), queue: queue_copy, queue_drain_order: drainOrder(queue_copy) };
    return { fold, changes: { from_scratch: previous === null, episodes: changes }, parts_copied };
  }

  /** A copy of a live episode that shares every part its last snapshot (`before`) holds and no frame touched
   *  since: the steps and batches are that snapshot's chunked lists, with the touched parts copied anew in their
   *  places and the new ones added (the live lists only grow), so an append to a long open episode costs the
   *  parts it changed and the chunks they sit in. `fresh`: the parts copied anew (null: all of them),
   *  `fresh_batches` the batches among them. The episode's other lists are new (classification appends
   *  anomalies); their entries are never changed once pushed, so they are shared. */
  private copyEpisode(episode: LiveEpisode, before_handed_out: EpisodeFold | undefined): { copy: LiveEpisode; fresh: ReadonlySet<object> | null; fresh_batches: Parts<LiveBatch>; copied: number; places: number[][] | null } {
    // The copy holds the last snapshot's parts where no frame touched them, typed as its own: classification
    // changes only the fresh ones, and copies a shared batch whose verdict changes (classifyEpisode).
    const before = before_handed_out as LiveEpisode | undefined;
    const touched = this.touched;
    const shared = before !== undefined && touched !== null;
    const fresh = new Set<object>();
    const lists = [liveList(episode.steps), liveList(episode.batches), episode.steers, episode.approvals] as const;
    const places = shared ? touchedPlaces(lists, [before.steps.length, before.batches.length, before.steers.length, before.approvals.length], touched) : null;
    /** `copyPart`, noting each part it made as fresh. */
    const cloneWith = <T extends object>(copyPart: (part: T) => T) => (part: T): T => {
      const made = copyPart(part);
      fresh.add(made);
      return made;
    };
    const chunked = <T extends object>(which: number, live: readonly T[], kept: Parts<T> | undefined, copyPart: (part: T) => T): ChunkedList<T> => {
      const clone = cloneWith(copyPart);
      if (places === null || kept === undefined) return ChunkedList.of(live.map(clone));
      const base = kept instanceof ChunkedList ? kept : ChunkedList.of(kept.slice());
      if (places[which]!.length === 0 && live.length === kept.length) return base;
      return base.withChanges(new Map(places[which]!.map((at) => [at, clone(live[at]!)])), live.slice(kept.length).map(clone));
    };
    const list = <T extends object>(which: number, live: readonly T[], kept: readonly T[] | undefined, copyPart: (part: T) => T): T[] => {
      const clone = cloneWith(copyPart);
      if (places === null || kept === undefined) return live.map(clone);
      if (places[which]!.length === 0 && live.length === kept.length) return kept as T[];
      const copy = kept.concat(live.slice(kept.length).map(clone));
      for (const at of places[which]!) copy[at] = clone(live[at]!);
      return copy;
    };
    const copy: LiveEpisode = {
      ...episode,
      steps: chunked(0, lists[0], before?.steps, copyStep),
      batches: chunked(1, lists[1], before?.batches, copyBatch),
      steers: list(2, episode.steers, before?.steers, (steer) => ({ ...steer })),
      approvals: list(3, episode.approvals, before?.approvals, (card) => ({ ...card })),
      cancel_requests: episode.cancel_requests.slice(),
      pauses: episode.pauses.slice(),
      resumes: episode.resumes.slice(),
      shown: episode.shown.slice(),
      anomalies: episode.anomalies.slice(),
    };
    const fresh_batches = places === null ? copy.batches : [...places[1]!.map((at) => copy.batches.at(at)!), ...copy.batches.slice(before!.batches.length)];
    return { copy, fresh: places === null ? null : fresh, fresh_batches, copied: fresh.size, places };
  }

  /** Makes `out` (`live` classified, or a classified copy of it) the live fold's episode `index` too: it is
   *  immutable from here on (`ownCopy` copies it before a late record changes it). */
  private handOut(index: number, live: LiveEpisode, out: LiveEpisode, own_anomalies = live.anomalies.length): LiveEpisode {
    this.handed_out.set(out, own_anomalies);
    if (out !== live) this.replaceEpisode(index, live, out);
    return out;
  }

  /** The live fold's own copy of a handed-out episode that a late record is about to change: as it was before
   *  classification (its own anomalies only), made once until the next snapshot hands it out again. */
  private ownCopy(shared: LiveEpisode): LiveEpisode {
    // Copied part by part, not structurally cloned: a clone made one list of every shared NONE, and a late
    // result pushed onto it went to every call of the episode that had no terminal yet.
    const own: LiveEpisode = {
      ...shared,
      steps: shared.steps.map(copyStep),
      batches: shared.batches.map(copyBatch),
      steers: shared.steers.map((steer) => ({ ...steer })),
      approvals: shared.approvals.map((card) => ({ ...card })),
      cancel_requests: shared.cancel_requests.slice(),
      pauses: shared.pauses.slice(),
      resumes: shared.resumes.slice(),
      shown: shared.shown.slice(),
      anomalies: shared.anomalies.slice(0, this.handed_out.get(shared)!),
    };
    this.parts_owned += own.steps.length + own.batches.length + own.steers.length + own.approvals.length;
    this.replaceEpisode(shared.episode - 1, shared, own);
    return own;
  }

  /** Puts `now` in place of `was` in the live fold, and its batches in place of `was`'s in the batch map (the
   *  same batches, place by place). */
  private replaceEpisode(index: number, was: LiveEpisode, now: LiveEpisode): void {
    assert.equal(this.fold.episodes[index], was);
    this.fold.episodes[index] = now;
    for (const batch of now.batches) {
      const found = this.batches.get(batch.batch_id);
      if (found?.episode !== was) continue;
      const calls = found.calls === null ? null : new Map(batch.calls.map((call) => [call.tool_call_id, call]));
      this.batches.set(batch.batch_id, { episode: now, batch, calls });
    }
  }

  // ---------------------------------------------------------------- routing

  /** The last episode while it has no run_finished. */
  openEpisode(): LiveEpisode | null {
    const last = this.fold.episodes.at(-1);
    return last !== undefined && last.finished === null ? last : null;
  }

  /** The episode a run record belongs to, or null (reported) when it falls outside every episode. */
  episodeFor(ref: RecordRef): LiveEpisode | null {
    const episode = this.openEpisode();
    if (episode === null) {
      this.fold.outside.push(ref);
      this.fold.anomalies.push(anomaly('record_outside_episode', `${ref.type} at seq ${ref.seq} is outside any episode`, [ref.seq]));
    }
    return episode;
  }

  /** A finished episode is reached only through its batches (a late tool record): its lookups, which serve the
   *  open episode's records, are dropped. */
  closed(episode: LiveEpisode): void {
    this.lookups.delete(episode);
  }

  show(ref: RecordRef): void {
    const episode = this.openEpisode();
    if (episode === null) this.fold.outside.push(ref);
    else episode.shown.push(ref);
  }

  lookupsOf(episode: LiveEpisode): EpisodeLookups {
    let lookups = this.lookups.get(episode);
    if (lookups === undefined) {
      lookups = { steps: new Map(), approvals: new Map(), held: new Map(), steers_unjoined_from: 0 };
      this.lookups.set(episode, lookups);
    }
    return lookups;
  }

  /** The step to change (made if new), marked touched. */
  step(episode: LiveEpisode, step_id: number): LiveStep {
    const steps = this.lookupsOf(episode).steps;
    let step = steps.get(step_id);
    if (step === undefined) {
      step = {
        step_id,
        seq: null,
        attempts: NONE,
        offset: null,
        role: 'assistant',
        usage: null,
        tool_use_ids: NONE,
        natural_end: false,
        batch_id: null,
        turn_finished_seq: null,
        notes: NONE,
      };
      liveList(episode.steps).push(step);
      steps.set(step_id, step);
    }
    return this.touch(step);
  }

  /** Marks a live step, batch, steer or approval as changed by this frame: the next snapshot copies it anew. */
  touch<T extends object>(part: T): T {
    this.touched?.add(part);
    return part;
  }

  /** The batch `batch_id` names when this episode started it, marked touched. */
  batchOf(episode: LiveEpisode, batch_id: string | null): LiveBatch | undefined {
    const found = batch_id === null ? undefined : this.batches.get(batch_id);
    return found?.episode === episode ? this.touch(found.batch) : undefined;
  }

  /** The batch and call a tool record names; anomalies when either is unknown. */
  call(batch_id: string, tool_call_id: string, ref: RecordRef): { episode: LiveEpisode; batch: LiveBatch; call: LiveCall } | null {
    const shared = this.batches.get(batch_id)?.episode;
    if (shared !== undefined && this.handed_out.has(shared)) this.ownCopy(shared);
    const found = this.batches.get(batch_id);
    if (found !== undefined) {
      this.changed.add(found.episode);
      this.touch(found.batch);
    }
    const episode = found?.episode ?? this.episodeFor(ref);
    if (found === undefined) {
      episode?.anomalies.push(anomaly('unknown_batch', `${ref.type} at seq ${ref.seq} names batch ${batch_id}, which was never started`, [ref.seq], batch_id, tool_call_id));
      return null;
    }
    const call = found.calls === null ? found.batch.calls.find((candidate) => candidate.tool_call_id === tool_call_id) : found.calls.get(tool_call_id);
    if (call === undefined) {
      found.episode.anomalies.push(anomaly('unplanned_call', `${ref.type} at seq ${ref.seq} names call ${tool_call_id}, which batch ${batch_id} did not plan`, [ref.seq], batch_id, tool_call_id));
      return null;
    }
    if (found.batch.finished_seq !== null) {
      found.episode.anomalies.push(anomaly('record_after_batch_finished', `${ref.type} at seq ${ref.seq} for call ${tool_call_id} follows tool_batch_finished at seq ${found.batch.finished_seq}`, [found.batch.finished_seq, ref.seq], batch_id, tool_call_id));
    }
    return { episode: found.episode, batch: found.batch, call };
  }

  // ---------------------------------------------------------------- records

  startEpisode(payload: JsonPayload, ref: RecordRef): void {
    const left_open = this.openEpisode();
    const number = this.fold.episodes.length + 1;
    const run_id = text(payload, 'run_id');
    const episode: LiveEpisode = {
      episode: number,
      run_id,
      started_seq: ref.seq,
      config: payload['config'] ?? null,
      input: payload['input'] ?? null,
      // Tagging is fixed when a lineage is first admitted (contract §2), and run_started is the first record a
      // tagging writer tags, so each episode's own start says whether its parts are tagged.
      tagged: (payload['tags'] ?? null) !== null,
      state: 'running',
      finished: null,
      steps: [],
      batches: [],
      steers: [],
      approvals: [],
      cancel_requests: [],
      pauses: [],
      resumes: [],
      shown: [],
      anomalies: [],
      last_seq: ref.seq,
    };
    if (left_open !== null) {
      episode.anomalies.push(anomaly('episode_left_open', `episode ${left_open.episode} has no run_finished before episode ${number} starts at seq ${ref.seq}`, [left_open.started_seq, ref.seq]));
    }
    const earlier = run_id === null ? undefined : this.run_ids.get(run_id);
    if (earlier !== undefined) {
      episode.anomalies.push(anomaly('duplicate_run_id', `run_id ${run_id} at seq ${ref.seq} already started episode ${earlier}; a retried start must append nothing`, [ref.seq]));
    } else if (run_id !== null) {
      this.run_ids.set(run_id, number);
    }
    this.fold.episodes.push(episode);
  }

  startBatch(batch_id: string, step_id: number | null, sequential: boolean, planned_calls: JsonValue | undefined, ref: RecordRef): void {
    const episode = this.episodeFor(ref);
    if (episode === null) return;
    if (this.batches.has(batch_id)) {
      episode.anomalies.push(anomaly('duplicate_batch', `tool_batch_started at seq ${ref.seq} reuses batch id ${batch_id}`, [this.batches.get(batch_id)!.batch.started_seq, ref.seq], batch_id));
      return;
    }
    const planned = Array.isArray(planned_calls) ? planned_calls : [];
    // A few calls are found by a scan, more through a map (as `call` finds them): a map for every batch cost
    // more than the scans it saved.
    const calls = planned.length > CALLS_SCANNED_MAX ? new Map<string, LiveCall>() : null;
    const listed: LiveCall[] = [];
    for (const entry of planned) {
      const plan = isMap(entry) ? entry : {};
      const tool_call_id = text(plan, 'tool_call_id') ?? '';
      if (calls === null ? listed.some((call) => call.tool_call_id === tool_call_id) : calls.has(tool_call_id)) {
        episode.anomalies.push(anomaly('duplicate_planned_call', `batch ${batch_id} plans call ${tool_call_id} twice`, [ref.seq], batch_id, tool_call_id));
        continue;
      }
      const call = plannedCall(plan, tool_call_id, listed.length);
      calls?.set(tool_call_id, call);
      listed.push(call);
    }
    const batch: LiveBatch = {
      batch_id,
      step_id,
      sequential,
      started_seq: ref.seq,
      finished_seq: null,
      // Of its exact size (the list grown by push has 16 slots or more).
      calls: listed.slice(),
      committable: false,
      mixed_crash: false,
    };
    liveList(episode.batches).push(batch);
    this.batches.set(batch_id, { episode, batch, calls: batch.calls.length > CALLS_SCANNED_MAX ? calls : null });
    if (step_id !== null) this.step(episode, step_id).batch_id = batch_id;
  }

  attachNote(payload: JsonPayload, ref: RecordRef, replacement_digest_ok: boolean | null): void {
    const episode = this.openEpisode();
    const step_id = integer(payload, 'step_id');
    // A note without a step_id follows the step boundary it was written at: the latest step.
    const step = episode === null ? undefined : step_id !== null ? this.step(episode, step_id) : episode.steps.at(-1);
    if (step === undefined) this.show(ref);
    else this.touch(step).notes = withItem(step.notes, { seq: ref.seq, type: ref.type, payload, ...(replacement_digest_ok === null ? {} : { replacement_digest_ok }) });
  }

  queueRecord(payload: JsonPayload, ref: RecordRef): void {
    this.show(ref);
    const submission_id = text(payload, 'submission_id');
    if (submission_id === null) return;
    const pending = this.pending_queue.get(submission_id);
    if (ref.type === 'queued') {
      const queued: Live<QueueEntry> = {
        submission_id,
        seq: ref.seq,
        request: payload['request'] ?? null,
        delivery: text(payload, 'delivery'),
        title: text(payload, 'title'),
        state: 'pending',
        closed_seq: null,
      };
      this.fold.queue.push(queued);
      if (pending === undefined) this.pending_queue.set(submission_id, { entries: [queued], next: 0 });
      else pending.entries.push(queued);
      return;
    }
    if (pending === undefined) return;
    const entry = pending.entries[pending.next]!;
    pending.next += 1;
    if (pending.next === pending.entries.length) this.pending_queue.delete(submission_id);
    entry.state = ref.type === 'retracted' ? 'retracted' : 'delivered';
    entry.closed_seq = ref.seq;
  }
}

// A live part's copy for a snapshot: its own fields, and every list and record the fold changes in place once
// made (the lists `withItem` grows, a held record's late result), so that nothing the snapshot holds changes
// under it. What the fold only replaces (tool_use ids, an intent) or never changes once made (an attempt, a
// note, a terminal, a payload) is shared, as it is between snapshots; a call's successors are set afresh on
// each copy by classification. structuredClone of every step and batch was ~2.3 s of the first snapshot of a
// million records in one open episode. test/replay/snapshot-copies.test.ts freezes every snapshot and folds on.
function copyStep(step: LiveStep): LiveStep {
  return { ...step, attempts: ownList(step.attempts), notes: ownList(step.notes) };
}

function copyBatch(batch: LiveBatch): LiveBatch {
  return { ...batch, calls: batch.calls.map(copyCall) };
}

function copyCall(call: LiveCall): LiveCall {
  return { ...call, terminals: ownList(call.terminals), held: call.held === null ? null : { ...call.held } };
}

/** A list the live fold owns and grows: an array (a snapshot's chunked lists are never the live fold's to
 *  change; a late record gets an own copy first, `ownCopy`). */
function liveList<T>(list: Parts<T>): T[] {
  assert(Array.isArray(list), 'the live fold changes only lists of its own');
  return list as T[];
}

/** The episode with its steps and batches as arrays: what a structured copy can clone, and what the fold pushes
 *  onto. */
function withPlainLists(episode: LiveEpisode): LiveEpisode {
  if (Array.isArray(episode.steps) && Array.isArray(episode.batches)) return episode;
  return { ...episode, steps: episode.steps.slice(), batches: episode.batches.slice() };
}

/** A list of its own (the shared NONE stays itself: `withItem` never grows it). */
function ownList<T>(list: T[]): T[] {
  return list === NONE ? NONE : list.slice();
}

/** Where the touched parts sit in an episode's part lists that were `before` lengths long at the last snapshot:
 *  looked for from the ends of the lists back, where a live run changes its parts, until every touched part is
 *  found (all of a list when one is further back, or in another episode). Places past `before` (the lengths then)
 *  are new anyway. */
function touchedPlaces(lists: readonly (readonly object[])[], before: readonly number[], touched: ReadonlySet<object>): number[][] {
  const places: number[][] = lists.map(() => []);
  let found = 0;
  for (let list = 0; list < lists.length; list++) for (let at = before[list]!; at < lists[list]!.length; at++) if (touched.has(lists[list]![at]!)) found++;
  const depth_max = largest(before) ?? 0;
  for (let depth = 1; depth <= depth_max && found < touched.size; depth++) {
    for (let list = 0; list < lists.length; list++) {
      const at = before[list]! - depth;
      if (at >= 0 && touched.has(lists[list]![at]!)) {
        places[list]!.push(at);
        found++;
      }
    }
  }
  return places;
}

/** Classifies and checks an episode copy in place. A batch not in `fresh` (null: every batch is; the fresh
 *  batches are `fresh_batches`) is shared with the last snapshot: it was classified when copied and no frame
 *  changed it since, so it is not classified again; its committable
 *  verdict also depends on the episode around it (its step, anomalies naming it), and a changed verdict gets a
 *  copy of the batch, never a change under the last snapshot: the places of those copies are returned. */
function classifyEpisode(episode: LiveEpisode, sums: Sums, fresh: ReadonlySet<object> | null = null, fresh_batches: Iterable<LiveBatch> = episode.batches): readonly number[] {
  const reused = (batch: LiveBatch) => fresh !== null && !fresh.has(batch);
  for (const batch of fresh_batches) classifyBatch(batch);
  const checked = checkEpisode(episode, sums);
  appendAll(episode.anomalies, checked.anomalies);
  const recopied = new Map<number, LiveBatch>();
  // An index loop: an entries() pair per batch was garbage at every append of a long open episode.
  for (let index = 0; index < episode.batches.length; index++) {
    const batch = episode.batches.at(index)!;
    const committable = checked.committable[index]!;
    if (batch.committable === committable) continue;
    if (reused(batch)) recopied.set(index, { ...batch, committable });
    else batch.committable = committable;
  }
  // Only a snapshot's copy reuses batches, and its lists are chunked (copyEpisode).
  if (recopied.size > 0) episode.batches = (episode.batches as ChunkedList<LiveBatch>).withChanges(recopied);
  episode.state = episodeState(episode, sums);
  return recopied.size === 0 ? NONE : [...recopied.keys()];
}

/** The change `snapshotSince` made to episode `index` (`now`, made from `before`, null when it is new), from
 *  the places `copyEpisode` copied anew (null: all of them) and the batches classification copied. */
function episodeChange(index: number, before: EpisodeFold | null, now: EpisodeFold, places: number[][] | null, recopied: readonly number[]): EpisodeChange {
  const parts = (which: number, before_length: number, also: readonly number[]): PartChanges => {
    if (places === null) return { changed: Array.from({ length: before_length }, (_, at) => at), added_from: before_length };
    const changed = new Set(places[which]);
    for (const at of also) if (at < before_length) changed.add(at);
    return { changed: [...changed].sort((a, b) => a - b), added_from: before_length };
  };
  return {
    index,
    added: before === null,
    closed: now.finished !== null && before?.finished == null,
    steps: parts(0, before?.steps.length ?? 0, NONE),
    batches: parts(1, before?.batches.length ?? 0, recopied),
  };
}

/** A step's attempts and tool_use ids and a call's terminals start as the shared NONE and get their first item
 *  with `withItem`, a list of exactly one: an empty list grown by push has 16 slots (~600 bytes a step of empty
 *  slots), and cutting them to size when the episode closed left the first lists behind as garbage the
 *  collector had already moved to the old generation (~50 MB of a million records' fold). */
function plannedCall(plan: JsonPayload, tool_call_id: string, index: number): LiveCall {
  return {
    tool_call_id,
    name: text(plan, 'name') ?? '',
    index,
    plan: text(plan, 'plan') === 'no_dispatch' ? 'no_dispatch' : 'dispatch',
    safe: flag(plan, 'safe'),
    class: 'never_left',
    intent: null,
    terminals: NONE,
    held: null,
    behind: null,
    successors: NONE,
    dispatched_at_ms: null,
    finished_at_ms: null,
  };
}

const HANDLERS: Record<string, Handler> = {
  run_started: (folder, payload, ref) => folder.startEpisode(payload, ref),

  tool_call_provider_held(folder, payload, ref) {
    const found = folder.call(text(payload, 'batch_id') ?? '', text(payload, 'tool_call_id') ?? '', ref);
    if (found === null) return;
    const { episode, batch, call } = found;
    if (call.held !== null) {
      episode.anomalies.push(anomaly('duplicate_held', `call ${call.tool_call_id} is held twice`, [call.held.seq, ref.seq], batch.batch_id, call.tool_call_id));
      return;
    }
    const call_key = text(payload, 'call_key') ?? '';
    const held = folder.lookupsOf(episode).held;
    const holding = held.get(call_key);
    if (holding === undefined) held.set(call_key, [{ batch, call }]);
    else holding.push({ batch, call });
    call.held = {
      seq: ref.seq,
      call_key,
      module: text(payload, 'module') ?? '',
      reason: text(payload, 'reason'),
      held_at_ms: integer(payload, 'held_at_ms'),
      sequential: flag(payload, 'sequential'),
      detail_digest: text(payload, 'detail_digest'),
      late_result_seq: null,
    };
  },

  late_result(folder, payload, ref) {
    folder.show(ref);
    const call_key = text(payload, 'call_key');
    const episode = folder.openEpisode();
    if (episode === null || call_key === null) return;
    for (const { batch, call } of folder.lookupsOf(episode).held.get(call_key) ?? []) {
      folder.touch(batch);
      call.held!.late_result_seq = ref.seq;
    }
  },

  steered(folder, payload, ref) {
    folder.episodeFor(ref)?.steers.push({
      seq: ref.seq,
      send_id: text(payload, 'send_id'),
      delivery: text(payload, 'delivery'),
      title: text(payload, 'title'),
      input: payload['input'] ?? null,
      joins_step: null,
    });
  },

  run_finished(folder, payload, ref) {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    episode.finished = { seq: ref.seq, reason: text(payload, 'reason'), usage: mapOrNull(payload, 'usage'), error: payload['error'] ?? null };
    folder.closed(episode);
  },

  run_cancel_requested(folder, payload, ref) {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    const run_id = text(payload, 'run_id');
    if (run_id !== episode.run_id) {
      episode.anomalies.push(anomaly('run_id_mismatch', `run_cancel_requested at seq ${ref.seq} names run ${run_id}, not ${episode.run_id}`, [episode.started_seq, ref.seq]));
    }
    episode.cancel_requests.push({ seq: ref.seq, run_id, at: text(payload, 'at') });
  },

  run_paused(folder, payload, ref) {
    folder.episodeFor(ref)?.pauses.push({ seq: ref.seq, reason: text(payload, 'reason') });
  },

  resume_started(folder, payload, ref) {
    const episode = folder.openEpisode();
    if (episode === null) return folder.show(ref);
    episode.resumes.push({
      seq: ref.seq,
      resumed_from_seq: integer(payload, 'resumed_from_seq'),
      redone: texts(payload['redone']),
      indeterminate: texts(payload['indeterminate']),
    });
  },

  approval_requested: (folder, payload, ref) => approval(folder, payload, ref, 'requested_seq'),
  approval_resolved: (folder, payload, ref) => approval(folder, payload, ref, 'resolved_seq'),
  approval_recorded: (folder, payload, ref) => approval(folder, payload, ref, 'recorded_seq'),

  queued: (folder, payload, ref) => folder.queueRecord(payload, ref),
  retracted: (folder, payload, ref) => folder.queueRecord(payload, ref),
  send_delivered: (folder, payload, ref) => folder.queueRecord(payload, ref),
};

/** What the fold builds of a record's payload, by type: the members its handler reads, and of an assistant
 *  message only its role and tool_use ids, of a call's args only the members that name what it acts on (a
 *  million small records' messages, args and digests were most of what the fold built and kept). The rest is
 *  validated, not built; whoever shows or sends it reads it back by offset (payloads.ts). Types not listed are
 *  built whole (their payloads are kept: notes, steers, queued sends, episodes' input). A payload the reader
 *  built is read whole; its handler keeps the same facts. The members come in places, not in an object made
 *  for them and read by name (building and reading those objects was ~5 % of a million records' fold). */
const KEPT: ReadonlyMap<string, KeptRecord> = new Map(Object.entries({
  model_attempt_finished: kept({ step_id: SCALAR, attempt: SCALAR, outcome: SCALAR, http_status: SCALAR, ts_ms: KEPT_STAMP, tags: WHOLE }, (folder, values, at, ref) => {
    const episode = folder.openEpisode();
    const step_id = asInteger(values[at.step_id]);
    if (episode === null || step_id === null) return folder.show(ref);
    const step = folder.step(episode, step_id);
    step.attempts = withItem(step.attempts, {
      seq: ref.seq,
      attempt: asInteger(values[at.attempt]),
      outcome: asText(values[at.outcome]),
      http_status: asInteger(values[at.http_status]),
      ts_ms: asInteger(values[at.ts_ms]),
    });
  }),

  model_step_finished: kept({ step_id: SCALAR, assistant_message: { role: SCALAR, content: [{ type: SCALAR, id: SCALAR }] }, usage: WHOLE, tags: WHOLE }, (folder, values, at, ref) => {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    const step = folder.step(episode, asInteger(values[at.step_id]) ?? 0);
    step.seq = ref.seq;
    // The message stays on disk (read back by offset): kept are its shape and the tool_use ids.
    const message = values[at.assistant_message] ?? null;
    const usage = values[at.usage];
    step.offset = ref.offset;
    step.role = isMap(message) ? text(message, 'role') : 'assistant';
    step.usage = isMap(usage) ? usage : null;
    step.tool_use_ids = toolUses(message).map((use) => use.id);
    step.natural_end = step.tool_use_ids.length === 0;
    const lookups = folder.lookupsOf(episode);
    for (let index = lookups.steers_unjoined_from; index < episode.steers.length; index++) folder.touch(episode.steers[index]!).joins_step = step.step_id;
    lookups.steers_unjoined_from = episode.steers.length;
  }),

  tool_batch_started: kept({ batch_id: SCALAR, step_id: SCALAR, sequential: SCALAR, planned_calls: [{ tool_call_id: SCALAR, name: SCALAR, plan: SCALAR, safe: SCALAR }], tags: WHOLE }, (folder, values, at, ref) => {
    folder.startBatch(asText(values[at.batch_id]) ?? '', asInteger(values[at.step_id]), values[at.sequential] === true, values[at.planned_calls], ref);
  }),

  tool_dispatch_intent: kept({ batch_id: SCALAR, tool_call_id: SCALAR, module_id: SCALAR, dispatched_at_ms: SCALAR, args: Object.fromEntries(TARGET_KEYS.map((key) => [key, SCALAR])), tags: WHOLE }, (folder, values, at, ref) => {
    const found = folder.call(asText(values[at.batch_id]) ?? '', asText(values[at.tool_call_id]) ?? '', ref);
    if (found === null) return;
    const { episode, batch, call } = found;
    if (call.intent !== null) {
      episode.anomalies.push(anomaly('duplicate_intent', `call ${call.tool_call_id} has a second intent at seq ${ref.seq}`, [call.intent.seq, ref.seq], batch.batch_id, call.tool_call_id));
      return;
    }
    // The args stay on disk (read back by offset): kept is what the call acts on, for the run signal.
    call.intent = { seq: ref.seq, offset: ref.offset, module_id: asText(values[at.module_id]), target: targetHint(values[at.args] ?? null) };
    call.dispatched_at_ms = asInteger(values[at.dispatched_at_ms]);
  }),

  tool_no_dispatch: kept({ batch_id: SCALAR, tool_call_id: SCALAR, dispatched_at_ms: SCALAR, reason: SCALAR, tags: WHOLE }, (folder, values, at, ref) => {
    const found = folder.call(asText(values[at.batch_id]) ?? '', asText(values[at.tool_call_id]) ?? '', ref);
    // Only the first terminal counts (a second one is an anomaly), and an intent's time is never replaced.
    if (found === null) return;
    const { call } = found;
    if (call.terminals.length === 0 && call.intent === null) call.dispatched_at_ms = asInteger(values[at.dispatched_at_ms]);
    call.terminals = withItem(call.terminals, {
      seq: ref.seq,
      type: 'tool_no_dispatch',
      outcome: null,
      is_error: true,
      reason: asText(values[at.reason]),
      offset: ref.offset,
      output_bytes: null,
    });
  }),

  tool_result: kept({ batch_id: SCALAR, tool_call_id: SCALAR, finished_at_ms: SCALAR, outcome: SCALAR, is_error: SCALAR, reason: SCALAR, output: OUTPUT_KEPT, tags: WHOLE }, (folder, values, at, ref) => {
    const found = folder.call(asText(values[at.batch_id]) ?? '', asText(values[at.tool_call_id]) ?? '', ref);
    if (found === null) return;
    const { call } = found;
    const reason = asText(values[at.reason]);
    if (call.terminals.length === 0) call.finished_at_ms = asInteger(values[at.finished_at_ms]);
    const output = values[at.output] as unknown as KeptOutput | undefined;
    call.terminals = withItem(call.terminals, {
      seq: ref.seq,
      type: 'tool_result',
      outcome: resultOutcome(asText(values[at.outcome]), reason, output?.text ?? undefined),
      is_error: values[at.is_error] === true,
      reason,
      offset: ref.offset,
      output_bytes: output?.size_bytes ?? ABSENT_OUTPUT_BYTES,
    });
  }),

  tool_batch_finished: kept({ batch_id: SCALAR, tags: WHOLE }, (folder, values, at, ref) => {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    const batch_id = asText(values[at.batch_id]);
    const batch = folder.batchOf(episode, batch_id);
    if (batch === undefined) {
      episode.anomalies.push(anomaly('unknown_batch', `tool_batch_finished at seq ${ref.seq} names a batch this episode never started`, [ref.seq], batch_id));
      return;
    }
    batch.finished_seq ??= ref.seq;
  }),

  turn_finished: kept({ step_id: SCALAR, tags: WHOLE }, (folder, values, at, ref) => {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    folder.step(episode, asInteger(values[at.step_id]) ?? 0).turn_finished_seq ??= ref.seq;
  }),
}));

/** The kept record type `type` names, if any (a Map: the type is WAL text, and one named like an
 *  Object.prototype member, `constructor`, is built whole, as every unknown type is). */
function keptRecord(type: string): KeptRecord | undefined {
  return KEPT.get(type);
}

/** A kept record's values from a payload the reader built whole: each member as the decoder would have built it
 *  (a ShortText member only when it is one). */
function valuesOfBuilt(table: MemberTable, payload: Payload): KeptValues {
  return table.names.map((name, place) => {
    if (!Object.hasOwn(payload, name)) return undefined;
    const projection = table.projections[place]!;
    if (projection === OUTPUT_KEPT) return keptOutputOfBuilt(payload[name]!) as unknown as JsonValue;
    return projection instanceof ShortText && !isShortText(payload[name]) ? undefined : toJsonValue(payload[name]!);
  });
}

function keptOutputOfBuilt(output: CborValue): KeptOutput {
  return new KeptOutput(isShortText(output) ? (output as string) : null, encodedSize(toJsonValue(output)));
}

function approval(folder: SessionFolder, payload: JsonPayload, ref: RecordRef, field: 'requested_seq' | 'resolved_seq' | 'recorded_seq'): void {
  const episode = folder.openEpisode();
  const tool_call_id = text(payload, 'tool_call_id');
  if (episode === null || tool_call_id === null) return folder.show(ref);
  const cards = folder.lookupsOf(episode).approvals;
  let card = cards.get(tool_call_id);
  if (card === undefined) {
    card = { tool_call_id, requested_seq: null, resolved_seq: null, decision: null, recorded_seq: null };
    episode.approvals.push(card);
    cards.set(tool_call_id, card);
  }
  folder.touch(card)[field] ??= ref.seq;
  if (field === 'resolved_seq') card.decision ??= text(payload, 'decision');
}

/** A view record's payload as CBOR values: its digest covers byte strings, which the kept JSON form turns into
 *  hex. Decoded whole (a view record is one frame, ≤ 16 MiB) only when the reader did not build it already. */
function viewPayload(frame: ReadFrame, payload_cbor: Buffer | undefined): Payload {
  if (frame.payload !== null || payload_cbor === undefined) return frame.payload ?? {};
  const value = decodeCbor(payload_cbor);
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array) ? (value as Payload) : {};
}

/** A frame's seq, offset and fence arrive from the reader's arithmetic as heap numbers (16 bytes each, kept by
 *  every step, call, terminal and batch that names a record: a tenth of a million records' fold). A value in
 *  the small-integer range is stored inline instead. */
function smallInteger(value: number): number {
  return value <= SMALL_INTEGER_MAX ? value | 0 : value;
}

const SMALL_INTEGER_MAX = 0x3fff_ffff;

function isShortText(value: unknown): boolean {
  return typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= LEFT_ON_DISK_TEXT_KEPT_BYTES_MAX;
}

/** Decodes a `type` record's payload map as the fold keeps it: a kept type's members into their places, any
 *  other type whole but for the member left on disk (kept only when it is a short text), checking every key for
 *  duplicates as `readItem` does. */
function decodeKept(decoder: CborDecoder, type: string): JsonPayload | KeptValues {
  const record = keptRecord(type);
  const count = decoder.readMapHead();
  if (record !== undefined) {
    const values: KeptValues = new Array<JsonValue | undefined>(record.table.names.length).fill(undefined);
    decoder.readMembers(record.table, count, 0, values);
    return values;
  }
  const left_on_disk = LEFT_ON_DISK[type];
  const payload: JsonPayload = {};
  const seen = new KeysSeen(count);
  for (let index = 0; index < count; index++) {
    const key = decoder.readNewKey(seen);
    if (key === left_on_disk && !decoder.atShortText(LEFT_ON_DISK_TEXT_KEPT_BYTES_MAX)) decoder.skipItem(1);
    else setOwn(payload, key, decoder.readItem(1) as JsonValue);
  }
  return payload;
}

/** Classification, the committable check and the episode states, computed on `fold` in place, but for the
 *  episodes already classified (handed out by `snapshotSince`). */
function classified(fold: LiveSession, done: (index: number) => boolean, sums: Sums): LiveSession {
  for (const [index, episode] of fold.episodes.entries()) if (!done(index)) classifyEpisode(episode, sums);
  fold.queue_drain_order = drainOrder(fold.queue);
  return fold;
}

/** A tool_result's outcome. Records older than the outcome field say unknown_outcome in reason or output. */
function resultOutcome(outcome: string | null, reason: string | null, output: JsonValue | undefined): LiveCall['terminals'][number]['outcome'] {
  if (outcome === 'completed' || outcome === 'unknown' || outcome === 'interrupted' || outcome === 'max_steps') return outcome;
  return reason === 'unknown_outcome' || output === 'unknown_outcome' ? 'unknown' : 'completed';
}

function drainOrder(queue: readonly QueueEntry[]): string[] {
  return pendingInDrainOrder({ queue }).map((entry) => entry.submission_id);
}

/** The pending queue entries in drain order: interrupts first, then plain entries, each in WAL order. */
export function pendingInDrainOrder(fold: Pick<SessionFold, 'queue'>): QueueEntry[] {
  const pending = fold.queue.filter((entry) => entry.state === 'pending');
  const interrupts = pending.filter((entry) => entry.delivery === 'interrupt');
  const plain = pending.filter((entry) => entry.delivery !== 'interrupt');
  return [...interrupts, ...plain];
}

// Sums over a long open episode's steps and batches, taken on from the last snapshot's instead of made again.
// A live session's snapshots share every step and batch no frame touched (SessionFolder.snapshotSince), and new
// ones come at the end: a sum kept at a point near the end of the last snapshot's list goes on over what came
// after it, once the items before that point are checked to be the very same objects (an identity check per
// item, no work on them). An append to an episode of a hundred thousand steps adds the few items it changed.
import { ChunkedList, type Parts } from '../../src-shared/parts.js';
import type { EpisodeFold } from '../../src-shared/replay.js';

/** The snapshots' copies of the same episode each copy was made from, the latest first (set by
 *  SessionFolder.snapshotSince). A sum not asked for at the last snapshot (a view nobody opened, a state only
 *  paused runs need) goes on from an earlier one's. */
const made_from = new WeakMap<EpisodeFold, readonly EpisodeFold[]>();

/** Copies a sum may go back through; each keeps its lists (and its sums' checkpoints) alive. */
const MADE_FROM_KEPT_MAX = 4;

export function madeFrom(copy: EpisodeFold): EpisodeFold | undefined {
  return made_from.get(copy)?.[0];
}

export function noteMadeFrom(copy: EpisodeFold, previous: EpisodeFold): void {
  // The newest copy holds the chain: a chain through every copy would keep every snapshot of a live session.
  // A finished episode holds none (its sums keep no checkpoint to go on from).
  if (copy.finished === null) made_from.set(copy, [previous, ...(made_from.get(previous) ?? [])].slice(0, MADE_FROM_KEPT_MAX));
  made_from.delete(previous);
}

/** The checkpoint is kept this many items before the end: an append that changes one of the last few items
 *  (the step in flight, its batch) goes on from it; one that reaches further back starts over. */
const CHECKPOINT_BACK_ITEMS = 8;

export interface ResumableSpec<Item, State> {
  items(episode: EpisodeFold): Parts<Item>;
  initial(episode: EpisodeFold): State;
  /** Adds one item to `state` (changing it). */
  add(state: State, item: Item, episode: EpisodeFold): void;
  /** A copy `add` may change without changing `state`. */
  copy(state: State): State;
  /** How many leading items of `episode` add what the items at the same places of `before` (the snapshot it was
   *  made from) added: the sum is taken on from a checkpoint no further than that. */
  shared(before: EpisodeFold, episode: EpisodeFold, items_before: Parts<Item>, items: Parts<Item>): number;
  /** For a state of lists that `add` only appends to (an episode's rows, its request part): the checkpoint keeps
   *  their lengths instead of a copy, and the next snapshot takes the earlier snapshot's state over, cut back
   *  to them (that snapshot's sum is made again if it is asked for again). Without it, states are copied. */
  rewind?: { mark(state: State): unknown; to(state: State, mark: unknown): void };
}

interface Kept<Item, State> {
  state: State;
  checkpoint: { items: Parts<Item>; at: number; state: State | null; mark: unknown } | null;
}

/** One sum per episode snapshot: made once, and for a copy of an episode summed before, taken on from there. */
export class EpisodeSum<Item, State> {
  private readonly kept = new WeakMap<EpisodeFold, Kept<Item, State>>();
  /** Items added by every sum in this process: what appends cost (the tests count it). */
  static items_added = 0;

  constructor(private readonly spec: ResumableSpec<Item, State>) {}

  /** The sum over `episode`'s items; read-only, and good until the next snapshot's sum is made (`rewind`). */
  of(episode: EpisodeFold): State {
    const known = this.kept.get(episode);
    if (known !== undefined) return known.state;
    const items = this.spec.items(episode);
    const resumed = this.resumable(items, episode);
    const state = resumed === null ? this.spec.initial(episode) : this.takeOver(resumed);
    const from = resumed?.checkpoint.at ?? 0;
    const mark = Math.max(from, items.length - CHECKPOINT_BACK_ITEMS);
    // A finished episode keeps no checkpoint: a late record reaching it (rare) sums it again, and a session of
    // thousands of episodes does not hold a second copy of each one's sums.
    const open = episode.finished === null;
    let checkpoint: Kept<Item, State>['checkpoint'] = null;
    for (let index = from; index < items.length; index++) {
      if (index === mark && open) checkpoint = this.checkpoint(items, index, state);
      this.spec.add(state, items.at(index)!, episode);
    }
    EpisodeSum.items_added += items.length - from;
    if (open) checkpoint ??= this.checkpoint(items, items.length, state);
    this.kept.set(episode, { state, checkpoint });
    return state;
  }

  private checkpoint(items: Parts<Item>, at: number, state: State): NonNullable<Kept<Item, State>['checkpoint']> {
    const rewind = this.spec.rewind;
    return rewind === undefined ? { items, at, state: this.spec.copy(state), mark: null } : { items, at, state: null, mark: rewind.mark(state) };
  }

  /** The state to go on from: a copy of the checkpoint's, or the earlier snapshot's own, cut back to it. */
  private takeOver(resumed: { before: EpisodeFold; kept: Kept<Item, State>; checkpoint: NonNullable<Kept<Item, State>['checkpoint']> }): State {
    const { rewind } = this.spec;
    if (rewind === undefined) return this.spec.copy(resumed.checkpoint.state!);
    this.kept.delete(resumed.before);
    rewind.to(resumed.kept.state, resumed.checkpoint.mark);
    return resumed.kept.state;
  }

  /** The latest earlier snapshot summed, when every item before its checkpoint is still the same. */
  private resumable(items: Parts<Item>, episode: EpisodeFold): { before: EpisodeFold; kept: Kept<Item, State>; checkpoint: NonNullable<Kept<Item, State>['checkpoint']> } | null {
    for (const before of made_from.get(episode) ?? []) {
      const kept = this.kept.get(before);
      if (kept === undefined) continue;
      const { checkpoint } = kept;
      if (checkpoint === null || checkpoint.at > items.length) return null;
      return checkpoint.at <= this.spec.shared(before, episode, checkpoint.items, items) ? { before, kept, checkpoint } : null;
    }
    return null;
  }
}

/** How many leading items of two lists are the same by `same` (default: the same objects). */
export function sharedBy<T>(before: Parts<T>, now: Parts<T>, same: (was: T, now: T) => boolean = (was, is) => was === is): number {
  let at = 0;
  while (at < before.length && at < now.length && same(before.at(at)!, now.at(at)!)) at++;
  return at;
}

/** `sharedBy` for a `same` that holds for an item and itself: `same` is asked only where the two items are not the
 *  same object, and the chunks two chunked lists share (a request part made from the last one) are stepped over
 *  without a walk. Through `same` (a call from a walk serving many callers, which the JIT does not inline) the
 *  200k messages of a million records' open episode took ~9 ms an append. */
export function sharedByIdentityOr<T extends object>(before: Parts<T>, now: Parts<T>, same: (was: T, now: T) => boolean): number {
  const length = Math.min(before.length, now.length);
  let at = before instanceof ChunkedList && now instanceof ChunkedList ? ChunkedList.sharedPrefix(before, now) : 0;
  while (at < length) {
    const was = before.at(at)!;
    const is = now.at(at)!;
    if (was !== is && !same(was, is)) return at;
    at++;
  }
  return at;
}

/** How many leading items of two lists are the same objects: for two chunked lists (a live episode's snapshots,
 *  made one from the other), from the chunks they share; other lists are walked (a million records' open
 *  episode's 100k steps and 100k batches walked several times an append, each item's load missing the cache). */
export function sharedObjects<T extends object>(before: Parts<T>, now: Parts<T>): number {
  if (now === before) return now.length;
  if (before instanceof ChunkedList && now instanceof ChunkedList) return ChunkedList.sharedPrefix(before, now);
  const walked = sharedBy(before, now);
  unknown_lists_walked.items += walked;
  return walked;
}

/** Items `sharedObjects` walked for lists that are not both chunked: what the tests count. */
export const unknown_lists_walked = { items: 0 };

/** Per list of an episode snapshot, against the snapshot it was made from: once for every sum over it (a list
 *  replaced, as classification replaces the batches, is measured anew). The earlier list is held weakly: held
 *  strongly, each snapshot's list kept the one before it alive, and a live tail every list it ever made. */
interface SharedCount {
  before: WeakRef<Parts<object>>;
  same: number;
}

const shared_counts = new WeakMap<Parts<object>, SharedCount>();

function sharedOf(before: Parts<object>, now: Parts<object>): SharedCount {
  let shared = shared_counts.get(now);
  if (shared?.before.deref() !== before) shared_counts.set(now, (shared = { before: new WeakRef(before), same: sharedObjects(before, now) }));
  return shared;
}

/** For a sum over the steps that reads nothing else: how many leading steps are the same objects. */
export function sharedSteps(before: EpisodeFold, episode: EpisodeFold): number {
  return sharedOf(before.steps, episode.steps).same;
}

/** For a sum over the batches that reads nothing else: how many leading batches are the same objects. */
export function sharedBatches(before: EpisodeFold, episode: EpisodeFold): number {
  return sharedOf(before.batches, episode.batches).same;
}

/** A sum over a fold's episodes, taken on from the last fold's over the leading finished episodes both hold as
 *  the same objects (a live session's snapshots share every finished episode no record reached since): an
 *  append adds the open episode's part, not every episode's (a million records' 5,000 episodes summed at every
 *  append cost ~4 ms for the tokens alone). One per session's views. */
export class FinishedEpisodesSum<Sum> {
  private kept: { episodes: readonly EpisodeFold[]; finished: number; sum: Sum } | null = null;
  /** Episodes added over this sum's life: what a build cost (the tests count it). */
  episodes_added = 0;

  constructor(private readonly spec: { initial(): Sum; copy(sum: Sum): Sum; add(sum: Sum, episode: EpisodeFold, index: number): void }) {}

  of(episodes: readonly EpisodeFold[]): Sum {
    const kept = this.kept;
    let at = 0;
    if (kept !== null) while (at < kept.finished && episodes[at] === kept.episodes[at]) at++;
    // An earlier finished episode replaced (a late record reached it): summed again from the first.
    const reused = kept !== null && at === kept.finished;
    if (!reused) at = 0;
    const sum = reused ? this.spec.copy(kept.sum) : this.spec.initial();
    const add = (index: number) => {
      this.spec.add(sum, episodes[index]!, index);
      this.episodes_added += 1;
    };
    for (; at < episodes.length && episodes[at]!.finished !== null; at++) add(at);
    this.kept = { episodes, finished: at, sum: this.spec.copy(sum) };
    for (let index = at; index < episodes.length; index++) add(index);
    return sum;
  }
}

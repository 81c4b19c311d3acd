// One session's sums, kept current: a live session's snapshots share every step and batch no frame touched
// (SessionFolder.snapshotSince), and new ones come at the end, so a sum kept at a point near the end of the last
// snapshot's list goes on over what came after it, once the items before that point are checked to be the very
// same objects (an identity check per item, no work on them). An append to an episode of a hundred thousand
// steps adds the few items it changed. The store lives with the session's folder (services/session-tailer.ts)
// and dies with it; replay's functions take it where the CLI hands them a `FullSums`.
import type { EpisodeFold } from '../../src-shared/replay.js';
import { FullSums, type SumSpec } from '../replay/sums.js';
import type { Parts } from '../../src-shared/parts.js';

/** Copies a sum may go back through; each keeps its lists (and its sums' checkpoints) alive. */
const MADE_FROM_KEPT_MAX = 4;

/** The checkpoint is kept this many items before the end: an append that changes one of the last few items
 *  (the step in flight, its batch) goes on from it; one that reaches further back starts over. */
const CHECKPOINT_BACK_ITEMS = 8;

export class IncrementalSums extends FullSums {
  /** The snapshots' copies of the same episode each copy was made from, the latest first. A sum not asked for
   *  at the last snapshot (a view nobody opened, a state only paused runs need) goes on from an earlier one's. */
  private readonly made_from = new WeakMap<EpisodeFold, readonly EpisodeFold[]>();
  private readonly episode_sums = new Map<SumSpec<unknown, unknown>, EpisodeSum<unknown, unknown>>();
  override sum<Item, State>(spec: SumSpec<Item, State>, episode: EpisodeFold): State {
    let sum = this.episode_sums.get(spec as SumSpec<unknown, unknown>) as EpisodeSum<Item, State> | undefined;
    if (sum === undefined) this.episode_sums.set(spec as SumSpec<unknown, unknown>, (sum = new EpisodeSum(spec)) as EpisodeSum<unknown, unknown>);
    return sum.of(episode, this);
  }

  override madeFrom(copy: EpisodeFold): EpisodeFold | undefined {
    return this.made_from.get(copy)?.[0];
  }

  /** Every earlier copy of `copy`'s episode a sum may go on from, the latest first. */
  madeFromAll(copy: EpisodeFold): readonly EpisodeFold[] {
    return this.made_from.get(copy) ?? [];
  }

  override noteMadeFrom(copy: EpisodeFold, previous: EpisodeFold): void {
    // The newest copy holds the chain: a chain through every copy would keep every snapshot of a live session.
    // A finished episode holds none (its sums keep no checkpoint to go on from).
    if (copy.finished === null) this.made_from.set(copy, [previous, ...(this.made_from.get(previous) ?? [])].slice(0, MADE_FROM_KEPT_MAX));
    this.made_from.delete(previous);
  }
}

interface Kept<Item, State> {
  state: State;
  checkpoint: { items: Parts<Item>; at: number; state: State | null; mark: unknown } | null;
}

/** One sum per episode snapshot: made once, and for a copy of an episode summed before, taken on from there. The
 *  store's sums are these; a view keeps its own for sums only it reads (calls by class, rows), counted in the
 *  store's work. */
export class EpisodeSum<Item, State> {
  private readonly kept = new WeakMap<EpisodeFold, Kept<Item, State>>();

  constructor(private readonly spec: SumSpec<Item, State>) {}

  /** The sum over `episode`'s items; read-only, and good until the next snapshot's sum is made (`rewind`). */
  of(episode: EpisodeFold, sums: IncrementalSums): State {
    const known = this.kept.get(episode);
    if (known !== undefined) return known.state;
    const items = this.spec.items(episode, sums);
    const resumed = this.resumable(items, episode, sums);
    const state = resumed === null ? this.spec.initial(episode) : this.takeOver(resumed);
    const from = resumed?.checkpoint.at ?? 0;
    const mark = Math.max(from, items.length - CHECKPOINT_BACK_ITEMS);
    // A finished episode keeps no checkpoint: a late record reaching it (rare) sums it again, and a session of
    // thousands of episodes does not hold a second copy of each one's sums.
    const open = episode.finished === null;
    let checkpoint: Kept<Item, State>['checkpoint'] = null;
    for (let index = from; index < items.length; index++) {
      if (index === mark && open) checkpoint = this.checkpoint(items, index, state);
      this.spec.add(state, items.at(index)!, episode, sums);
    }
    sums.work.items_added += items.length - from;
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
  private resumable(items: Parts<Item>, episode: EpisodeFold, sums: IncrementalSums): { before: EpisodeFold; kept: Kept<Item, State>; checkpoint: NonNullable<Kept<Item, State>['checkpoint']> } | null {
    for (const before of sums.madeFromAll(episode)) {
      const kept = this.kept.get(before);
      if (kept === undefined) continue;
      const { checkpoint } = kept;
      if (checkpoint === null || checkpoint.at > items.length) return null;
      return checkpoint.at <= this.spec.shared(before, episode, sums, checkpoint.items, items) ? { before, kept, checkpoint } : null;
    }
    return null;
  }
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

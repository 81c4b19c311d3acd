// What replay's functions derive from a fold and keep while they work: sums over an episode's steps and batches,
// its index, its part of the request, per episode, batch, step or message. Replay only defines them (a
// `SumSpec`, a `Table`: constants with no state); the values live in a `Sums` store the caller hands in, and die
// with it. `FullSums` (here) computes each sum in full, once per fold object it is asked about: what the CLI,
// the runtime and the crash simulator use, a store per call or per fold. The views' store
// (views/incremental-sums.ts) lives with one session and takes each sum of a live episode's next snapshot on
// from the last one's; the incremental law (docs/testing.md) holds the two equal.
import type { Parts } from '../../src-shared/parts.js';
import type { EpisodeFold } from '../../src-shared/replay.js';

/** A sum over one of an episode's lists, item by item. */
export interface SumSpec<Item, State> {
  items(episode: EpisodeFold, sums: Sums): Parts<Item>;
  initial(episode: EpisodeFold): State;
  /** Adds one item to `state` (changing it). */
  add(state: State, item: Item, episode: EpisodeFold, sums: Sums): void;
  /** A copy `add` may change without changing `state`. */
  copy(state: State): State;
  /** How many leading items of `episode` add what the items at the same places of `before` (the snapshot it was
   *  made from) added: a store that takes sums on goes on from a checkpoint no further than that. */
  shared(before: EpisodeFold, episode: EpisodeFold, sums: Sums, items_before: Parts<Item>, items: Parts<Item>): number;
  /** For a state of lists that `add` only appends to (an episode's rows, its request part): a store that takes
   *  sums on keeps their lengths at its checkpoint instead of a copy, and cuts the earlier snapshot's state back
   *  to them. */
  rewind?: { mark(state: State): unknown; to(state: State, mark: unknown): void };
}

/** A table of values derived from fold objects (`Key`: an episode, a batch, a step, a message, a list), one per
 *  store: `Sums.table` hands out the store's. Its types are its only content. */
export class Table<Key extends object, Value> {
  declare private readonly types: [Key, Value];
  constructor(readonly name: string) {}
}

/** What a store's sums cost, counted as they are made (the tests hold appends to bounds on these). */
export interface SumsWork {
  /** Items added to sums. */
  items_added: number;
  /** Steps and batches indexed (EpisodeIndex). */
  parts_indexed: number;
  /** Items walked to find how many two lists share, for lists that are not both chunked (`sharedObjects`). */
  lists_walked: number;
}

export interface Sums {
  readonly work: SumsWork;
  /** `spec`'s sum over `episode`: read-only, and good until the store is asked for the same sum over a later
   *  snapshot of the episode (a store that takes sums on may rewind this state for it). */
  sum<Item, State>(spec: SumSpec<Item, State>, episode: EpisodeFold): State;
  /** This store's table: values kept as long as the store and their key. */
  table<Key extends object, Value>(table: Table<Key, Value>): WeakMap<Key, Value>;
  /** The copy of `episode` in the snapshot it was made from, when the store was told (`noteMadeFrom`). */
  madeFrom(episode: EpisodeFold): EpisodeFold | undefined;
  /** Told by the folder for each episode copy it hands out in a snapshot made from an earlier one. */
  noteMadeFrom(copy: EpisodeFold, previous: EpisodeFold): void;
}

/** Every sum computed in full, once per episode object, and kept as long as the store. */
export class FullSums implements Sums {
  private readonly tables = new Map<Table<object, unknown>, WeakMap<object, unknown>>();
  private readonly sums = new Map<SumSpec<unknown, unknown>, WeakMap<EpisodeFold, unknown>>();
  readonly work: SumsWork = { items_added: 0, parts_indexed: 0, lists_walked: 0 };

  sum<Item, State>(spec: SumSpec<Item, State>, episode: EpisodeFold): State {
    let kept = this.sums.get(spec as SumSpec<unknown, unknown>) as WeakMap<EpisodeFold, State> | undefined;
    if (kept === undefined) this.sums.set(spec as SumSpec<unknown, unknown>, (kept = new WeakMap()));
    if (kept.has(episode)) return kept.get(episode)!;
    const state = spec.initial(episode);
    const items = spec.items(episode, this);
    for (let index = 0; index < items.length; index++) spec.add(state, items.at(index)!, episode, this);
    this.work.items_added += items.length;
    kept.set(episode, state);
    return state;
  }

  table<Key extends object, Value>(table: Table<Key, Value>): WeakMap<Key, Value> {
    let kept = this.tables.get(table as Table<object, unknown>) as WeakMap<Key, Value> | undefined;
    if (kept === undefined) this.tables.set(table as Table<object, unknown>, (kept = new WeakMap()));
    return kept;
  }

  madeFrom(_episode: EpisodeFold): EpisodeFold | undefined {
    return undefined;
  }

  noteMadeFrom(_copy: EpisodeFold, _previous: EpisodeFold): void {}
}

// How far two snapshots of an episode hold the same items: what a store that takes sums on from the last
// snapshot (views/incremental-sums.ts) asks a sum's spec (`SumSpec.shared`) before it goes on.
import { ChunkedList, type Parts } from '../../src-shared/parts.js';
import type { EpisodeFold } from '../../src-shared/replay.js';
import { Table, type Sums, type SumsWork } from './sums.js';

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
export function sharedObjects<T extends object>(before: Parts<T>, now: Parts<T>, work: SumsWork): number {
  if (now === before) return now.length;
  if (before instanceof ChunkedList && now instanceof ChunkedList) return ChunkedList.sharedPrefix(before, now);
  const walked = sharedBy(before, now);
  work.lists_walked += walked;
  return walked;
}

/** Per list of an episode snapshot, against the snapshot it was made from: once for every sum over it (a list
 *  replaced, as classification replaces the batches, is measured anew). The earlier list is held weakly: held
 *  strongly, each snapshot's list kept the one before it alive, and a live tail every list it ever made. */
interface SharedCount {
  before: WeakRef<Parts<object>>;
  same: number;
}

const SHARED_COUNTS = new Table<Parts<object>, SharedCount>('shared counts');

function sharedOf(before: Parts<object>, now: Parts<object>, sums: Sums): SharedCount {
  const shared_counts = sums.table(SHARED_COUNTS);
  let shared = shared_counts.get(now);
  if (shared?.before.deref() !== before) shared_counts.set(now, (shared = { before: new WeakRef(before), same: sharedObjects(before, now, sums.work) }));
  return shared;
}

/** For a sum over the steps that reads nothing else: how many leading steps are the same objects. */
export function sharedSteps(before: EpisodeFold, episode: EpisodeFold, sums: Sums): number {
  return sharedOf(before.steps, episode.steps, sums).same;
}

/** For a sum over the batches that reads nothing else: how many leading batches are the same objects. */
export function sharedBatches(before: EpisodeFold, episode: EpisodeFold, sums: Sums): number {
  return sharedOf(before.batches, episode.batches, sums).same;
}

// An episode's parts (steps, batches, a request part's messages) as the fold and its views read them: a plain
// array (the live fold's lists, a finished episode's) or a ChunkedList (a live episode's snapshots). A live
// session makes a snapshot at every append; copied whole, each list of a million records' open episode was
// ~0.8 MB a snapshot, four of them, all still held at the next minor collection (the views keep the last few
// snapshots), so all promoted: the old generation grew ~6 MB an append and was marked whole every few dozen
// appends, inside them. A ChunkedList shares every chunk the append did not reach with the last snapshot's: an
// append copies a chunk or two of each list, small objects that die young.

/** The reads every holder of an episode's parts makes; a plain array has them all. */
export interface Parts<T> extends Iterable<T> {
  readonly length: number;
  at(index: number): T | undefined;
  map<U>(make: (item: T, index: number) => U): U[];
  filter<S extends T>(keep: (item: T, index: number) => item is S): S[];
  filter(keep: (item: T, index: number) => unknown): T[];
  find<S extends T>(found: (item: T, index: number) => item is S): S | undefined;
  find(found: (item: T, index: number) => unknown): T | undefined;
  findLast(found: (item: T, index: number) => unknown): T | undefined;
  findIndex(found: (item: T, index: number) => unknown): number;
  flatMap<U>(make: (item: T, index: number) => U | readonly U[]): U[];
  some(found: (item: T, index: number) => unknown): boolean;
  every(holds: (item: T, index: number) => unknown): boolean;
  reduce<U>(add: (sum: U, item: T, index: number) => U, initial: U): U;
  slice(start?: number, end?: number): T[];
  lastIndexOf(item: T, from_index?: number): number;
}

/** Items per chunk, as a power of two: a chunk is 4 KiB of pointers (a small object, allocated young), and a
 *  list of 200k items is 391 chunks, compared by identity in a few hundred loads. */
const CHUNK_ITEMS_LOG2 = 9;
const CHUNK_ITEMS = 1 << CHUNK_ITEMS_LOG2;
const CHUNK_MASK = CHUNK_ITEMS - 1;

/** An immutable list held in chunks of CHUNK_ITEMS items (the last one shorter), chunk k holding items
 *  k·CHUNK_ITEMS onwards: two lists with the same items have the same chunks' contents, and a list made from
 *  another shares its chunks up to the first item that differs. */
export class ChunkedList<T> implements Parts<T> {
  private constructor(
    private readonly chunks: readonly (readonly T[])[],
    readonly length: number,
  ) {}

  /** Items put into new chunks by every list made in this process: what an append's snapshot copied (the tests
   *  count it). */
  static items_copied = 0;

  static of<T>(items: readonly T[]): ChunkedList<T> {
    return new ChunkedList<T>([], 0).withTail(0, items);
  }

  /** This list's first `from` items followed by `tail`: every whole chunk before `from` is this list's own. */
  withTail(from: number, tail: readonly T[]): ChunkedList<T> {
    if (!(from >= 0 && from <= this.length)) throw new RangeError(`a list of ${this.length} items has no place ${from}`);
    const kept_chunks = from >>> CHUNK_ITEMS_LOG2;
    const chunks = this.chunks.slice(0, kept_chunks);
    let chunk: T[] = this.chunks[kept_chunks]?.slice(0, from & CHUNK_MASK) ?? [];
    for (const item of tail) {
      if (chunk.length === CHUNK_ITEMS) {
        chunks.push(chunk);
        chunk = [];
      }
      chunk.push(item);
    }
    if (chunk.length > 0) chunks.push(chunk);
    ChunkedList.items_copied += (from & CHUNK_MASK) + tail.length;
    const list = new ChunkedList(chunks, from + tail.length);
    if (list.chunks.length !== (list.length + CHUNK_MASK) >>> CHUNK_ITEMS_LOG2) throw new Error(`a list of ${list.length} items was made with ${list.chunks.length} chunks`);
    return list;
  }

  /** This list with the items at the places `changes` names replaced and `added` after them: every whole chunk
   *  before the first change is this list's own. */
  withChanges(changes: ReadonlyMap<number, T>, added: readonly T[] = []): ChunkedList<T> {
    let first = this.length;
    for (const place of changes.keys()) {
      if (!(place >= 0 && place < this.length)) throw new RangeError(`a list of ${this.length} items has no place ${place} to change`);
      first = Math.min(first, place);
    }
    const tail: T[] = [];
    for (let place = first; place < this.length; place++) tail.push(changes.has(place) ? changes.get(place)! : this.at(place)!);
    for (const item of added) tail.push(item);
    return this.withTail(first, tail);
  }

  /** How many leading items `before` and `now` hold as the same objects: chunks both share are not walked. */
  static sharedPrefix<T>(before: ChunkedList<T>, now: ChunkedList<T>): number {
    const length = Math.min(before.length, now.length);
    let chunk = 0;
    while (chunk < before.chunks.length && before.chunks[chunk] === now.chunks[chunk]) chunk++;
    let at = chunk << CHUNK_ITEMS_LOG2;
    while (at < length && before.at(at) === now.at(at)) at++;
    return Math.min(at, length);
  }

  at(index: number): T | undefined {
    const place = index < 0 ? index + this.length : index;
    if (!(place >= 0 && place < this.length)) return undefined;
    return this.chunks[place >>> CHUNK_ITEMS_LOG2]![place & CHUNK_MASK];
  }

  *[Symbol.iterator](): Iterator<T> {
    for (const chunk of this.chunks) for (const item of chunk) yield item;
  }

  /** Calls `visit` on each item in order, with its place, until it returns false. */
  private walk(visit: (item: T, index: number) => boolean | void): void {
    let index = 0;
    for (const chunk of this.chunks) for (const item of chunk) if (visit(item, index++) === false) return;
  }

  map<U>(make: (item: T, index: number) => U): U[] {
    const made: U[] = [];
    this.walk((item, index) => void made.push(make(item, index)));
    return made;
  }

  filter<S extends T>(keep: (item: T, index: number) => item is S): S[];
  filter(keep: (item: T, index: number) => unknown): T[];
  filter(keep: (item: T, index: number) => unknown): T[] {
    const kept: T[] = [];
    this.walk((item, index) => void (keep(item, index) ? kept.push(item) : 0));
    return kept;
  }

  find<S extends T>(found: (item: T, index: number) => item is S): S | undefined;
  find(found: (item: T, index: number) => unknown): T | undefined;
  find(found: (item: T, index: number) => unknown): T | undefined {
    let result: T | undefined;
    this.walk((item, index) => (found(item, index) ? ((result = item), false) : true));
    return result;
  }

  findLast(found: (item: T, index: number) => unknown): T | undefined {
    for (let index = this.length - 1; index >= 0; index--) {
      const item = this.at(index)!;
      if (found(item, index)) return item;
    }
    return undefined;
  }

  findIndex(found: (item: T, index: number) => unknown): number {
    let result = -1;
    this.walk((item, index) => (found(item, index) ? ((result = index), false) : true));
    return result;
  }

  flatMap<U>(make: (item: T, index: number) => U | readonly U[]): U[] {
    const made: U[] = [];
    this.walk((item, index) => {
      const items = make(item, index);
      if (Array.isArray(items)) for (const one of items as readonly U[]) made.push(one);
      else made.push(items as U);
    });
    return made;
  }

  some(found: (item: T, index: number) => unknown): boolean {
    return this.findIndex(found) >= 0;
  }

  every(holds: (item: T, index: number) => unknown): boolean {
    return this.findIndex((item, index) => !holds(item, index)) < 0;
  }

  reduce<U>(add: (sum: U, item: T, index: number) => U, initial: U): U {
    let sum = initial;
    this.walk((item, index) => void (sum = add(sum, item, index)));
    return sum;
  }

  slice(start = 0, end = this.length): T[] {
    const [from, to] = [clampedPlace(start, this.length), clampedPlace(end, this.length)];
    const items: T[] = [];
    for (let index = from; index < to; index++) items.push(this.at(index)!);
    return items;
  }

  lastIndexOf(item: T, from_index = this.length - 1): number {
    for (let index = Math.min(from_index < 0 ? from_index + this.length : from_index, this.length - 1); index >= 0; index--) if (this.at(index) === item) return index;
    return -1;
  }

  /** A plain array: what JSON and structured copies of a fold hold. */
  toJSON(): T[] {
    return this.slice();
  }
}

/** `slice`'s reading of a start or end: negative from the end, within the list. */
function clampedPlace(place: number, length: number): number {
  return Math.max(0, Math.min(length, place < 0 ? place + length : place));
}

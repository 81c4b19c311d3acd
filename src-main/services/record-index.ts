// The frame index of one WAL in typed arrays: a million records cost ~40 MB here instead of a million objects,
// and a page of the record list is a slice, not a walk. Payloads are not kept: `getRecord` re-reads one frame.
import type { RecordRow } from '../../src-shared/ipc.js';
import type { DigestAlgorithmName, ReadFrame } from '../../src-shared/wal.js';

const INITIAL_CAPACITY = 1_024;
/** Distinct record types or feature sets past this share one "other" slot: hostile WALs cannot grow the tables. */
const INTERNED_MAX = 4_096;

class Interner {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();

  id(value: string): number {
    const known = this.ids.get(value);
    if (known !== undefined) return known;
    if (this.values.length >= INTERNED_MAX) return this.id('(other)');
    this.values.push(value);
    this.ids.set(value, this.values.length - 1);
    return this.values.length - 1;
  }
}

const ALGORITHMS: DigestAlgorithmName[] = ['sha256', 'blake3'];

export class RecordIndex {
  private offsets = new Float64Array(INITIAL_CAPACITY);
  private sizes = new Uint32Array(INITIAL_CAPACITY);
  private seqs = new Float64Array(INITIAL_CAPACITY);
  private fences = new Float64Array(INITIAL_CAPACITY);
  private vers = new Uint8Array(INITIAL_CAPACITY);
  private algorithms = new Uint8Array(INITIAL_CAPACITY);
  private types = new Uint16Array(INITIAL_CAPACITY);
  private feature_sets = new Uint16Array(INITIAL_CAPACITY);
  /** frame index of record seq k at [k]; lineage frames (seq 0) are not in it. */
  private frame_of_seq = new Uint32Array(INITIAL_CAPACITY);
  private readonly type_names = new Interner();
  private readonly feature_names = new Interner();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(frame: ReadFrame): void {
    if (this.count === this.offsets.length) this.grow();
    const index = this.count;
    this.offsets[index] = frame.offset;
    this.sizes[index] = frame.size_bytes;
    this.seqs[index] = frame.seq;
    this.fences[index] = frame.fence;
    this.vers[index] = Math.min(frame.ver, 255);
    this.algorithms[index] = ALGORITHMS.indexOf(frame.digest_algorithm);
    this.types[index] = this.type_names.id(frame.type);
    this.feature_sets[index] = this.feature_names.id(frame.features.join(','));
    if (frame.seq > 0) {
      if (frame.seq >= this.frame_of_seq.length) this.frame_of_seq = grown(this.frame_of_seq, frame.seq + 1);
      this.frame_of_seq[frame.seq] = index;
    }
    this.count += 1;
  }

  row(index: number): RecordRow {
    const features = this.feature_names.values[this.feature_sets[index]!]!;
    return {
      index,
      offset: this.offsets[index]!,
      size_bytes: this.sizes[index]!,
      seq: this.seqs[index]!,
      ver: this.vers[index]!,
      fence: this.fences[index]!,
      type: this.type_names.values[this.types[index]!]!,
      features: features === '' ? [] : features.split(','),
      digest_algorithm: ALGORITHMS[this.algorithms[index]!]!,
    };
  }

  rows(start: number, count: number): RecordRow[] {
    const end = Math.min(this.count, start + count);
    const out: RecordRow[] = [];
    for (let index = Math.max(0, start); index < end; index++) out.push(this.row(index));
    return out;
  }

  /** The frame index of record `seq`, or null when the WAL holds no such record. */
  frameOfSeq(seq: number): number | null {
    if (!Number.isSafeInteger(seq) || seq < 1 || seq >= this.frame_of_seq.length) return null;
    const index = this.frame_of_seq[seq]!;
    return index < this.count && this.seqs[index] === seq ? index : null;
  }

  seqAt(index: number): number {
    return this.seqs[index]!;
  }

  fenceAt(index: number): number {
    return this.fences[index]!;
  }

  offsetAt(index: number): number {
    return this.offsets[index]!;
  }

  typeName(index: number): string {
    return this.type_names.values[this.types[index]!]!;
  }

  /** The types of the records indexed (at most INTERNED_MAX, "(other)" standing for the rest). */
  typeNames(): readonly string[] {
    return this.type_names.values;
  }

  private grow(): void {
    const capacity = this.offsets.length * 2;
    this.offsets = grown(this.offsets, capacity);
    this.sizes = grown(this.sizes, capacity);
    this.seqs = grown(this.seqs, capacity);
    this.fences = grown(this.fences, capacity);
    this.vers = grown(this.vers, capacity);
    this.algorithms = grown(this.algorithms, capacity);
    this.types = grown(this.types, capacity);
    this.feature_sets = grown(this.feature_sets, capacity);
  }
}

type Typed = Float64Array | Uint32Array | Uint16Array | Uint8Array;

function grown<T extends Typed>(array: T, minimum: number): T {
  let capacity = Math.max(array.length, 1);
  while (capacity < minimum) capacity *= 2;
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}

// The fold's index of every frame it folded, in typed arrays: a million RecordRef objects cost ~60 MB and a
// good share of the garbage collector's time; four numbers a frame in growable arrays cost 28 bytes.
import assert from 'node:assert/strict';
import type { RecordIndex, RecordRef } from '../../src-shared/replay.js';

const INITIAL_CAPACITY = 1_024;

export function emptyRecordIndex(): RecordIndex {
  return {
    count: 0,
    seqs: new Float64Array(INITIAL_CAPACITY),
    offsets: new Float64Array(INITIAL_CAPACITY),
    fences: new Float64Array(INITIAL_CAPACITY),
    type_ids: new Uint32Array(INITIAL_CAPACITY),
    types: [],
  };
}

/** Appends a frame; `type_ids` maps each type to its index in `index.types` (kept by the caller). */
export function appendRecord(index: RecordIndex, ref: RecordRef, type_ids: Map<string, number>): void {
  if (index.count === index.seqs.length) grow(index);
  let type_id = type_ids.get(ref.type);
  if (type_id === undefined) {
    type_id = index.types.length;
    index.types.push(ref.type);
    type_ids.set(ref.type, type_id);
  }
  const at = index.count;
  index.seqs[at] = ref.seq;
  index.offsets[at] = ref.offset;
  index.fences[at] = ref.fence;
  index.type_ids[at] = type_id;
  index.count = at + 1;
}

export function recordAt(index: RecordIndex, at: number): RecordRef {
  assert.ok(Number.isInteger(at) && at >= 0 && at < index.count, `record ${at} of ${index.count}`);
  return { seq: index.seqs[at]!, offset: index.offsets[at]!, fence: index.fences[at]!, type: index.types[index.type_ids[at]!]! };
}

/** Every entry as a RecordRef: for small folds and tests, not for a million frames. */
export function recordRefs(index: RecordIndex): RecordRef[] {
  return Array.from({ length: index.count }, (_, at) => recordAt(index, at));
}

function grow(index: RecordIndex): void {
  const capacity = index.seqs.length * 2;
  const grown = <T extends Float64Array | Uint32Array>(from: T, make: (length: number) => T): T => {
    const to = make(capacity);
    to.set(from);
    return to;
  };
  index.seqs = grown(index.seqs, (length) => new Float64Array(length));
  index.offsets = grown(index.offsets, (length) => new Float64Array(length));
  index.fences = grown(index.fences, (length) => new Float64Array(length));
  index.type_ids = grown(index.type_ids, (length) => new Uint32Array(length));
}

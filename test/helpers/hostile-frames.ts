// Digest-valid frames that are hostile to a reader: every kind the main read path refuses or uses as a record,
// and the one kind a tail scan may pass over (lineage agreeing with the WAL). For property tests of the reader
// (test/engine) and of recovery (test/replay): after damage, only the agreeing kind may ever be discarded.
import fc from 'fast-check';
import { encodeCbor } from '../../src-main/engine/cbor.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import type { Payload } from '../../src-shared/wal.js';
import { TEST_WAL_ID, lineageBody, rawFrame } from './wal-bytes.js';

export type HostileKind =
  | 'agreeing_lineage'
  | 'foreign_lineage'
  | 'gated_lineage'
  | 'float_lineage'
  | 'float_record'
  | 'next_record'
  | 'sequence_gap'
  | 'newer_version'
  | 'lineage_without_id'
  | 'junk_body';

export interface HostileFrame {
  kind: HostileKind;
  bytes: Buffer;
}

const OTHER_WAL_ID = new Uint8Array(16).fill(0xee);

/** A body [ver, seq, fence, type, features, payload] with ver, seq and fence given as raw CBOR items. */
function bodyWithHeads(heads: [Buffer, Buffer, Buffer], type: string, features: readonly string[], fields: object): Buffer {
  return Buffer.concat([Buffer.of(0x86), ...heads, encodeCbor(type), encodeCbor(features), encodeCbor(fields)]);
}
const uint = (value: number) => encodeCbor(value);
const float64 = (value: number) => {
  const bytes = Buffer.alloc(9);
  bytes[0] = 0xfb;
  bytes.writeDoubleBE(value, 1);
  return bytes;
};
const float16 = (value: 0 | 1 | 2 | 4) => Buffer.from({ 0: 'f90000', 1: 'f93c00', 2: 'f94000', 4: 'f94400' }[value], 'hex');

/** One hostile frame for a WAL of identity `wal_id` whose next record would have `next_seq`. */
export function hostileFrame(next_seq: number, wal_id: Uint8Array = TEST_WAL_ID, payload: fc.Arbitrary<Payload> = fc.constant({})): fc.Arbitrary<HostileFrame> {
  const frame = (kind: HostileKind, bytes: Buffer): HostileFrame => ({ kind, bytes });
  const lineagePayload = { wal_id, created_ms: 1_700_000_000_000, writer: 'other' };
  return fc.oneof(
    fc.nat(5).map((epoch) => frame('agreeing_lineage', encodeFrame({ ...lineageBody(wal_id), payload: { ...lineagePayload, epoch } }))),
    fc.constant(frame('foreign_lineage', encodeFrame(lineageBody(OTHER_WAL_ID)))),
    fc.constantFrom(['teleport/v1'], ['run-cancel-at/v1']).map((features) => frame('gated_lineage', rawFrame(bodyWithHeads([uint(3), uint(0), uint(1)], 'lineage', features, lineagePayload)))),
    fc.constantFrom<0 | 1 | 2>(0, 1, 2).map((which) => {
      const heads: [Buffer, Buffer, Buffer] = [uint(2), uint(0), uint(1)];
      heads[which] = which === 0 ? float16(2) : which === 1 ? float16(0) : float64(1);
      return frame('float_lineage', rawFrame(bodyWithHeads(heads, 'lineage', [], lineagePayload)));
    }),
    fc.constantFrom(float16(2), float16(4), float64(2), float64(4)).map((ver) => frame('float_record', rawFrame(bodyWithHeads([ver, uint(next_seq), uint(1)], 'turn_finished', [], { step_id: 1 })))),
    payload.map((fields) => frame('next_record', encodeFrame({ ver: 2, seq: next_seq, fence: 1, type: 'turn_finished', features: [], payload: fields }))),
    fc.constant(frame('sequence_gap', encodeFrame({ ver: 2, seq: next_seq + 5, fence: 1, type: 'turn_finished', features: [], payload: {} }))),
    fc.constant(frame('newer_version', rawFrame(bodyWithHeads([uint(4), uint(0), uint(1)], 'lineage', [], lineagePayload)))),
    fc.constant(frame('lineage_without_id', rawFrame(bodyWithHeads([uint(2), uint(0), uint(1)], 'lineage', [], { created_ms: 1 })))),
    fc.uint8Array({ minLength: 1, maxLength: 30 }).map((junk) => frame('junk_body', rawFrame(junk))),
  );
}


// Issue 13, D1 and D2 as properties. Any WAL, cut or flipped anywhere, and followed by hostile but digest-valid
// frames: the tail scan must judge every digest-valid frame after the damage as the main read path judges it,
// and a frame the main path refuses never lets the damage be a torn tail. An independent strict CBOR decoder
// (cborg) is the oracle for the bodies: it decodes every body the reader accepts to the same value, and with a
// uint check on ver, seq and fence it rejects the float-head bodies the reader must refuse.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode as cborgDecode, Tokenizer, Type } from 'cborg';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { readWal, type ReadResult } from '../../src-main/engine/reader.js';
import type { CborValue, DigestAlgorithmName, FrameBody, ReadFrame } from '../../src-shared/wal.js';
import { hostileFrame } from '../helpers/hostile-frames.js';
import { intactFrameSize, lineageBody } from '../helpers/wal-bytes.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-tail-agreement-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
function read(bytes: Uint8Array, on_frame?: (frame: ReadFrame) => void): ReadResult {
  const file = path.join(dir, `w-${fileCounter++}`);
  fs.writeFileSync(file, bytes);
  try {
    return readWal(file, { on_frame });
  } finally {
    fs.rmSync(file);
  }
}

// ------------------------------------------------------------------ the independent oracle

const STRICT = { useMaps: true, rejectDuplicateMapKeys: true, allowUndefined: false, allowIndefinite: false, allowBigInt: false } as const;

/** cborg's reading of a body as §3 shapes it: ver, seq and fence must be CBOR uints; the rest is decoded strictly. */
function oracleBody(body: Uint8Array): unknown[] | null {
  try {
    const tokens = new Tokenizer(body, STRICT);
    const array = tokens.next();
    if (array.type !== Type.array || array.value !== 6) return null;
    for (let index = 0; index < 3; index++) if (tokens.next().type !== Type.uint) return null;
    return cborgDecode(body, STRICT) as unknown[];
  } catch {
    return null;
  }
}

/** The engine's value in cborg's shape (maps as Map), so the two decoders can be compared exactly. */
function asMaps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asMaps);
  if (value instanceof Uint8Array || value === null || typeof value !== 'object') return value;
  return new Map(Object.entries(value).map(([key, item]) => [key, asMaps(item)]));
}

// ------------------------------------------------------------------ generators

const cborValue: fc.Arbitrary<CborValue> = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.maxSafeInteger(),
    fc.double({ noNaN: true }).filter((value) => !Number.isInteger(value)),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.boolean(),
    fc.constant(null),
    fc.uint8Array({ maxLength: 20 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'valueOf')), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const payload = fc.dictionary(fc.string({ maxLength: 10 }), cborValue, { maxKeys: 4 });
const scenario = fc
  .record({
    records: fc.array(fc.tuple(fc.constantFrom('tool_result', 'turn_finished', 'x_unknown'), payload), { minLength: 1, maxLength: 4 }),
    algorithm: fc.constantFrom<DigestAlgorithmName>('sha256', 'blake3'),
  })
  .chain(({ records, algorithm }) => {
    const bodies: FrameBody[] = [lineageBody(), ...records.map(([type, fields], index) => ({ ver: 2, seq: index + 1, fence: 1, type, features: [], payload: fields }))];
    const clean = Buffer.concat(bodies.map((body) => encodeFrame(body, algorithm)));
    return fc.record({
      clean: fc.constant(clean),
      after: fc.array(hostileFrame(records.length + 1, undefined, payload), { maxLength: 3 }),
      damage: fc.oneof(
        fc.constant({ none: true }),
        fc.record({ cut: fc.nat(clean.length - 1) }),
        fc.record({ flip: fc.nat(clean.length - 1), bit: fc.nat(7) }),
      ),
    });
  })
  .map(({ clean, after, damage }) => {
    const damaged = 'cut' in damage ? Buffer.from(clean.subarray(0, damage.cut)) : Buffer.from(clean);
    if ('flip' in damage) damaged[damage.flip]! ^= 1 << damage.bit;
    const starts: number[] = [];
    let start = damaged.length;
    for (const frame of after) {
      starts.push(start);
      start += frame.bytes.length;
    }
    return { bytes: Buffer.concat([damaged, ...after.map((frame) => frame.bytes)]), kinds: after.map((frame) => frame.kind), starts };
  });

/** A case fast-check found: the clean WAL cut one byte short, its last frame's digest ending in 0x42, followed by a
 *  frame of seq 9 starting at 263 whose first byte ("B") completes that digest. The reader accepts the frame at 186
 *  whole (to 264) and finds a torn tail at 264, with nothing intact after it. */
const SWALLOWED_FRAME = {
  bytes: Buffer.from(
    'QldBTAEBAABGAAAAhgIAAWdsaW5lYWdlgKNmd2FsX2lkUAABAgMEBQYHCAkKCwwNDg9qY3JlYXRlZF9tcxsAAAGLz+VoAGZ3cml0ZXJkdGVzdGyy7zJJWrwRoKisfk4C00Yxanev7rznLjlJN1oRvq+TQldBTAEBAAAcAAAAhgIBAW10dXJuX2ZpbmlzaGVkgKFmWCN6dy449dVbiDulHBTDUSvKgHBXgsX8PZnWrgnLrLKdGQl+wCO5QldBTAEBAAAiAAAAhgICAW10dXJuX2ZpbmlzaGVkgKFpI20mMFh2OigjQ+AewqrU7RTmwiivNmjvBK2T1LjLA1bBVyPajQ6fDqWECGZCV0FMAQEAABQAAACGAgkBbXR1cm5fZmluaXNoZWSAoOxm6x5sXNo69w6u2jfgP7BBtzpZAmFrEoEgpMM1Hkqs',
    'base64',
  ),
  kinds: ['sequence_gap'],
  starts: [263],
};

/** The main path's own verdict on a frame `candidate` read right after the clean bytes `before`. */
function mainPathAcceptsAsLineage(before: Buffer, candidate: Buffer): boolean {
  const result = read(Buffer.concat([before, candidate]));
  return result.error === null && result.torn_tail === null && result.records === read(before).records && result.frames === read(before).frames + 1;
}

// ------------------------------------------------------------------ the properties

describe('the tail scan judges every frame after the damage as the main path does', () => {
  it('a cut or flipped WAL followed by hostile frames: torn tail only if every later intact frame is lineage the main path accepts', () => {
    fc.assert(
      fc.property(scenario, ({ bytes }) => {
        const result = read(bytes);
        const damagedAt = result.torn_tail?.offset ?? (result.error?.kind === 'non_tail_corruption' && intactFrameSize(bytes, result.error.offset!) === null ? result.error.offset! : null);
        if (damagedAt === null) return;
        expect(intactFrameSize(bytes, damagedAt)).toBeNull();
        expect(result.valid_bytes).toBe(damagedAt);
        const after: number[] = [];
        for (let offset = damagedAt + 1; offset < bytes.length; offset++) if (intactFrameSize(bytes, offset) !== null) after.push(offset);
        // The main path, reading the clean prefix and then the frames after the damage one by one.
        let accepted = Buffer.from(bytes.subarray(0, damagedAt));
        let allLineage = true;
        for (const offset of after) {
          const candidate = bytes.subarray(offset, offset + intactFrameSize(bytes, offset)!);
          if (!mainPathAcceptsAsLineage(accepted, candidate)) {
            allLineage = false;
            break;
          }
          accepted = Buffer.concat([accepted, candidate]);
        }
        if (allLineage) {
          expect(result.error).toBeNull();
          expect(result.torn_tail).toMatchObject({ offset: damagedAt, bytes: bytes.length - damagedAt, trailing_lineage: after });
        } else {
          expect(result.torn_tail).toBeNull();
          expect(result.error).toMatchObject({ kind: 'non_tail_corruption', offset: damagedAt });
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a frame the main path refuses after the damage never lets the damage be a torn tail', () => {
    fc.assert(
      fc.property(scenario, ({ bytes, kinds, starts }) => {
        const result = read(bytes);
        if (result.torn_tail === null) return;
        // After a torn tail come only lineage frames the main path accepts there: all of one identity, and that of
        // the WAL when the frames before the damage proved one. A cut frame can end in the first bytes of the frame
        // after it and so read as whole (its digest's last byte cut, and the next frame's first byte that byte):
        // the frame it swallowed starts before the torn tail and is not after the damage.
        const identities = new Set(kinds.filter((_, index) => starts[index]! >= result.torn_tail!.offset));
        expect([...identities].every((kind) => kind === 'agreeing_lineage' || kind === 'foreign_lineage')).toBe(true);
        expect(identities.size).toBeLessThanOrEqual(1);
        if (result.wal_id !== null) expect(identities.has('foreign_lineage')).toBe(false);
      }),
      { numRuns: 400, examples: [[SWALLOWED_FRAME]] },
    );
  });
});

describe('an independent strict CBOR decoder agrees with the reader', () => {
  it('decodes every body the reader accepts to the same value, and rejects every intact body the reader refuses for its heads', () => {
    fc.assert(
      fc.property(scenario, ({ bytes }) => {
        const accepted = new Map<number, ReadFrame>();
        const result = read(bytes, (frame) => accepted.set(frame.offset, frame));
        for (let offset = 0; offset < bytes.length; offset++) {
          const size = intactFrameSize(bytes, offset);
          if (size === null) continue;
          const oracle = oracleBody(bytes.subarray(offset + 12, offset + size - 32));
          const frame = accepted.get(offset);
          if (frame !== undefined) {
            expect(oracle, `accepted body at ${offset}`).toEqual(asMaps([frame.ver, frame.seq, frame.fence, frame.type, frame.features, frame.payload]));
          }
          if (oracle === null) expect(accepted.has(offset), `rejected body at ${offset}`).toBe(false);
        }
        expect(accepted.size).toBe(result.frames);
      }),
      { numRuns: 300 },
    );
  });
});

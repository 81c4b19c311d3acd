import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CborError, decodeCbor, encodeCbor } from '../../src-main/engine/cbor.js';
import { decodeBody, encodeFrame } from '../../src-main/engine/frame-codec.js';
import { readWal } from '../../src-main/engine/reader.js';
import type { CborValue, FrameBody } from '../../src-shared/wal.js';
import { lineageBody, walBytes } from '../helpers/wal-bytes.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-property-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cborValue: fc.Arbitrary<CborValue> = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.integer({ min: -(2 ** 53), max: 2 ** 53 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Number.isInteger(value)),
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.constant(null),
    fc.uint8Array({ maxLength: 40 }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 12 }), tie('value'), { maxKeys: 5 }),
  ),
})).value;

const payload = fc.dictionary(fc.string({ maxLength: 12 }), cborValue, { maxKeys: 6 });

const recordBodies = fc.array(fc.tuple(fc.constantFrom('tool_result', 'turn_finished', 'x_unknown'), payload), { maxLength: 6 }).map((items): FrameBody[] => [
  lineageBody(),
  ...items.map(([type, body], index) => ({ ver: 2, seq: index + 1, fence: 1, type, features: [], payload: body })),
]);

let fileCounter = 0;
function readBytes(bytes: Uint8Array) {
  const file = path.join(dir, `p-${fileCounter++}`);
  fs.writeFileSync(file, bytes);
  try {
    return readWal(file);
  } finally {
    fs.rmSync(file);
  }
}

describe('codec round trip', () => {
  it('decode(encode(v)) equals v', () => {
    fc.assert(
      fc.property(cborValue, (value) => {
        expect(decodeCbor(encodeCbor(value))).toEqual(value);
      }),
      { numRuns: 500 },
    );
  });

  it('short ASCII texts that differ in one byte anywhere read back as themselves (interned texts match whole)', () => {
    const texts: string[] = [];
    for (let length = 0; length <= 41; length++) {
      const base = 'k'.repeat(length);
      texts.push(base);
      for (let at = 0; at < length; at++) texts.push(`${base.slice(0, at)}\u007f${base.slice(at + 1)}`);
    }
    // twice over, in both orders: the second reads find the first reads' entries
    const all = [...texts, ...texts.toReversed(), ...texts];
    expect(decodeCbor(encodeCbor(all))).toEqual(all);
    // more texts of one length and first word than the table has entries: some share an entry
    const numbered = Array.from({ length: 10_000 }, (_, index) => `kkkk${String(index).padStart(6, '0')}`);
    expect(decodeCbor(encodeCbor([...numbered, ...numbered]))).toEqual([...numbered, ...numbered]);
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '\u007f', 'é'), maxLength: 42 }), { maxLength: 40 }), (strings) => {
        expect(decodeCbor(encodeCbor([...strings, ...strings]))).toEqual([...strings, ...strings]);
      }),
      { numRuns: 500 },
    );
  });

  it('frames decode to the body they were encoded from', () => {
    fc.assert(
      fc.property(recordBodies, (bodies) => {
        for (const body of bodies) {
          const frame = encodeFrame(body);
          const decoded = decodeBody(frame.subarray(12, frame.length - 32), true);
          expect(decoded.kind === 'ok' ? decoded.body : decoded).toEqual(body);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a WAL of arbitrary records reads back exactly', () => {
    fc.assert(
      fc.property(recordBodies, (bodies) => {
        const result = readBytes(walBytes(bodies));
        expect(result.error).toBeNull();
        expect(result.records).toBe(bodies.length - 1);
      }),
      { numRuns: 100 },
    );
  });
});

describe('hostile bytes', () => {
  it('the CBOR decoder throws only CborError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeCbor(Buffer.from(bytes));
        } catch (error) {
          expect(error).toBeInstanceOf(CborError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('the reader ends with a result or a typed error on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const result = readBytes(bytes);
        expect(result.valid_bytes).toBeLessThanOrEqual(bytes.length);
        if (result.error !== null) expect(['not_a_wal', 'non_tail_corruption', 'malformed_frame', 'newer_writer', 'sequence_error']).toContain(result.error.kind);
      }),
      { numRuns: 300 },
    );
  });

  it('rule 0: a file whose first bytes are neither (a prefix of) the magic nor zeros is not a WAL; any other is never called one', () => {
    const MAGIC = [0x42, 0x57, 0x41, 0x4c];
    // Half the runs start from the magic or zeros, so both sides of the rule are met often.
    const head = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constantFrom(Uint8Array.of(...MAGIC), Uint8Array.of(0x42, 0x57), Uint8Array.of(0, 0, 0, 0), Uint8Array.of(0)));
    fc.assert(
      fc.property(head, fc.uint8Array({ maxLength: 200 }), (start, rest) => {
        const bytes = Buffer.concat([start, rest]);
        const first = [...bytes.subarray(0, 4)];
        const is_wal_start = first.every((byte, at) => byte === MAGIC[at]) || first.every((byte) => byte === 0);
        const result = readBytes(bytes);
        if (is_wal_start) expect(result.error?.kind).not.toBe('not_a_wal');
        else {
          expect(result.error).toMatchObject({ kind: 'not_a_wal', offset: 0 });
          expect(result.torn_tail).toBeNull();
          expect(result.error!.message).toContain(first.map((byte) => byte.toString(16).padStart(2, '0')).join(' '));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('the reader ends with a result or a typed error on a valid WAL with arbitrary splices', () => {
    fc.assert(
      fc.property(recordBodies, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 64 }), (bodies, where, junk) => {
        const bytes = walBytes(bodies);
        const at = where % (bytes.length + 1);
        const spliced = Buffer.concat([bytes.subarray(0, at), junk, bytes.subarray(at)]);
        const result = readBytes(spliced);
        expect(result.valid_bytes).toBeLessThanOrEqual(at + junk.length);
        if (result.error === null && result.torn_tail === null) expect(at).toBe(bytes.length);
        // §5 rule 0, judged on the file's first four bytes (junk shorter than four runs on into the WAL's magic):
        // no WAL at all unless they are the magic or all zero.
        const head = spliced.subarray(0, 4);
        const looks_like_a_wal = head.every((byte) => byte === 0) || head.equals(Buffer.from('BWAL').subarray(0, head.length));
        expect(result.error?.kind === 'not_a_wal').toBe(!looks_like_a_wal);
      }),
      { numRuns: 300, examples: [[[lineageBody()], 0, Uint8Array.of(0)]] },
    );
  });
});

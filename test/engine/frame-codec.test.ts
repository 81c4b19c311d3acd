import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCbor, encodeCbor } from '../../src-main/engine/cbor.js';
import { frameDigest } from '../../src-main/engine/digest.js';
import { decodeBody, encodeFrame } from '../../src-main/engine/frame-codec.js';
import { lineageBody, recordBody } from '../helpers/wal-bytes.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text: string) => Buffer.from(text, 'ascii').toString('hex');

/** Header for a body of `length` bytes, layout 1, the given digest code, reserved zero. */
function header(length: number, digest_code = 1): Buffer {
  const bytes = Buffer.from([0x42, 0x57, 0x41, 0x4c, 0x01, digest_code, 0x00, 0x00, 0, 0, 0, 0]);
  bytes.writeUInt32LE(length, 8);
  return bytes;
}

describe('golden frames', () => {
  it('a lineage frame is header + hand-encoded CBOR + SHA-256 of both', () => {
    const body = hex(
      '86' + // array(6)
        '02' + '00' + '01' + // ver 2, seq 0, fence 1
        '67' + ascii('lineage') +
        '80' + // features []
        'a3' + // map(3)
        '66' + ascii('wal_id') + '50' + '000102030405060708090a0b0c0d0e0f' +
        '6a' + ascii('created_ms') + '1b' + '0000018bcfe56800' + // 1,700,000,000,000 as an 8-byte integer
        '66' + ascii('writer') + '64' + ascii('test'),
    );
    const covered = Buffer.concat([header(body.length), body]);
    const expected = Buffer.concat([covered, createHash('sha256').update(covered).digest()]);
    expect(encodeFrame(lineageBody()).toString('hex')).toBe(expected.toString('hex'));
  });

  it('a gated record is a ver 3 frame naming its feature', () => {
    const body = hex(
      '86' + '03' + '07' + '05' +
        '74' + ascii('run_cancel_requested') +
        '81' + '70' + ascii('run-cancel-at/v1') +
        'a2' + '66' + ascii('run_id') + '62' + ascii('r1') + '62' + ascii('at') + '63' + ascii('now'),
    );
    const covered = Buffer.concat([header(body.length), body]);
    const expected = Buffer.concat([covered, createHash('sha256').update(covered).digest()]);
    const frame = encodeFrame(recordBody(7, 'run_cancel_requested', { run_id: 'r1', at: 'now' }, ['run-cancel-at/v1'], 5));
    expect(frame.toString('hex')).toBe(expected.toString('hex'));
  });

  it('a BLAKE3 frame carries digest code 2 and the BLAKE3 of header and body', () => {
    const body = hex('86' + '02' + '01' + '00' + '6d' + ascii('turn_finished') + '80' + 'a1' + '67' + ascii('step_id') + '01');
    const covered = Buffer.concat([header(body.length, 2), body]);
    const frame = encodeFrame(recordBody(1, 'turn_finished', { step_id: 1 }, [], 0), 'blake3');
    expect(frame.subarray(0, covered.length).toString('hex')).toBe(covered.toString('hex'));
    expect(frame.subarray(covered.length).toString('hex')).toBe(Buffer.from(frameDigest('blake3', covered)).toString('hex'));
  });

  it('BLAKE3 matches the published test vector for empty input', () => {
    expect(Buffer.from(frameDigest('blake3', new Uint8Array())).toString('hex')).toBe(
      'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262',
    );
  });
});

describe('CBOR strictness', () => {
  it('writes preferred lengths and 8-byte integers above 2^32', () => {
    expect(encodeCbor(23).toString('hex')).toBe('17');
    expect(encodeCbor(24).toString('hex')).toBe('1818');
    expect(encodeCbor(65_536).toString('hex')).toBe('1a00010000');
    expect(encodeCbor(2 ** 32).toString('hex')).toBe('1b0000000100000000');
    expect(encodeCbor(-1).toString('hex')).toBe('20');
    expect(encodeCbor(1.5).toString('hex')).toBe('fb3ff8000000000000');
  });

  it.each([
    ['a tag', 'c11a00000001', 'tags are not allowed'],
    ['an indefinite array', '9f01ff', 'indefinite'],
    ['undefined', 'f7', 'simple value 23'],
    ['a non-text map key', 'a10101', 'map keys must be text'],
    ['a duplicate key', 'a2616101616102', 'duplicate map key'],
    ['invalid UTF-8', '62c328', 'not valid UTF-8'],
    ['an integer above 2^53', '1b0020000000000001', 'beyond'],
    ['an array longer than the body', '9a0fffffff', 'exceeds the bytes'],
    ['trailing bytes', '0101', 'bytes after'],
  ])('refuses %s', (_name, bytes, message) => {
    expect(() => decodeCbor(hex(bytes))).toThrow(message);
  });

  it('refuses nesting deeper than the bound instead of overflowing the stack', () => {
    expect(() => decodeCbor(Buffer.alloc(100_000, 0x81))).toThrow('nesting deeper');
  });

  it('keeps a "__proto__" key as an ordinary property', () => {
    const value = decodeCbor(encodeCbor(JSON.parse('{"__proto__": {"polluted": true}}'))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('body decoding', () => {
  it('judges a newer version before the shape', () => {
    const result = decodeBody(encodeCbor([4, 'anything']), true);
    expect(result).toMatchObject({ kind: 'newer_version', ver: 4 });
  });

  it.each([
    ['ver 2 with features', [2, 1, 0, 't', ['scope/v1'], {}]],
    ['ver 3 without features', [3, 1, 0, 't', [], {}]],
    ['unsorted features', [3, 1, 0, 't', ['tool-times/v1', 'scope/v1'], {}]],
    ['a bad feature name', [3, 1, 0, 't', ['Scope'], {}]],
    ['five items', [2, 1, 0, 't', []]],
    ['a payload that is not a map', [2, 1, 0, 't', [], []]],
    ['an empty type', [2, 1, 0, '', [], {}]],
  ])('calls %s malformed', (_name, body) => {
    expect(decodeBody(encodeCbor(body), true).kind).toBe('malformed');
  });
});

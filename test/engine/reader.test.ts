import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrameBody, ReadFrame } from '../../src-shared/wal.js';
import { encodeCbor } from '../../src-main/engine/cbor.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { readWal, type ReadOptions } from '../../src-main/engine/reader.js';
import { flippedRefusal, lineageBody, rawFrame, recordBody, sampleBodies, walBytes } from '../helpers/wal-bytes.js';

let dir: string;
let counter = 0;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-reader-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function read(bytes: Buffer, options: ReadOptions = {}) {
  const file = path.join(dir, `wal-${counter++}`);
  fs.writeFileSync(file, bytes);
  const frames: ReadFrame[] = [];
  const result = readWal(file, { ...options, on_frame: (frame) => frames.push(frame) });
  fs.rmSync(file);
  return { result, frames };
}

/** Offsets at which each frame of `bodies` starts, plus the end. */
function boundaries(bodies: FrameBody[]): number[] {
  const offsets = [0];
  for (const body of bodies) offsets.push(offsets.at(-1)! + encodeFrame(body).length);
  return offsets;
}

describe('clean reads', () => {
  it('reads every frame with its payload, in order', () => {
    const bodies = sampleBodies();
    const { result, frames } = read(walBytes(bodies));
    expect(result.error).toBeNull();
    expect(result.torn_tail).toBeNull();
    expect(frames.map((frame) => frame.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(frames.map((frame) => frame.payload)).toEqual(bodies.map((body) => body.payload));
    expect(result).toMatchObject({ frames: 7, records: 6, last_seq: 6, features: ['run-cancel-at/v1'], digest_algorithms: ['sha256'] });
    expect(result.valid_bytes).toBe(result.bytes);
    expect(Buffer.from(result.wal_id!).toString('hex')).toBe('000102030405060708090a0b0c0d0e0f');
  });

  it('accepts SHA-256 and BLAKE3 frames mixed in one WAL', () => {
    const bodies = sampleBodies();
    const bytes = Buffer.concat(bodies.map((body, index) => encodeFrame(body, index % 2 === 0 ? 'sha256' : 'blake3')));
    const { result } = read(bytes);
    expect(result.error).toBeNull();
    expect(result.digest_algorithms).toEqual(['blake3', 'sha256']);
  });

  it('validates without building payloads when asked', () => {
    const { result, frames } = read(walBytes(sampleBodies()), { with_payload: false });
    expect(result.error).toBeNull();
    expect(frames.every((frame) => frame.payload === null)).toBe(true);
  });

  it('an empty file is an empty, usable WAL', () => {
    const { result } = read(Buffer.alloc(0));
    expect(result).toMatchObject({ frames: 0, records: 0, error: null, torn_tail: null, wal_id: null });
  });

  it('continues from a checkpoint when the file grows', () => {
    const bodies = sampleBodies();
    const file = path.join(dir, 'growing');
    const all = walBytes(bodies);
    const cut = boundaries(bodies)[4]!;
    fs.writeFileSync(file, all.subarray(0, cut + 5));
    const first = readWal(file, { live: true });
    expect(first.in_progress_tail).toEqual({ offset: cut, bytes: 5 });
    fs.writeFileSync(file, all);
    const seen: number[] = [];
    const second = readWal(file, { from: first.checkpoint!, on_frame: (frame) => seen.push(frame.seq) });
    expect(seen).toEqual([4, 5, 6]);
    expect(second).toMatchObject({ error: null, records: 6, last_seq: 6, frames: 7 });
  });

  it('holds only the bytes a read reaches: a small read (a live tail\'s few records) allocates no read chunk', () => {
    // A 4 MiB chunk a read, off the heap, made a live session's worker collect its young generation at every
    // append; read ten times, the chunks would be 40 MiB of array buffers still uncollected.
    const file = path.join(dir, 'small');
    fs.writeFileSync(file, walBytes(sampleBodies()));
    const before_bytes = process.memoryUsage().arrayBuffers;
    for (let read = 0; read < 10; read++) expect(readWal(file, {}).error).toBeNull();
    expect(process.memoryUsage().arrayBuffers - before_bytes).toBeLessThan(1024 * 1024);
  });

  it('reads its per-frame options once per read, not at every frame', () => {
    // The service reads a big WAL in slices, each a read with a new options object: a frame loop that looked
    // its callbacks up in that object saw a new map at every slice and was re-optimized at each (on the 1 GiB
    // session, the reader's acceptFrame 7-9 times against once). Counted here through getters.
    const file = path.join(dir, 'options-read');
    fs.writeFileSync(file, walBytes(sampleBodies()));
    const looked_up = { on_frame: 0, decode_payload: 0 };
    let frames = 0;
    const options: ReadOptions = {
      with_payload: false,
      get on_frame() {
        looked_up.on_frame += 1;
        return () => (frames += 1);
      },
      get decode_payload() {
        looked_up.decode_payload += 1;
        return undefined;
      },
    };
    expect(readWal(file, options).error).toBeNull();
    expect(frames).toBe(7);
    expect(looked_up.on_frame).toBeLessThanOrEqual(1);
    expect(looked_up.decode_payload).toBeLessThanOrEqual(1);
  });
});

describe('cut sweep: a WAL truncated at every byte offset', () => {
  it('gives the clean prefix plus a reported torn tail, never an exception or a wrong record', () => {
    const bodies = sampleBodies();
    const bytes = walBytes(bodies);
    const edges = boundaries(bodies);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const { result, frames } = read(bytes.subarray(0, cut));
      const whole = edges.filter((edge) => edge <= cut).length - 1;
      expect(result.error, `cut ${cut}`).toBeNull();
      expect(frames.map((frame) => frame.payload), `cut ${cut}`).toEqual(bodies.slice(0, whole).map((body) => body.payload));
      const tornAt = edges[whole]!;
      expect(result.torn_tail, `cut ${cut}`).toEqual(cut === tornAt ? null : { offset: tornAt, bytes: cut - tornAt, reason: expect.any(String), trailing_lineage: [] });
      expect(result.valid_bytes).toBe(tornAt);
    }
  });
});

describe('flip sweep: one byte flipped in a frame', () => {
  const bodies = sampleBodies();
  const bytes = walBytes(bodies);
  const edges = boundaries(bodies);
  const cases: { frame: number; at: number; part: string }[] = [];
  for (let frame = 0; frame < bodies.length; frame++) {
    const start = edges[frame]!;
    const end = edges[frame + 1]!;
    for (let at = start; at < start + 12; at++) cases.push({ frame, at, part: 'header' });
    for (let at = start + 12; at < end - 32; at += 7) cases.push({ frame, at, part: 'body' });
    for (let at = end - 32; at < end; at += 5) cases.push({ frame, at, part: 'digest' });
  }

  it.each(cases)('frame $frame, $part byte $at', ({ frame, at }) => {
    const flipped = Buffer.from(bytes);
    flipped[at]! ^= 0xff;
    const { result } = read(flipped);
    const offset = edges[frame]!;
    if (frame === bodies.length - 1) {
      expect(result.error).toBeNull();
      expect(result.torn_tail).toMatchObject({ offset, bytes: bytes.length - offset });
    } else {
      expect(result.error).toMatchObject(flippedRefusal(at, offset));
      expect(result.valid_bytes).toBe(offset);
    }
  });
});

describe('tails', () => {
  it('a zero-filled tail is a torn tail', () => {
    const bytes = walBytes(sampleBodies());
    const { result } = read(Buffer.concat([bytes, Buffer.alloc(8192)]));
    expect(result.error).toBeNull();
    expect(result.torn_tail).toMatchObject({ offset: bytes.length, bytes: 8192, reason: 'bad_magic' });
  });

  it('a garbage tail is a torn tail', () => {
    const bytes = walBytes(sampleBodies());
    let seed = 12345;
    const garbage = Buffer.from(Array.from({ length: 5000 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff));
    const { result } = read(Buffer.concat([bytes, garbage]));
    expect(result.error).toBeNull();
    expect(result.torn_tail).toMatchObject({ offset: bytes.length, bytes: 5000 });
  });

  it('a torn record followed only by consistent lineage frames is a torn tail that reports them', () => {
    const bodies = sampleBodies();
    const torn = encodeFrame(recordBody(7, 'turn_finished', { step_id: 1 })).subarray(0, 20);
    const tail = encodeFrame({ ...lineageBody(), payload: { ...lineageBody().payload, epoch: 2 } });
    const prefix = walBytes(bodies);
    const { result } = read(Buffer.concat([prefix, torn, tail]));
    expect(result.error).toBeNull();
    expect(result.torn_tail).toMatchObject({ offset: prefix.length, trailing_lineage: [prefix.length + torn.length] });
    expect(result.records).toBe(6);
  });

  it('a trailing lineage frame with another identity makes it non-tail corruption', () => {
    const prefix = walBytes(sampleBodies());
    const torn = Buffer.from('BWAL-torn');
    const foreign = encodeFrame(lineageBody(new Uint8Array(16).fill(9)));
    const { result } = read(Buffer.concat([prefix, torn, foreign]));
    expect(result.error).toMatchObject({ kind: 'non_tail_corruption', offset: prefix.length });
  });

  it('a live WAL reports a partial frame as a tail in progress', () => {
    const bytes = walBytes(sampleBodies());
    const { result } = read(bytes.subarray(0, bytes.length - 10), { live: true });
    expect(result.error).toBeNull();
    expect(result.torn_tail).toBeNull();
    expect(result.in_progress_tail).toMatchObject({ bytes: expect.any(Number) });
  });
});

describe('refusals', () => {
  it('a gap in the sequence is a sequence error at its offset', () => {
    const bodies = [lineageBody(), recordBody(1, 'turn_finished', { step_id: 1 }), recordBody(3, 'turn_finished', { step_id: 2 })];
    const { result } = read(walBytes(bodies));
    expect(result.error).toMatchObject({ kind: 'sequence_error', offset: boundaries(bodies)[2], seq: 3 });
  });

  it('a repeated seq (a replayed record) is a sequence error, not a second record', () => {
    const bodies = [lineageBody(), recordBody(1, 'turn_finished', { step_id: 1 }), recordBody(1, 'turn_finished', { step_id: 2 })];
    const { result } = read(walBytes(bodies));
    expect(result.error).toMatchObject({ kind: 'sequence_error', offset: boundaries(bodies)[2], seq: 1 });
    expect(result.last_seq).toBe(1);
  });

  it('a lineage frame with another identity is non-tail corruption at its offset', () => {
    const bodies = [lineageBody(), recordBody(1, 'turn_finished', { step_id: 1 }), lineageBody(new Uint8Array(16).fill(7))];
    const { result } = read(walBytes(bodies));
    expect(result.error).toMatchObject({ kind: 'non_tail_corruption', offset: boundaries(bodies)[2] });
  });

  it('a WAL that starts with a record is malformed', () => {
    const { result } = read(walBytes([recordBody(1, 'turn_finished', { step_id: 1 })]));
    expect(result.error).toMatchObject({ kind: 'malformed_frame', offset: 0 });
  });

  it('an intact frame that is not one CBOR item of the shape is malformed, even at the end of the file', () => {
    const prefix = walBytes(sampleBodies());
    const { result } = read(Buffer.concat([prefix, rawFrame(Buffer.from('c11a00000001', 'hex'))]));
    expect(result.error).toMatchObject({ kind: 'malformed_frame', offset: prefix.length });
  });

  it('a frame of a newer version is refused as NewerWriter, naming the version', () => {
    const prefix = walBytes(sampleBodies());
    const { result } = read(Buffer.concat([prefix, rawFrame(encodeCbor([4, 7, 1, 'x', [], {}]))]));
    expect(result.error).toMatchObject({ kind: 'newer_writer', offset: prefix.length });
    expect(result.error!.message).toContain('version 4');
  });

  it('a frame requiring an unknown feature is refused as NewerWriter, naming it', () => {
    const bodies = [lineageBody(), recordBody(1, 'future_thing', { x: 1 }, ['quantum-tools/v1'])];
    const { result } = read(walBytes(bodies));
    expect(result.error).toMatchObject({ kind: 'newer_writer', seq: 1, features: ['quantum-tools/v1'] });
  });

  it('a floor naming an unknown feature refuses before any frame is read', () => {
    const { result, frames } = read(walBytes(sampleBodies()), { floor_features: ['scope/v1', 'quantum-tools/v1'] });
    expect(result.error).toMatchObject({ kind: 'newer_writer', offset: null, features: ['quantum-tools/v1'] });
    expect(frames).toEqual([]);
  });

  it('an unknown record type with known features is read, not refused', () => {
    const { result, frames } = read(walBytes([lineageBody(), recordBody(1, 'something_new', { a: 1 })]));
    expect(result.error).toBeNull();
    expect(frames[1]!.type).toBe('something_new');
  });

  it('a missing file is an io error, not an exception', () => {
    const result = readWal(path.join(dir, 'does-not-exist'));
    expect(result.error).toMatchObject({ kind: 'io' });
  });

  it('a frame that claims 16 MiB past the end of a small file is a torn tail, read without allocating it', () => {
    const prefix = walBytes(sampleBodies());
    const header = Buffer.from([0x42, 0x57, 0x41, 0x4c, 1, 1, 0, 0, 0, 0, 0, 1]);
    const { result } = read(Buffer.concat([prefix, header]));
    expect(result.torn_tail).toMatchObject({ offset: prefix.length, reason: 'past_end' });
  });
});

// The fold builds what it keeps of each payload in the reader's validating pass (ReadOptions.decode_payload).
// That pass must judge a payload exactly as verify's validating skip does, and fold exactly what a fold of
// fully built payloads folds.
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReadFrame } from '../../src-shared/wal.js';
import { CborDecoder, encodeCbor } from '../../src-main/engine/cbor.js';
import { resolveTargets, verifyTarget } from '../../src-main/engine/inspect.js';
import { readWal } from '../../src-main/engine/reader.js';
import { FOLD_RECORD_ITEMS_MAX, foldFrames, SessionFolder } from '../../src-main/replay/fold.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { rawFrame, sampleBodies, walBytes } from '../helpers/wal-bytes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-fold-one-pass-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeWal(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

const cbor = (...values: unknown[]) => Buffer.concat(values.map((value) => encodeCbor(value)));

/** A digest-valid record frame whose payload map is given as raw CBOR (so it can break the format). */
function rawRecord(seq: number, type: string, payload_map: Buffer): Buffer {
  return rawFrame(Buffer.concat([Buffer.of(0x86), cbor(2, seq, 1, type, []), payload_map]));
}

/** The first four records of the sample session (lineage, run start, model step, batch start), then `frame`. */
function walEndingWith(name: string, frame: Buffer): string {
  return writeWal(name, Buffer.concat([walBytes(sampleBodies().slice(0, 4)), frame]));
}

const LONG_OUTPUT_BYTES = 100; // past the 32 bytes the fold keeps of an output: validated, not built

describe('the fold\'s one pass over each payload', () => {
  const cases: { name: string; type: string; payload: Buffer }[] = [
    { name: 'a duplicate key inside a kept member', type: 'tool_dispatch_intent', payload: Buffer.concat([Buffer.of(0xa3), cbor('batch_id', 'b1', 'tool_call_id', 'c1', 'args'), Buffer.of(0xa2), cbor('a', 1, 'a', 2)]) },
    { name: 'invalid UTF-8 in a kept text', type: 'tool_dispatch_intent', payload: Buffer.concat([Buffer.of(0xa2), cbor('batch_id'), Buffer.of(0x62, 0xff, 0xfe), cbor('tool_call_id', 'c1')]) },
    { name: 'a tag inside a kept member', type: 'tool_dispatch_intent', payload: Buffer.concat([Buffer.of(0xa3), cbor('batch_id', 'b1', 'tool_call_id', 'c1', 'args'), Buffer.of(0xd8, 0x40, 0x41, 0x00)]) },
    { name: 'an item count past the end in the payload map itself', type: 'tool_batch_finished', payload: Buffer.concat([Buffer.of(0xb8, 0xff), cbor('batch_id', 'b1')]) },
    { name: 'a duplicate key in the payload map itself', type: 'tool_batch_finished', payload: Buffer.concat([Buffer.of(0xa2), cbor('batch_id', 'b1', 'batch_id', 'b2')]) },
    { name: 'a duplicate key in an unknown record type\'s payload', type: 'x_future_record', payload: Buffer.concat([Buffer.of(0xa2), cbor('k', 1, 'k', 2)]) },
    { name: 'a duplicate member the fold does not build', type: 'model_attempt_finished', payload: Buffer.concat([Buffer.of(0xa3), cbor('step_id', 1, 'request_sha256', 'a', 'request_sha256', 'b')]) },
    { name: 'a duplicate key inside args the fold does not build', type: 'tool_dispatch_intent', payload: Buffer.concat([Buffer.of(0xa3), cbor('batch_id', 'b1', 'tool_call_id', 'c1', 'args'), Buffer.of(0xa1), cbor('deep'), Buffer.of(0xa2), cbor('q', 1, 'q', 2)]) },
    { name: 'invalid UTF-8 in a message text the fold does not build', type: 'model_step_finished', payload: Buffer.concat([Buffer.of(0xa2), cbor('step_id', 1, 'assistant_message'), Buffer.of(0xa2), cbor('role', 'assistant', 'content'), Buffer.of(0x81, 0xa2), cbor('type', 'text', 'text'), Buffer.of(0x62, 0xc3, 0x28)]) },
    { name: 'a duplicate key in a tool_use block', type: 'model_step_finished', payload: Buffer.concat([Buffer.of(0xa2), cbor('step_id', 1, 'assistant_message'), Buffer.of(0xa1), cbor('content'), Buffer.of(0x81, 0xa3), cbor('type', 'tool_use', 'id', 'x', 'id', 'y')]) },
    { name: 'invalid UTF-8 in an output left on disk', type: 'tool_result', payload: Buffer.concat([Buffer.of(0xa3), cbor('batch_id', 'b1', 'tool_call_id', 'c1', 'output'), Buffer.of(0x78, LONG_OUTPUT_BYTES), Buffer.alloc(LONG_OUTPUT_BYTES - 1, 0x61), Buffer.of(0xff)]) },
  ];
  for (const { name, type, payload } of cases) {
    it(`refuses ${name} as verify does: malformed_frame, same offset, same message`, () => {
      const file = walEndingWith(`${name.replaceAll(' ', '-')}.wal`, rawRecord(4, type, payload));
      const target = resolveTargets(file)[0]!;
      const verified = verifyTarget(target).error;
      expect(verified?.kind).toBe('malformed_frame');
      expect(replayTarget(target).read.error).toEqual(verified);
    });
  }

  it('folds what a fold of fully built payloads folds', () => {
    const file = writeWal('sample.wal', walBytes(sampleBodies()));
    const frames: ReadFrame[] = [];
    const built = readWal(file, { on_frame: (frame) => frames.push(frame) });
    expect(built.error).toBeNull();
    expect(replayTarget(resolveTargets(file)[0]!).fold).toEqual(foldFrames(frames));
  });
});

describe('kept records read into their places', () => {
  /** A payload map of the given entries, duplicates allowed (the encoder cannot write those). */
  function mapOf(items: [string, unknown][]): Buffer {
    const head = items.length < 24 ? Buffer.of(0xa0 + items.length) : Buffer.of(0xb8, items.length);
    return Buffer.concat([head, ...items.flatMap(([key, value]) => [encodeCbor(key), encodeCbor(value)])]);
  }
  const KEPT_TYPES = ['model_attempt_finished', 'model_step_finished', 'tool_batch_started', 'tool_dispatch_intent', 'tool_no_dispatch', 'tool_result', 'tool_batch_finished', 'turn_finished'];
  const key = fc.constantFrom('batch_id', 'tool_call_id', 'step_id', 'attempt', 'outcome', 'http_status', 'ts_ms', 'reason', 'output', 'is_error', 'finished_at_ms', 'dispatched_at_ms', 'module_id', 'args', 'sequential', 'planned_calls', 'assistant_message', 'usage', 'tags', 'x');
  const value = fc.letrec((tie) => ({
    item: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('b1', 'c1', 'b2', 'c2', 'completed', 'unknown_outcome', 'assistant', 'tool_use', 'no_dispatch'),
      fc.integer({ min: -2, max: 3 }),
      fc.string({ maxLength: 40 }),
      fc.boolean(),
      fc.constant(null),
      fc.uint8Array({ maxLength: 3 }),
      fc.array(tie('item'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('type', 'id', 'role', 'content', 'tool_call_id', 'name', 'plan', 'path', 'url'), tie('item'), { maxKeys: 4 }),
    ),
  })).item;
  const record = fc.tuple(fc.constantFrom(...KEPT_TYPES), fc.array(fc.tuple(key, value), { maxLength: 7 }), fc.constantFrom('whole', 'cut', 'flipped'), fc.nat(), fc.nat(255));

  it('folds and refuses what a fold of fully built payloads does, record after record of one type', () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 6 }), (records) => {
        const frames = records.map(([type, items, how, at, flip], index) => {
          const payload = mapOf(items);
          if (how === 'cut') return rawRecord(4 + index, type, payload.subarray(0, at % payload.length));
          if (how === 'flipped') payload[at % payload.length]! ^= flip;
          return rawRecord(4 + index, type, payload);
        });
        const file = walEndingWith(`kept-${run++}.wal`, Buffer.concat(frames));
        const target = resolveTargets(file)[0]!;
        const built: ReadFrame[] = [];
        const whole = readWal(file, { on_frame: (frame) => built.push(frame) });
        const replay = replayTarget(target);
        expect(replay.read.error).toEqual(verifyTarget(target).error);
        expect(replay.read.error).toEqual(whole.error);
        expect(replay.fold).toEqual(foldFrames(built));
      }),
      { numRuns: 300 },
    );
  });

  it('takes the stamps the lineage facts read without counting them against its item bounds', () => {
    // The items a payload's decode counts against the fold's bounds (what decodePayload leaves of its budget).
    const counted = (type: string, payload: object): number => {
      const decoder = new CborDecoder(encodeCbor(payload));
      new SessionFolder().decodePayload(decoder, type);
      return FOLD_RECORD_ITEMS_MAX - decoder.items_left;
    };
    // Stamps only the facts read: not counted, scalar or container.
    const bare = counted('turn_finished', { step_id: 1, tags: [1] });
    expect(counted('turn_finished', { step_id: 1, tags: [1], ts_ms: 5, created_ms: 6 })).toBe(bare);
    expect(counted('turn_finished', { step_id: 1, tags: [1], ts_ms: [1, 2, 3] })).toBe(bare);
    // A stamp the fold keeps (an attempt's ts_ms) counts as the scalar it always was.
    const attempt = { step_id: 1, attempt: 1, outcome: 'ok', http_status: 200, tags: [1] };
    expect(counted('model_attempt_finished', { ...attempt, ts_ms: 5 })).toBe(counted('model_attempt_finished', attempt) + 1);
  });
});

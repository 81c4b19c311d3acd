// The fold on valid WALs of hostile shape (issue 13, H2–H4): spread arguments that overflowed the stack, lookups
// that made it quadratic, payloads that amplified memory. Each input is folded from disk the way `replay` does;
// the tests check that the fold completes and is right, never how long it took.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Payload } from '../../src-shared/wal.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { readWal } from '../../src-main/engine/reader.js';
import { FOLD_RECORD_ITEMS_MAX, SessionFolder } from '../../src-main/replay/fold.js';
import { terminalOutput } from '../../src-main/replay/payloads.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { planResume } from '../../src-main/replay/plan.js';
import { episodeJson, replayDocument, replayJson } from '../../src-main/replay/report.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { outline, outlinePieces } from '../../src-main/cli/replay.js';
import { JsonSequence, jsonPieces } from '../../src-main/cli/json-out.js';
import { encodeCbor } from '../../src-main/engine/cbor.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { useTempDirs } from '../helpers/temp.js';
import { lineageBody } from '../helpers/wal-bytes.js';

const tempDir = useTempDirs('walscope-fold-scale-');

type Rec = [type: string, payload: Payload];

/** One frame of the format, without encodeFrame's read-back assertion (these WALs have 150k frames). */
function frameOf(body: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header.set([0x42, 0x57, 0x41, 0x4c, 1, 1], 0);
  header.writeUInt32LE(body.length, 8);
  return Buffer.concat([header, body, createHash('sha256').update(header).update(body).digest()]);
}

/** Writes lineage + `records` (seq 1, 2, …) to a WAL file; returns its path. */
function writeWal(records: Iterable<Rec>): string {
  const file = path.join(tempDir(), 'wal');
  const frames: Buffer[] = [encodeFrame(lineageBody())];
  let seq = 0;
  for (const [type, payload] of records) frames.push(frameOf(encodeCbor([2, ++seq, 1, type, [], payload])));
  fs.writeFileSync(file, Buffer.concat(frames));
  return file;
}

function replayFile(file: string) {
  const [target] = resolveTargets(file);
  return { target: target!, replay: replayTarget(target!) };
}

const start = (run_id = 'r1'): Rec => ['run_started', { run_id, session: 's', config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] }];
const step = (step_id: number, ids: string[]): Rec => ['model_step_finished', { step_id, assistant_message: { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 't', input: {} })) } }];
const planned = (batch_id: string, step_id: number, ids: string[], sequential = false): Rec => ['tool_batch_started', { batch_id, step_id, sequential, planned_calls: ids.map((id) => ({ tool_call_id: id, name: 't', plan: 'dispatch' })) }];
const intent = (batch_id: string, id: string): Rec => ['tool_dispatch_intent', { batch_id, tool_call_id: id, args: {} }];
const result = (batch_id: string, id: string, output = 'ok'): Rec => ['tool_result', { batch_id, tool_call_id: id, outcome: 'completed', output, is_error: false }];
const ids = (count: number, prefix = 'c') => Array.from({ length: count }, (_, index) => `${prefix}${index}`);

describe('no stack overflow on valid WALs (H2)', () => {
  it('150,000 batches that name no recorded step', () => {
    const file = writeWal((function* () {
      yield start();
      for (let index = 0; index < 150_000; index++) yield planned(`b${index}`, 1_000_000 + index, []);
    })());
    const { target, replay } = replayFile(file);
    expect(replay.read.error).toBeNull();
    const episode = replay.fold.episodes[0]!;
    expect(episode.batches).toHaveLength(150_000);
    expect(episode.anomalies.filter((entry) => entry.kind === 'step_mismatch')).toHaveLength(150_000);
    expect(replayJson(null, replay).episodes[0]!.anomalies).toHaveLength(150_000);
    expect(outline(target, replay).split('\n').length).toBeGreaterThan(150_000);
  });

  it('one call with 150,000 terminals', () => {
    const file = writeWal((function* () {
      yield start();
      yield step(1, ['a']);
      yield planned('b1', 1, ['a']);
      yield intent('b1', 'a');
      for (let index = 0; index < 150_000; index++) yield result('b1', 'a');
    })());
    const { replay } = replayFile(file);
    const call = replay.fold.episodes[0]!.batches.at(0)!.calls[0]!;
    expect(call.terminals).toHaveLength(150_000);
    expect(replay.fold.episodes[0]!.anomalies.find((entry) => entry.kind === 'duplicate_terminal')!.seqs).toHaveLength(150_000);
    expect(replay.fold.episodes[0]!.state).toBe('running');
    expect(replay.resume.action).toBe('continue');
  });
});

describe('a linear fold (H3)', () => {
  it('80,000 planned calls in one sequential batch, the first held by a provider', () => {
    const calls = ids(80_000);
    const file = writeWal((function* () {
      yield start();
      yield step(1, calls);
      yield planned('b1', 1, calls, true);
      for (const id of calls) yield intent('b1', id);
      yield ['tool_call_provider_held', { batch_id: 'b1', tool_call_id: 'c0', call_key: 'k0', module: 'm' }] as Rec;
      yield ['late_result', { call_key: 'k0', status: 'completed', output: 'late' }] as Rec;
    })());
    const { replay } = replayFile(file);
    const batch = replay.fold.episodes[0]!.batches.at(0)!;
    expect(batch.calls).toHaveLength(80_000);
    expect(batch.calls[0]!.class).toBe('provider_held');
    expect(batch.calls[0]!.held!.late_result_seq).toBe(80_000 + 5);
    expect(batch.calls[0]!.successors).toHaveLength(79_999);
    expect(batch.calls.at(-1)!.behind).toBe('c0');
    expect(replay.resume.action).toBe('wait_held');
    expect(replay.fold.episodes[0]!.anomalies).toEqual([]);
  });

  it('40,000 approvals, each requested then resolved', () => {
    const calls = ids(40_000);
    const file = writeWal((function* () {
      yield start();
      for (const id of calls) yield ['approval_requested', { tool_call_id: id }] as Rec;
      for (const id of calls) yield ['approval_resolved', { tool_call_id: id, decision: 'approve' }] as Rec;
    })());
    const approvals = replayFile(file).replay.fold.episodes[0]!.approvals;
    expect(approvals).toHaveLength(40_000);
    expect(approvals.every((card, index) => card.requested_seq === index + 2 && card.resolved_seq === 40_000 + index + 2 && card.decision === 'approve')).toBe(true);
  });

  it('60,000 queued sends under one submission id, then delivered in order', () => {
    const file = writeWal((function* () {
      for (let index = 0; index < 60_000; index++) yield ['queued', { submission_id: 'same', delivery: index % 2 === 0 ? 'interrupt' : 'plain', title: `t${index}`, request: {} }] as Rec;
      for (let index = 0; index < 30_000; index++) yield ['send_delivered', { submission_id: 'same' }] as Rec;
    })());
    const fold = replayFile(file).replay.fold;
    expect(fold.queue).toHaveLength(60_000);
    expect(fold.queue.slice(0, 30_000).every((entry, index) => entry.state === 'delivered' && entry.closed_seq === 60_000 + index + 1)).toBe(true);
    expect(fold.queue_drain_order).toHaveLength(30_000);
  });

  it('40,000 steers, then 40,000 steps: every steer joins the first step after it', () => {
    const file = writeWal((function* () {
      yield start();
      for (let index = 0; index < 40_000; index++) yield ['steered', { input: [{ role: 'user', content: [{ type: 'text', text: `s${index}` }] }] }] as Rec;
      for (let index = 1; index <= 40_000; index++) yield step(index, []);
    })());
    const episode = replayFile(file).replay.fold.episodes[0]!;
    expect(episode.steers.every((steer) => steer.joins_step === 1)).toBe(true);
    expect(episode.steps).toHaveLength(40_000);
  });

  it('one 16 MiB frame of planned calls', () => {
    const calls = ids(350_000, 'call-');
    const file = writeWal([start(), step(1, calls), planned('b1', 1, calls)]);
    expect(fs.statSync(file).size).toBeGreaterThan(2 * 14_000_000);
    const { replay } = replayFile(file);
    expect(replay.read.error).toBeNull();
    expect(replay.fold.episodes[0]!.batches.at(0)!.calls).toHaveLength(350_000);
    expect(replay.resume.redone).toHaveLength(350_000);
  });
});

describe('bounded memory (H4)', () => {
  it('replay writes an episode of 20,000 batches without a step in pieces, text and --json alike (issue 30: 473 MB)', () => {
    const file = writeWal((function* () {
      yield start();
      for (let index = 0; index < 20_000; index++) yield ['tool_batch_started', { batch_id: `b${index}`, planned_calls: [{ tool_call_id: `c${index}`, name: 'tool' }] }] as Rec;
    })());
    const { target, replay } = replayFile(file);
    const longest = (pieces: Iterable<string>) => {
      let chars_max = 0;
      for (const piece of pieces) chars_max = Math.max(chars_max, piece.length);
      return chars_max;
    };
    // Made whole, the batches were one piece of 11 MB of JSON here (120 MB at 150,000), their text and their
    // anomalies 2 MB; now a piece is at most a thousand of them.
    expect(longest(jsonPieces(replayDocument(target.session, replay, new JsonSequence(replay.fold.episodes, episodeJson)), 0))).toBeLessThan(1_000_000);
    expect(longest(outlinePieces(target, replay))).toBeLessThan(200_000);
    expect([...jsonPieces(replayJson(null, replay), 0)].join('')).toBe(JSON.stringify(replayJson(null, replay), null, 2));
  });

  it('keeps no tool output in the fold, and reads it back from the WAL by its terminal', () => {
    const big = 'x'.repeat(4 * 1_048_576);
    const file = writeWal([start(), step(1, ['a']), planned('b1', 1, ['a']), intent('b1', 'a'), result('b1', 'a', big), ['tool_batch_finished', { batch_id: 'b1' }]]);
    const { replay } = replayFile(file);
    expect(JSON.stringify(replay.fold.episodes).length).toBeLessThan(10_000);
    const terminal = replay.fold.episodes[0]!.batches.at(0)!.calls[0]!.terminals[0]!;
    expect(terminalOutput(terminal, walPayloadReader(file))).toBe(big);
  });

  it('refuses, naming the offset, a session whose record holds more items than the fold builds for one', () => {
    // A run_started whose config is an array of empty maps: one byte each on disk, ~60 bytes each once built.
    const count = FOLD_RECORD_ITEMS_MAX + 1_000;
    const config = Buffer.concat([Buffer.from([0x9a, count >>> 24, (count >>> 16) & 0xff, (count >>> 8) & 0xff, count & 0xff]), Buffer.alloc(count, 0xa0)]);
    const first = writeWal([start('r0')]);
    const prefix = fs.readFileSync(first);
    // Encode the hostile frame by hand around a placeholder, so the test does not build 4M maps to write it.
    const body = encodeCbor([2, 2, 1, 'run_started', [], { run_id: 'r1', session: 's', config: 'PLACEHOLDER', input: [] }]);
    const at = body.indexOf('kPLACEHOLDER');
    fs.writeFileSync(first, Buffer.concat([prefix, frameOf(Buffer.concat([body.subarray(0, at), config, body.subarray(at + 'kPLACEHOLDER'.length)]))]));

    expect(readWal(first, { with_payload: false }).error).toBeNull();
    const { replay } = replayFile(first);
    expect(replay.read.error).toMatchObject({ kind: 'too_large', offset: prefix.length, seq: 2 });
    expect(replay.read.error!.message).toContain(`offset ${prefix.length}`);
    expect(replay.resume.action).toBe('none');
    expect(replay.fold.episodes).toHaveLength(1);
    // A folder that refused takes nothing more, and says so the same way to every reader of the fold.
    const folder = new SessionFolder();
    readWal(first, { with_payload: false, on_frame: (frame, payload_cbor) => folder.push(frame, payload_cbor) });
    expect(folder.refusal).toEqual(replay.read.error);
  });
});

describe('the fold from the reader\'s buffer', () => {
  it('equals the fold of fully built payloads, on every runtime recovery case', () => {
    const file = writeWal([
      start(),
      ['model_attempt_finished', { step_id: 1, attempt: 1, request_sha256: Uint8Array.from([0, 1, 0xab, 0xff]), outcome: 'ok' }] as Rec,
      ['compaction_notice', JSON.parse('{"step_id": 1, "__proto__": {"polluted": true}, "headers": {"b": [1.5, null, true]}}') as Payload] as Rec,
      step(1, ['a', 'b']), planned('b1', 1, ['a', 'b']), intent('b1', 'a'), intent('b1', 'b'),
      ['tool_result', { batch_id: 'b1', tool_call_id: 'a', output: 'unknown_outcome', is_error: true }] as Rec,
      result('b1', 'b', 'y'.repeat(100)),
      ['tool_batch_finished', { batch_id: 'b1' }] as Rec,
    ]);
    const built = new SessionFolder();
    readWal(file, { on_frame: (frame) => built.push(frame) });
    const { replay } = replayFile(file);
    expect(replay.fold).toEqual(built.finish());
    expect(replay.fold.episodes[0]!.steps.at(0)!.attempts).toHaveLength(1);
    expect(Object.keys(replay.fold.episodes[0]!.steps.at(0)!.notes[0]!.payload)).toContain('__proto__');
    expect(replay.fold.episodes[0]!.batches.at(0)!.calls[0]!.class).toBe('indeterminate');
    expect(planResume(replay.fold).action).toBe('close_out');
  });
});

// What the fold keeps of a session and what it leaves on disk (issue 9: a million small records' fold under
// 400 MB). Assistant messages and tool args stay in the WAL, like tool outputs: the fold keeps their record's
// offset and the few facts it derives from them (the message's role and tool_use ids, what the call acts on),
// and whoever shows or sends them reads them back by offset. Counted, not timed: the fold of a session whose
// messages and args are 100 KB each is the fold of the same session with tiny ones, offsets aside.
import { describe, expect, it } from 'vitest';
import type { JsonPayload, SessionFold } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { encodedSize } from '../../src-main/engine/cbor.js';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { intentArgs, PAYLOADS_UNREAD, stepMessage, type PayloadReader } from '../../src-main/replay/payloads.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-fold-on-disk-');
const STEPS = 20;

function message(step: number, filler: string): JsonPayload {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text: `step ${step} ${filler}` },
      { type: 'tool_use', id: `call-${step}`, name: 'edit_file', input: { path: `f${step}.txt`, body: filler } },
    ],
  };
}

const args = (step: number, filler: string): JsonPayload => ({ path: `f${step}.txt`, body: filler, nested: { deeper: [filler, { more: filler }] } });

/** A finished run of STEPS steps of one call each, its messages and args padded with `filler`. */
function writeSession(root: string, filler: string): string {
  const session = openSessionForWrite(root, 's', { writer_name: 'fold-on-disk-test' });
  const append = (type: string, payload: JsonPayload) => session.writer.append(type, payload as Payload);
  try {
    append('run_started', { run_id: 'run-1', session: 's', config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
    for (let step = 1; step <= STEPS; step++) {
      const batch_id = `b${step}`;
      const call = `call-${step}`;
      append('model_attempt_finished', { step_id: step, attempt: 1, outcome: 'ok', request_sha256: filler.slice(0, 64), ts_ms: step });
      append('model_step_finished', { step_id: step, assistant_message: message(step, filler), usage: { input_tokens: step, output_tokens: 1 } });
      append('tool_batch_started', { batch_id, step_id: step, sequential: false, planned_calls: [{ tool_call_id: call, name: 'edit_file', plan: 'dispatch', note: filler }] });
      append('tool_dispatch_intent', { batch_id, tool_call_id: call, args: args(step, filler) });
      append('tool_result', { batch_id, tool_call_id: call, outcome: 'completed', output: `done ${filler}` });
      append('tool_batch_finished', { batch_id });
      append('turn_finished', { step_id: step });
    }
    append('run_finished', { reason: 'completed' });
    session.writer.barrier();
  } finally {
    session.close();
  }
  return sessionDir(root, 's');
}

/** The fold as JSON without its wal_id, where its records lie and how long their outputs are: what differs
 *  with a payload's size. */
function withoutOffsets(fold: SessionFold): string {
  return JSON.stringify({ ...fold, wal_id: null, records: null }, (key, value: unknown) => (key === 'offset' || key === 'output_bytes' ? undefined : value));
}

function counting(read: PayloadReader): { read: PayloadReader; offsets: number[] } {
  const offsets: number[] = [];
  return { offsets, read: (offset) => (offsets.push(offset), read(offset)) };
}

describe('the fold leaves assistant messages and tool args on disk', () => {
  it('keeps the same facts whatever their size: nothing of a 100 KB message or args is held', () => {
    const tiny = replayTarget(sessionTarget(writeSession(tempDir(), 'x')));
    const large = replayTarget(sessionTarget(writeSession(tempDir(), 'y'.repeat(100_000))));
    expect(tiny.read.error).toBeNull();
    expect(large.read.error).toBeNull();
    expect(large.fold.episodes[0]!.steps).toHaveLength(STEPS);
    expect(withoutOffsets(large.fold)).toBe(withoutOffsets(tiny.fold));
    // What it keeps instead: the record's offset, the role and tool_use ids, what the call acts on.
    const step = large.fold.episodes[0]!.steps.at(4)!;
    expect(step).toMatchObject({ role: 'assistant', tool_use_ids: ['call-5'] });
    expect(step).not.toHaveProperty('assistant_message');
    const call = large.fold.episodes[0]!.batches.at(4)!.calls[0]!;
    expect(call.intent).toMatchObject({ target: 'f5.txt' });
    expect(call.intent).not.toHaveProperty('args');
    // And of the output, its CBOR size only (what it weighs in a request), the text left on disk.
    expect(call.terminals[0]).toMatchObject({ outcome: 'completed', output_bytes: encodedSize(`done ${'y'.repeat(100_000)}`) });
    expect(tiny.fold.episodes[0]!.batches.at(4)!.calls[0]!.terminals[0]!.output_bytes).toBe(encodedSize('done x'));
  });

  it('reads a message and args back by their record\'s offset, whole, only when asked', () => {
    const filler = 'z'.repeat(10_000);
    const folder = writeSession(tempDir(), filler);
    const replay = replayTarget(sessionTarget(folder));
    const payloads = counting(walPayloadReader(`${folder}/wal`));
    const episode = replay.fold.episodes[0]!;
    expect(stepMessage(episode.steps.at(6)!, payloads.read)).toEqual(message(7, filler));
    expect(intentArgs(episode.batches.at(6)!.calls[0]!, payloads.read)).toEqual(args(7, filler));
    expect(payloads.offsets).toEqual([episode.steps.at(6)!.offset, episode.batches.at(6)!.calls[0]!.intent!.offset]);
    // A request that is sent reads every message and output back; the shape-only rendering reads nothing and
    // checks the same.
    const sent = counting(walPayloadReader(`${folder}/wal`));
    const messages = renderTranscript(replay.fold, sent.read);
    expect(messages[1]).toEqual(message(1, filler));
    expect(sent.offsets).toHaveLength(2 * STEPS);
    const shapes = renderTranscript(replay.fold, PAYLOADS_UNREAD);
    expect(shapes).toHaveLength(messages.length);
    expect(checkProviderValid(shapes)).toEqual(checkProviderValid(messages));
    expect(checkProviderValid(messages).valid).toBe(true);
  });
});

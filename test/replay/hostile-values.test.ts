// WAL text used as keys and numbers the planner computes with: usage fields named like Object.prototype
// members, sums past 2^53, a close-out record too large to write, record types named like prototype members.
// Every case is checked on disk: what a successful action appended, and that a refused one appended nothing.
import { describe, expect, it } from 'vitest';
import type { JsonPayload } from '../../src-shared/replay.js';
import { resumeSession, sealSession } from '../../src-main/recovery/actions.js';
import { planResume } from '../../src-main/replay/plan.js';
import { FRAME_BODY_BYTES_MAX } from '../../src-main/engine/limits.js';
import { encodeCbor } from '../../src-main/engine/cbor.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { diskFold, diskRecords, SessionScript, walBytes } from './session-script.js';

const tempDir = useTempDirs('walscope-hostile-values-');

/** JSON.parse keeps "__proto__" an own key; an object literal would set the prototype instead. */
const usage = (json: string): JsonPayload => JSON.parse(json) as JsonPayload;

function naturalEnd(root: string, usages: JsonPayload[]): void {
  SessionScript.write(root, (s) => {
    s.start('r1');
    usages.forEach((step_usage, index) => {
      s.record('model_step_finished', { step_id: index + 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, usage: step_usage });
    });
  });
}

describe('the close-out sums usage fields by name, whatever the names', () => {
  it('writes constructor, toString and __proto__ as ordinary summed fields', () => {
    const root = tempDir();
    const step = usage('{"constructor": 3, "toString": 4, "__proto__": 5, "hasOwnProperty": 1, "input_tokens": 10}');
    naturalEnd(root, [step, step]);
    expect(resumeSession(root, 's1')).toMatchObject({ kind: 'done' });
    const written = diskRecords(root).at(-1)!;
    expect(written.type).toBe('run_finished');
    const summed = written.payload['usage'] as JsonPayload;
    expect(Object.keys(summed).sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'input_tokens', 'toString']);
    expect(Object.getOwnPropertyDescriptor(summed, '__proto__')?.value).toBe(10);
    expect(summed['constructor']).toBe(6);
    expect(summed['toString']).toBe(8);
    expect(summed['hasOwnProperty']).toBe(2);
    expect(summed['input_tokens']).toBe(20);
  });

  it('leaves out a field whose sum passes 2^53 - 1, keeps the others, and writes', () => {
    const root = tempDir();
    naturalEnd(root, [usage(`{"input_tokens": ${2 ** 53 - 10}, "output_tokens": 1}`), usage('{"input_tokens": 11, "output_tokens": 2}')]);
    const before = walBytes(root);
    expect(resumeSession(root, 's1')).toMatchObject({ kind: 'done' });
    expect(walBytes(root).subarray(0, before.length).equals(before)).toBe(true);
    expect(diskRecords(root).at(-1)).toEqual({ seq: 4, fence: expect.any(Number), type: 'run_finished', payload: { reason: 'completed', usage: { output_tokens: 3 } } });
  });

  it('a field that overflowed stays out even when a later negative term brings the sum back in range', () => {
    const root = tempDir();
    naturalEnd(root, [usage(`{"n": ${2 ** 53 - 1}}`), usage('{"n": 2}'), usage('{"n": -2}')]);
    expect(planResume(diskFold(root)).records[0]!.payload).toEqual({ reason: 'completed' });
  });
});

describe('a planned record that cannot be written', () => {
  it('refuses the action before the lease: the WAL is byte for byte what it was, not even a lineage frame', () => {
    const root = tempDir();
    // The batch's own frame fits; the close-out result of its call (more keys: outcome, output, is_error)
    // does not. Pad the call id until tool_batch_started is just under the frame body limit.
    const planned = (id: string) => ({ batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: id, name: 'n', plan: 'dispatch' }] });
    const probe = encodeCbor([2, 4, 1, 'tool_batch_started', [], planned('')]).length;
    const id = 'x'.repeat(FRAME_BODY_BYTES_MAX - probe - 16);
    SessionScript.write(root, (s) => {
      s.start('r1');
      s.record('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'short', name: 'n', input: {} }] }, usage: { input_tokens: 1 } });
      s.record('tool_batch_started', planned(id));
    });
    const before = walBytes(root);
    const outcome = sealSession(root, 's1');
    expect(outcome).toMatchObject({ kind: 'refused', message: expect.stringMatching(/tool_result\) cannot be written: .*nothing was appended/) });
    expect(walBytes(root).equals(before)).toBe(true);
  });
});

describe('record types named like Object.prototype members', () => {
  const TYPES = ['__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'toString', 'isPrototypeOf'];

  function withPrototypeTypes(root: string): void {
    SessionScript.write(root, (s) => {
      s.start('r1');
      for (const type of TYPES) s.record(type, { note: type });
      s.step(1);
    });
  }

  it('are unknown records: shown in their episode, never acted on (wal-format §5.5)', () => {
    const root = tempDir();
    withPrototypeTypes(root);
    const fold = diskFold(root);
    expect(fold.episodes).toHaveLength(1);
    expect(fold.episodes[0]!.shown.map((ref) => ref.type)).toEqual(TYPES);
    expect(fold.episodes[0]!.steps).toHaveLength(1);
    expect(planResume(fold).action).toBe('finalize');
  });

  it('leave the session service answering: the session is listed and opens', async () => {
    const root = tempDir();
    withPrototypeTypes(root);
    const service = await SessionService.open(root, { watch: false });
    try {
      await service.whenRead();
      const [summary] = await service.listSessions();
      expect(summary).toMatchObject({ session_id: 's1', records: TYPES.length + 2 });
      const detail = await service.getSession(summary!.key);
      expect(detail.integrity.error).toBeNull();
      expect(detail.resume.action).toBe('finalize');
    } finally {
      await service.close();
    }
  });
});

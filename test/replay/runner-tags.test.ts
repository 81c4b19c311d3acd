// Runner tags (runner-tags/v1) on the records recovery writes. In a tagged episode every close-out tool_result
// carries one tag: the WAL's highest plus one, then on in WAL order, never reused. An untagged episode gets
// none. Every check re-reads the WAL from disk, frame features included.
import { describe, expect, it } from 'vitest';
import type { JsonPayload } from '../../src-shared/replay.js';
import { readFloor } from '../../src-main/engine/feature-floor.js';
import { readWal } from '../../src-main/engine/reader.js';
import { cancelSession, resumeSession, sealSession, stopRun, type RecoveryOutcome } from '../../src-main/recovery/actions.js';
import { useTempDirs } from '../helpers/temp.js';
import { diskFold, lastSeq, SessionScript, USAGE, userMessage, walOf } from './session-script.js';

const tempDir = useTempDirs('walscope-tags-');

const CALLS = [
  { id: 'a', name: 'read_file' },
  { id: 'b', name: 'bash' },
  { id: 'c', name: 'fetch' },
];

/** Tags as a tagging writer assigns them: one array per input message, one per assistant block, one per result. */
const TAGS = { run_started: { tags: [[1]] }, model_step_finished: { tags: [2, 3, 4, 5] }, tool_result: { tags: 6 } };

/** Crashed mid-batch: a completed, b indeterminate (intent, no result), c never left. */
function crashedMidBatch(root: string, tagged: boolean): void {
  const tags = (type: keyof typeof TAGS): JsonPayload => (tagged ? TAGS[type] : {});
  SessionScript.write(root, (s) => {
    s.record('run_started', { run_id: 'r1', session: 's1', config: {}, input: [userMessage('go')], ...tags('run_started') });
    const content = [{ type: 'text', text: 'three calls' }, ...CALLS.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: {} }))];
    s.record('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content }, usage: USAGE, ...tags('model_step_finished') });
    s.batch('b1', 1, CALLS);
    s.intent('b1', 'a');
    s.intent('b1', 'b');
    s.record('tool_result', { batch_id: 'b1', tool_call_id: 'a', outcome: 'completed', output: 'ok', is_error: false, ...tags('tool_result') });
  });
}

interface WrittenFrame {
  type: string;
  tags: unknown;
  features: string[];
}

function framesAfter(root: string, seq: number): WrittenFrame[] {
  const written: WrittenFrame[] = [];
  readWal(walOf(root), { on_frame: (frame) => frame.seq > seq && written.push({ type: frame.type, tags: frame.payload?.['tags'], features: frame.features }) });
  return written;
}

const ACTIONS: Record<string, (root: string) => RecoveryOutcome> = {
  resume: (root) => resumeSession(root, 's1'),
  cancel: (root) => cancelSession(root, 's1'),
  seal: (root) => sealSession(root, 's1'),
  stop: (root) => stopRun(root, 's1', 'max_steps'),
};

describe('runner tags on the records recovery writes', () => {
  it.each(Object.keys(ACTIONS))('%s of a tagged episode crashed mid-batch tags each result with the next tag, in order', (action) => {
    const root = tempDir();
    crashedMidBatch(root, true);
    expect(diskFold(root).next_tag).toBe(7);
    expect(diskFold(root).episodes[0]!.tagged).toBe(true);
    const last = lastSeq(root);

    expect(ACTIONS[action]!(root).kind).toBe('done');
    const written = framesAfter(root, last);
    const results = written.filter((frame) => frame.type === 'tool_result');
    expect(results.map((frame) => frame.tags)).toEqual([7, 8]);
    for (const frame of results) expect(frame.features).toContain('runner-tags/v1');
    // Nothing else a recovery writes holds a message part.
    for (const frame of written.filter((entry) => entry.type !== 'tool_result')) expect(frame.tags).toBeUndefined();
    expect(readFloor(root)).toContain('runner-tags/v1');
    expect(diskFold(root).next_tag).toBe(9);

    expect(ACTIONS[action]!(root)).toMatchObject({ kind: 'done', appended: [] });
  });

  it('an untagged episode gets no tags and no runner-tags/v1 frame', () => {
    const root = tempDir();
    crashedMidBatch(root, false);
    expect(diskFold(root).episodes[0]!.tagged).toBe(false);
    const last = lastSeq(root);
    const outcome = resumeSession(root, 's1');
    expect(outcome.kind === 'done' && outcome.plan.action).toBe('close_out');
    const written = framesAfter(root, last);
    expect(written.filter((frame) => frame.type === 'tool_result')).toHaveLength(2);
    for (const frame of written) {
      expect(frame.tags).toBeUndefined();
      expect(frame.features).not.toContain('runner-tags/v1');
    }
  });
});

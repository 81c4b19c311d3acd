// Property: whatever state a crash leaves a batch in, and whichever action follows, the conversation rendered
// from the WAL on disk is provider-valid, no call ever gets a second terminal, the closing actions finish the
// episode, and running the action again writes nothing.
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cancelSession, resumeSession, sealSession, stopRun, type RecoveryOutcome } from '../../src-main/recovery/actions.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';
import { diskFold, SessionScript, walBytes, walOf } from './session-script.js';

const CALL_STATES = ['never_left', 'intent', 'held', 'held_delivered', 'completed', 'unknown', 'no_dispatch'] as const;
type CallState = (typeof CALL_STATES)[number];

const ACTIONS: Record<string, (root: string) => RecoveryOutcome> = {
  resume: (root) => resumeSession(root, 's1'),
  cancel: (root) => cancelSession(root, 's1'),
  seal: (root) => sealSession(root, 's1'),
  stop_max_steps: (root) => stopRun(root, 's1', 'max_steps'),
  stop_interrupted: (root) => stopRun(root, 's1', 'interrupted'),
};

function writeBatch(root: string, states: CallState[], sequential: boolean, cancel: 'none' | 'now' | 'step_boundary'): void {
  const calls = states.map((state, index) => ({ id: `c${index}`, name: 'tool', plan: state === 'no_dispatch' ? ('no_dispatch' as const) : ('dispatch' as const) }));
  SessionScript.write(root, (s) => {
    s.start('r1');
    s.step(1, calls);
    s.batch('b1', 1, calls, sequential);
    states.forEach((state, index) => {
      const id = `c${index}`;
      if (state === 'no_dispatch') return s.noDispatch('b1', id);
      if (state === 'never_left') return;
      s.intent('b1', id);
      if (state === 'held' || state === 'held_delivered') s.held('b1', id, sequential);
      if (state === 'held_delivered' || state === 'completed') s.result('b1', id);
      if (state === 'unknown') s.result('b1', id, 'unknown');
    });
    if (cancel !== 'none') s.cancel('r1', cancel);
  });
}

describe('transcript validity after every action', () => {
  it('holds for any crashed batch and any action', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...CALL_STATES), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom('none' as const, 'now' as const, 'step_boundary' as const),
        fc.constantFrom(...Object.keys(ACTIONS)),
        (states, sequential, cancel, action) => {
          const root = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-property-'));
          try {
            writeBatch(root, states, sequential, cancel);
            const outcome = ACTIONS[action]!(root);
            expect(outcome.kind).toBe('done');
            const fold = diskFold(root);
            expect(checkProviderValid(renderTranscript(fold, walPayloadReader(walOf(root))))).toEqual({ valid: true, problems: [] });
            const calls = fold.episodes[0]!.batches.at(0)!.calls;
            for (const call of calls) expect(call.terminals.length).toBeLessThanOrEqual(1);
            const keeps_open = outcome.kind === 'done' && ['continue', 'wait_held'].includes(outcome.plan.action);
            expect(fold.episodes[0]!.finished !== null).toBe(!keeps_open);
            if (!keeps_open) expect(fold.episodes[0]!.anomalies).toEqual([]);
            const bytes = walBytes(root);
            expect(ACTIONS[action]!(root)).toMatchObject({ kind: 'done', appended: [] });
            expect(walBytes(root).equals(bytes)).toBe(true);
          } finally {
            fs.rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

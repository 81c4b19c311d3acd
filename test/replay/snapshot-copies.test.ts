// A live fold's snapshots (SessionFolder.snapshotSince) share with the live fold every record the fold never
// changes once made, and copy only the parts it does change (replay/fold.ts `copyStep`, `copyBatch`). Each
// snapshot here is frozen, deeply, as soon as it is made, and the fold goes on frame by frame: a part the
// fold or classification changes in place under a snapshot throws. Every snapshot must also equal a fresh fold
// of the same frames.
import { describe, expect, it } from 'vitest';
import type { SessionFold } from '../../src-shared/replay.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { DEMO_SESSIONS } from '../../src-main/demo/sessions.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { foldFrames, SessionFolder } from '../../src-main/replay/fold.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from '../app/wal-fixture.js';

const tempDir = useTempDirs('walscope-snapshot-copies-');

function deepFreeze(value: unknown, seen = new Set<object>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value) || ArrayBuffer.isView(value)) return;
  seen.add(value);
  for (const member of Object.values(value)) deepFreeze(member, seen);
  Object.freeze(value);
}

/** Folds `wal` frame by frame, freezing each snapshot; returns how many snapshots were checked. */
function foldFrozen(wal: string, name: string): number {
  const frames: ReadFrame[] = [];
  const folder = new SessionFolder();
  let previous: SessionFold | null = null;
  const read = readWal(wal, {
    on_frame: (frame) => {
      frames.push(frame);
      folder.push(frame);
      const { fold } = folder.snapshotSince(previous);
      deepFreeze(fold);
      expect(fold, `${name} seq ${frame.seq}`).toEqual(foldFrames(frames));
      previous = fold;
    },
  });
  // The reader reports what its frame callback throws as an I/O error: a failed expectation above ends here (the
  // demo's refused sessions end in a refusal of their own).
  if (read.error?.kind === 'io') throw new Error(read.error.message);
  return frames.length;
}

describe('snapshots of a live fold', () => {
  it('never change as the fold goes on, and equal a fresh fold, in every demo session', () => {
    const root = tempDir();
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    let snapshots = 0;
    for (const key of Object.keys(DEMO_SESSIONS)) snapshots += foldFrozen(walPath(sessionDir(root, key)), key);
    expect(snapshots).toBeGreaterThan(300);
  });

  it('never change in a session whose records change parts in place: attempts, notes, terminals, held calls and their late results, steers, approvals, a late record in a finished episode', () => {
    const root = tempDir();
    const tool_uses = (...ids: string[]) => ({ role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'lookup', input: {} })) });
    const planned = (...ids: string[]) => ids.map((id) => ({ tool_call_id: id, name: 'lookup', plan: 'dispatch' }));
    withSession(root, 's', (append) => {
      append('run_started', { run_id: 'run-1', session: 's', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      append('steered', { send_id: 'send-1', delivery: 'steer', title: 'nudge', input: [{ role: 'user', content: [{ type: 'text', text: 'and this' }] }] });
      append('model_attempt_finished', { step_id: 1, attempt: 1, outcome: 'error', http_status: 529 });
      append('model_attempt_finished', { step_id: 1, attempt: 2, outcome: 'completed', http_status: 200 });
      append('model_step_finished', { step_id: 1, assistant_message: tool_uses('c1', 'c2', 'c3'), usage: { input_tokens: 10 } });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: true, planned_calls: planned('c1', 'c2', 'c3') });
      append('approval_requested', { tool_call_id: 'c1' });
      append('approval_resolved', { tool_call_id: 'c1', decision: 'approved' });
      append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c1', args: { path: '/tmp/a' } });
      append('tool_call_provider_held', { batch_id: 'b1', tool_call_id: 'c1', call_key: 'k1', module: 'mod', held_at_ms: 5 });
      append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c2', args: {} });
      append('late_result', { call_key: 'k1', output: 'late' });
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c1', outcome: 'completed', output: 'x' });
      // A second terminal for the same call: an anomaly, and a second item in its terminals.
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c1', outcome: 'completed', output: 'y' });
      append('tool_no_dispatch', { batch_id: 'b1', tool_call_id: 'c3', reason: 'skipped' });
      append('compaction_notice', { step_id: 1, reason: 'ceiling' });
      append('compaction_notice', { step_id: 1, reason: 'again' });
      append('model_attempt_finished', { step_id: 2, attempt: 1, outcome: 'completed', http_status: 200 });
      append('run_finished', { reason: 'completed' });
      append('run_started', { run_id: 'run-2', session: 's', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'again' }] }] });
      // A late result for the first episode's batch: the live fold makes its own copy of a handed-out episode.
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c2', outcome: 'completed', output: 'z' });
      append('model_step_finished', { step_id: 1, assistant_message: tool_uses('c4'), usage: {} });
      append('tool_batch_started', { batch_id: 'b2', step_id: 1, sequential: false, planned_calls: planned('c4') });
      append('tool_dispatch_intent', { batch_id: 'b2', tool_call_id: 'c4', args: {} });
    });
    expect(foldFrozen(walPath(sessionDir(root, 's')), 'in place')).toBeGreaterThan(20);
  });

  it('give a late result for a closed episode to its own call only, not to every call of that episode still without one', () => {
    const root = tempDir();
    const planned = (...ids: string[]) => ids.map((id) => ({ tool_call_id: id, name: 'lookup', plan: 'dispatch' }));
    withSession(root, 's', (append) => {
      append('run_started', { run_id: 'run-1', session: 's', config: { model: 'm' }, input: [] });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [] }, usage: {} });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: planned('c1', 'c2', 'c3') });
      append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c2', args: {} });
      append('run_finished', { reason: 'completed' });
      // The live fold's own copy of the handed-out episode: its calls' empty terminal lists must stay apart.
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c2', outcome: 'unknown', output: 'late' });
    });
    foldFrozen(walPath(sessionDir(root, 's')), 'late result');
  });
});

// One episode of 70,000 turns (420,000 records): the fold, the transcript, the app's timeline and the CLI's
// outline must all finish without overflowing the stack (a push(...rows) of that many items does) and in
// linear time (a lookup per step by linear search made them quadratic: minutes at this size).
import { describe, expect, it } from 'vitest';
import type { ReadFrame } from '../../src-shared/wal.js';
import { outline } from '../../src-main/cli/replay.js';
import { refusedRead } from '../../src-main/engine/reader.js';
import { foldFrames } from '../../src-main/replay/fold.js';
import { planResume } from '../../src-main/replay/plan.js';
import { runSignal } from '../../src-main/replay/signals.js';
import { FullSums } from '../../src-main/replay/sums.js';
import { PAYLOADS_UNREAD } from '../../src-main/replay/payloads.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';
import { buildTimeline } from '../../src-main/views/timeline.js';

const STEPS = 70_000;

function longEpisode(): ReadFrame[] {
  const frames: ReadFrame[] = [];
  const record = (type: string, payload: ReadFrame['payload']) => {
    frames.push({ offset: 0, size_bytes: 0, digest_algorithm: 'sha256', ver: 2, seq: frames.length + 1, fence: 1, type, features: [], payload });
  };
  record('run_started', { run_id: 'r', session: 's', config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
  for (let step = 1; step <= STEPS; step++) {
    const id = `c${step}`;
    record('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 't', input: {} }] }, usage: {} });
    record('tool_batch_started', { batch_id: `b${step}`, step_id: step, sequential: false, planned_calls: [{ tool_call_id: id, name: 't', plan: 'dispatch' }] });
    record('tool_dispatch_intent', { batch_id: `b${step}`, tool_call_id: id, args: {} });
    record('tool_result', { batch_id: `b${step}`, tool_call_id: id, outcome: 'completed', output: 'ok', is_error: false });
    record('tool_batch_finished', { batch_id: `b${step}` });
    record('turn_finished', { step_id: step });
  }
  return frames;
}

describe('a very long episode', () => {
  it('folds, renders, outlines and lays out its timeline', () => {
    const fold = foldFrames(longEpisode());
    const episode = fold.episodes[0]!;
    expect(episode.steps).toHaveLength(STEPS);
    expect(episode.anomalies).toEqual([]);
    expect(episode.batches.every((batch) => batch.committable)).toBe(true);

    const transcript = renderTranscript(fold, PAYLOADS_UNREAD);
    expect(transcript).toHaveLength(1 + 2 * STEPS);
    expect(checkProviderValid(transcript).valid).toBe(true);

    const resume = planResume(fold);
    expect(resume.action).toBe('continue');
    const text = outline(
      { wal_path: '/long/wal', session: 'long', session_dir: null, root: null, is_export: true },
      {
        read: { ...refusedRead({ kind: 'io', offset: null, seq: null, features: [], message: '' }), error: null, live_holder: null },
        fold,
        resume,
        recoveries: [],
        run: runSignal(fold, { end: { torn_tail: null, error: null }, is_export: true, resume_action: resume.action, resume_message: resume.message, recoveries: [], live: null }),
        sums: new FullSums(),
      },
    );
    expect(text.split('\n').length).toBeGreaterThan(3 * STEPS);

    expect(buildTimeline(fold, PAYLOADS_UNREAD).rows.length).toBeGreaterThan(2 * STEPS);
  });
});

// A page of an episode's timeline is laid out alone (views/timeline.ts `episodeRowsPage`): the last episode's
// page at every append of a live session, without its every step's rows. It must be exactly that slice of the
// episode's rows laid out whole, wherever the page starts and however long it is: across the head and the
// input, steps and the entries merged between them by key, and the anomalies.
import { describe, expect, it } from 'vitest';
import type { EpisodeFold } from '../../src-shared/replay.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { DEMO_SESSIONS } from '../../src-main/demo/sessions.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { episodeRows, episodeRowsPage, StepRowCache } from '../../src-main/views/timeline.js';
import { episodesOf } from '../helpers/episodes.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-timeline-page-');
const PAGE_COUNTS = [1, 2, 3, 7, 50];

/** Checks every page of every count, from every start (and past the end), against the whole rows; returns how
 *  many pages it checked. */
function expectEveryPage(episode: EpisodeFold, label: string): number {
  const steps = new StepRowCache();
  const whole = episodeRows(episode, steps);
  let pages = 0;
  for (const count of [...PAGE_COUNTS, whole.length]) {
    for (let start = 0; start <= whole.length + 1; start++) {
      expect(episodeRowsPage(episode, steps, start, count), `${label}: ${count} from ${start} of ${whole.length}`).toEqual(whole.slice(start, start + count));
      pages++;
    }
  }
  return pages;
}

const tool_uses = (...ids: string[]) => ({ role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'lookup', input: {} })) });
const planned = (...ids: string[]) => ids.map((id) => ({ tool_call_id: id, name: 'lookup', plan: 'dispatch' }));
const user = (text: string) => [{ role: 'user', content: [{ type: 'text', text }] }];

describe("a page of an episode's timeline", () => {
  it('is the slice of its whole rows, in every episode of every demo session', () => {
    const root = tempDir();
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    let pages = 0;
    for (const key of Object.keys(DEMO_SESSIONS)) {
      for (const episode of episodesOf(walPath(sessionDir(root, key)))) pages += expectEveryPage(episode, `${key} episode ${episode.episode}`);
    }
    expect(pages).toBeGreaterThan(1_000);
  });

  it('is the slice where entries fall before the first step, between steps and after the last, with anomalies', () => {
    const root = tempDir();
    withSession(root, 's', (append) => {
      append('run_started', { run_id: 'run-1', session: 's', config: { model: 'm' }, input: [...user('go'), ...user('and more')] });
      append('steered', { send_id: 'early', delivery: 'steer', title: 'before any step', input: user('first') });
      append('run_paused', { reason: 'before any step' });
      append('tool_batch_started', { batch_id: 'orphan', sequential: false, planned_calls: planned('o1') });
      for (let step = 1; step <= 6; step++) {
        append('model_step_finished', { step_id: step, assistant_message: tool_uses(`c${step}`, `d${step}`), usage: {} });
        append('tool_batch_started', { batch_id: `b${step}`, step_id: step, sequential: false, planned_calls: planned(`c${step}`, `d${step}`) });
        append('tool_dispatch_intent', { batch_id: `b${step}`, tool_call_id: `c${step}`, args: {} });
        if (step % 2 === 0) append('run_paused', { reason: `between ${step} and ${step + 1}` });
        if (step === 3) append('some_future_record', { shown: true });
        append('tool_result', { batch_id: `b${step}`, tool_call_id: `c${step}`, outcome: 'completed', output: 'x' });
        // A second terminal for one call: an anomaly row at the episode's end.
        if (step === 4) append('tool_result', { batch_id: `b${step}`, tool_call_id: `c${step}`, outcome: 'completed', output: 'y' });
        append('turn_finished', { step_id: step });
      }
      append('approval_requested', { tool_call_id: 'd6' });
      append('run_cancel_requested', { run_id: 'run-1', at: 'now' });
    });
    const [episode] = episodesOf(walPath(sessionDir(root, 's')));
    expect(episode!.pauses.length).toBe(4);
    expect(episode!.anomalies.length).toBeGreaterThan(0);
    expect(expectEveryPage(episode!, 'entries between steps')).toBeGreaterThan(100);
  });

  it('is the slice when the steps\' keys do not ascend (laid out whole then)', () => {
    const root = tempDir();
    withSession(root, 's', (append) => {
      append('run_started', { run_id: 'run-1', session: 's', config: { model: 'm' }, input: user('go') });
      // Step 2's attempt comes before step 1 is recorded: step 1 (made first) sorts after step 2.
      append('model_attempt_finished', { step_id: 1, attempt: 1, outcome: 'error', http_status: 529 });
      append('model_step_finished', { step_id: 2, assistant_message: tool_uses('c2'), usage: {} });
      append('run_paused', { reason: 'between' });
      append('model_step_finished', { step_id: 1, assistant_message: tool_uses('c1'), usage: {} });
    });
    const [episode] = episodesOf(walPath(sessionDir(root, 's')));
    expect(expectEveryPage(episode!, 'keys out of order')).toBeGreaterThan(20);
  });
});

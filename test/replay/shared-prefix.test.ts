// The leading items two snapshots' lists share (replay/resumable.ts): what a live episode's sums go on from.
import { describe, expect, it } from 'vitest';
import type { EpisodeFold, SessionFold, StepFold } from '../../src-shared/replay.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { DEMO_SESSIONS } from '../../src-main/demo/sessions.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { EpisodeIndex, sharedStepsAndBatches } from '../../src-main/replay/episode-index.js';
import { SessionFolder } from '../../src-main/replay/fold.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from '../app/wal-fixture.js';
import { sharedBy, sharedByIdentityOr, sharedObjects } from '../../src-main/replay/resumable.js';
import { FullSums } from '../../src-main/replay/sums.js';
import { ChunkedList, type Parts } from '../../src-shared/parts.js';

const item = (message: string) => ({ message });

describe('sharedByIdentityOr', () => {
  it('counts the same objects without asking `same`, and asks it only where the objects differ', () => {
    const shared = Array.from({ length: 1_000 }, (_, at) => item(`m${at}`));
    const before = [item('input'), ...shared, item('last')];
    const now = [item('input'), ...shared, item('other')];
    const asked: string[] = [];
    const same = (was: { message: string }, is: { message: string }) => {
      asked.push(was.message);
      return was.message === is.message;
    };
    expect(sharedByIdentityOr(before, now, same)).toBe(1_001);
    // The input (equal, not the same object), then the last pair, which is not the same: nothing in between.
    expect(asked).toEqual(['input', 'last']);
  });

  it('gives what sharedBy gives with the same comparison, at every length', () => {
    const objects = Array.from({ length: 12 }, (_, at) => item(`m${at % 5}`));
    const lists = [objects.slice(0, 8), objects.slice(0, 12), objects.map((entry, at) => (at === 6 ? item(entry.message) : entry)), objects.map((entry, at) => (at === 3 ? item('changed') : entry)), []];
    const same = (was: { message: string }, is: { message: string }) => was.message === is.message;
    for (const before of lists) {
      for (const now of lists) expect(sharedByIdentityOr(before, now, same)).toBe(sharedBy(before, now, (was, is) => was === is || same(was, is)));
    }
  });
});

describe('sharedByIdentityOr over chunked lists made one from another', () => {
  const same = (was: { message: string }, is: { message: string }) => was.message === is.message;

  it('asks `same` only where the items are not the same objects, and agrees with the walk', () => {
    const turns = Array.from({ length: 1_500 }, (_, at) => item(`t${at}`));
    const before = ChunkedList.of([item('input'), ...turns, item('steer')]);
    // A part made from the last one: its steer rendered anew (equal), a turn added after it.
    const now = before.withChanges(new Map([[1_501, item('steer')]]), [item('t1500')]);
    const asked: string[] = [];
    const counting = (was: { message: string }, is: { message: string }) => (asked.push(was.message), same(was, is));
    expect(sharedByIdentityOr(before, now, counting)).toBe(1_502);
    expect(asked).toEqual(['steer']);
    for (const changed of [0, 511, 512, 1_000, 1_501]) {
      const other = before.withChanges(new Map([[changed, item('changed')]]));
      expect(sharedByIdentityOr(before, other, same)).toBe(changed);
      expect(sharedByIdentityOr(before, other, same)).toBe(sharedBy(before, other, (was, is) => was === is || same(was, is)));
    }
  });
});

describe('sharedObjects', () => {
  const parts = (count: number) => Array.from({ length: count }, (_, at) => item(`p${at}`));

  it('counts what chunked lists made one from another share from their chunks, without a walk', () => {
    const first = ChunkedList.of(parts(2_000));
    const second = first.withChanges(new Map([[1_500, item('changed')]]), [item('new')]);
    const third = second.withChanges(new Map([[1_900, item('changed too')]]));
    const { work } = new FullSums();
    expect(sharedObjects(second, third, work)).toBe(1_900);
    expect(sharedObjects(first, third, work)).toBe(1_500);
    expect(sharedObjects(first, second, work)).toBe(1_500);
    expect(work.lists_walked).toBe(0);
    // Each equals the walk's count.
    expect([sharedBy(second, third), sharedBy(first, third), sharedBy(first, second)]).toEqual([1_900, 1_500, 1_500]);
  });

  it('walks lists that are not both chunked, and never says more than the lists hold', () => {
    const first = parts(50);
    const other = [...first.slice(0, 20), item('x')];
    const { work } = new FullSums();
    expect(sharedObjects(first, other, work)).toBe(20);
    expect(work.lists_walked).toBe(20);
    expect(sharedObjects(first, first.slice(0, 10), work)).toBe(10);
    const chunked = ChunkedList.of(first);
    expect(sharedObjects(chunked, chunked.withTail(10, []), work)).toBe(10);
  });
});

describe('sharedStepsAndBatches', () => {
  const tempDir = useTempDirs('walscope-shared-steps-');

  /** The walk it stands in for: the same step object, naming no batch at or past the place where the batch
   *  lists stop holding the same objects. */
  function walked(before: EpisodeFold, episode: EpisodeFold, steps_before: Parts<StepFold>, steps: Parts<StepFold>): number {
    const places = sharedBy(before.batches, episode.batches);
    const changed = new Set([...before.batches.slice(places), ...episode.batches.slice(places)].map((batch) => batch.batch_id));
    return sharedBy(steps_before, steps, (was, now) => was === now && (now.batch_id === null || !changed.has(now.batch_id)));
  }

  /** Folds `wal` frame by frame, a snapshot after each, and compares the count with the walk for every episode a
   *  frame changed: over the steps and over the recorded steps. */
  function compareFrameByFrame(wal: string, name: string): { compared: number; short_of_the_lists: number } {
    const seen = { compared: 0, short_of_the_lists: 0 };
    const folder = new SessionFolder();
    let previous: SessionFold | null = null;
    const read = readWal(wal, {
      on_frame: (frame) => {
        folder.push(frame);
        const { fold } = folder.snapshotSince(previous);
        for (const [index, episode] of fold.episodes.entries()) {
          const before = previous?.episodes[index];
          if (before === undefined || before === episode) continue;
          const count = sharedStepsAndBatches(before, episode, folder.sums, before.steps, episode.steps);
          expect(count, `${name} seq ${frame.seq}`).toBe(walked(before, episode, before.steps, episode.steps));
          const [recorded_before, recorded] = [EpisodeIndex.of(before, folder.sums).recordedSteps(), EpisodeIndex.of(episode, folder.sums).recordedSteps()];
          expect(sharedStepsAndBatches(before, episode, folder.sums, recorded_before, recorded), `${name} seq ${frame.seq}, recorded steps`).toBe(walked(before, episode, recorded_before, recorded));
          seen.compared++;
          if (count < Math.min(before.steps.length, episode.steps.length)) seen.short_of_the_lists++;
        }
        previous = fold;
      },
    });
    // The reader reports what its frame callback throws as an I/O error: a failed expectation above ends here.
    if (read.error?.kind === 'io') throw new Error(read.error.message);
    return seen;
  }

  it('counts what the walk counts, snapshot after snapshot, frame by frame, in every demo session', () => {
    const root = tempDir();
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    let compared = 0;
    let short_of_the_lists = 0;
    for (const key of Object.keys(DEMO_SESSIONS)) {
      const seen = compareFrameByFrame(walPath(sessionDir(root, key)), key);
      compared += seen.compared;
      short_of_the_lists += seen.short_of_the_lists;
    }
    expect(compared).toBeGreaterThan(100);
    // Not only lists that are the same throughout: batches changed under steps the lists share.
    expect(short_of_the_lists).toBeGreaterThan(10);
  });

  it('counts what the walk counts in a session of reused, rebound and late batches', () => {
    const root = tempDir();
    const tool_use = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'lookup', input: {} }] });
    const planned = (id: string) => [{ tool_call_id: id, name: 'lookup', plan: 'dispatch' }];
    withSession(root, 's', (append) => {
      append('run_started', { run_id: 'run-1', session: 's', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      append('model_step_finished', { step_id: 1, assistant_message: tool_use('c1'), usage: {} });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: planned('c1') });
      append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c1', args: {} });
      // A second batch for step 1 names it instead; a batch id started again is refused; a batch of no step.
      append('tool_batch_started', { batch_id: 'b2', step_id: 1, sequential: false, planned_calls: planned('c2') });
      append('tool_batch_started', { batch_id: 'b1', step_id: 2, sequential: false, planned_calls: planned('c3') });
      append('tool_batch_started', { batch_id: 'b3', sequential: false, planned_calls: planned('c4') });
      // A batch for a step not recorded yet, then the step.
      append('tool_batch_started', { batch_id: 'b4', step_id: 3, sequential: false, planned_calls: planned('c5') });
      append('model_step_finished', { step_id: 2, assistant_message: tool_use('c6'), usage: {} });
      append('model_step_finished', { step_id: 3, assistant_message: tool_use('c5'), usage: {} });
      append('tool_dispatch_intent', { batch_id: 'b4', tool_call_id: 'c5', args: {} });
      // Results for the batch step 1 no longer names, and for the one of no step.
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c1', outcome: 'completed', output: {} });
      append('tool_result', { batch_id: 'b3', tool_call_id: 'c4', outcome: 'completed', output: {} });
      append('run_finished', { reason: 'completed' });
      append('run_started', { run_id: 'run-2', session: 's', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'again' }] }] });
      append('model_step_finished', { step_id: 1, assistant_message: tool_use('c7'), usage: {} });
      append('tool_batch_started', { batch_id: 'b5', step_id: 1, sequential: false, planned_calls: planned('c7') });
      // A late result reaching the first episode's batch of step 3, then this episode's own.
      append('tool_result', { batch_id: 'b4', tool_call_id: 'c5', outcome: 'completed', output: {} });
      append('tool_dispatch_intent', { batch_id: 'b5', tool_call_id: 'c7', args: {} });
      append('tool_result', { batch_id: 'b5', tool_call_id: 'c7', outcome: 'completed', output: {} });
      append('tool_batch_finished', { batch_id: 'b5' });
    });
    const seen = compareFrameByFrame(walPath(sessionDir(root, 's')), 'reused batches');
    expect(seen.compared).toBeGreaterThan(15);
    expect(seen.short_of_the_lists).toBeGreaterThan(3);
  });
});

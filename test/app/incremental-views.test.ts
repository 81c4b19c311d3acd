// A live append costs the open episode, not the session (issue 9: "closed episodes are computed once; only the
// open episode's views change; no whole-session clone"). The work is counted, not timed: how many episodes the
// fold copied and re-classified and how many episodes' views were laid out again. And the reused views are the
// same as a full rebuild's.
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ChunkedList, type Parts } from '../../src-shared/parts.js';
import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { FRAME_VER_PLAIN } from '../../src-main/engine/limits.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { EpisodeIndex } from '../../src-main/replay/episode-index.js';
import { SessionFolder } from '../../src-main/replay/fold.js';
import { planFor } from '../../src-main/replay/plan.js';
import { renderEpisodeRequest } from '../../src-main/replay/transcript.js';
import { episodeTiming } from '../../src-main/replay/timing.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { DEMO_SESSIONS } from '../../src-main/demo/sessions.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { buildTimeline, episodeRowCount, episodeRows, StepRowCache } from '../../src-main/views/timeline.js';
import { episodesOf } from '../helpers/episodes.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-incremental-');
const EPISODES = 1_000;
const NOTES_PER_EPISODE = 98;
const BIG_TEST_MS_MAX = 120_000;

type Frame = { type: string; payload: Record<string, unknown> };

/** A full collection, as V8 makes it once the heap grows: what is unreachable is gone after it. */
function fullGc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });

/** One finished episode: run_started, a step with a tool call, its batch, intent, result, the batch's end,
 *  notes, run_finished. */
function episodeFrames(n: number, notes: number, finished = true): Frame[] {
  const call = `call-${n}`;
  const frames: Frame[] = [
    { type: 'run_started', payload: { run_id: `run-${n}`, session: 'big', config: { model: 'm' }, input: [user(`task ${n}`)] } },
    {
      type: 'model_step_finished',
      payload: { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: call, name: 'lookup', input: { n } }] }, usage: { input_tokens: 1, output_tokens: 1 } },
    },
    { type: 'tool_batch_started', payload: { batch_id: `b${n}`, step_id: 1, sequential: false, planned_calls: [{ tool_call_id: call, name: 'lookup', plan: 'dispatch' }] } },
    { type: 'tool_dispatch_intent', payload: { batch_id: `b${n}`, tool_call_id: call, args: { n } } },
  ];
  for (let note = 0; note < notes; note++) frames.push({ type: 'run_note', payload: { note: `episode ${n} note ${note}` } });
  if (finished) {
    frames.push({ type: 'tool_result', payload: { batch_id: `b${n}`, tool_call_id: call, outcome: 'ok', output: { found: n } } });
    frames.push({ type: 'tool_batch_finished', payload: { batch_id: `b${n}` } });
    frames.push({ type: 'run_finished', payload: { reason: 'completed' } });
  }
  return frames;
}

/** Appends frames to the session's WAL with the codec (one write), continuing its seq and fence. */
function append(root: string, frames: Frame[]): void {
  const file = walPath(sessionDir(root, 'big'));
  const head = readWal(file);
  const bytes = frames.map((frame, index) =>
    encodeFrame({ ver: FRAME_VER_PLAIN, seq: head.last_seq + 1 + index, fence: head.max_fence, type: frame.type, features: [], payload: frame.payload as never }),
  );
  fs.appendFileSync(file, Buffer.concat(bytes));
}

function bigSession(root: string): void {
  withSession(root, 'big', () => undefined);
  const frames: Frame[] = [];
  for (let n = 1; n <= EPISODES; n++) for (const frame of episodeFrames(n, NOTES_PER_EPISODE)) frames.push(frame);
  for (const frame of episodeFrames(EPISODES + 1, 0, false)) frames.push(frame);
  append(root, frames);
}

/** The open episode's four lists an append may copy: its steps, batches, recorded steps and request part. */
function openEpisodeLists(model: SessionModel): Parts<object>[] {
  const episode = model.fold().episodes.at(-1)!;
  return [episode.steps, episode.batches, EpisodeIndex.of(episode, model.sums).recordedSteps(), renderEpisodeRequest(episode, model.sums).messages];
}

/** A session of one open episode of `steps` steps made by `stepFrames` (the last one in flight), read. */
function openEpisodeOfSteps(steps: number, stepFrames: (s: number, in_flight: boolean) => Frame[]): { root: string; model: SessionModel } {
  const root = tempDir();
  withSession(root, 'big', () => undefined);
  const frames: Frame[] = [episodeFrames(1, 0, false)[0]!];
  for (let s = 1; s <= steps; s++) for (const frame of stepFrames(s, s === steps)) frames.push(frame);
  append(root, frames);
  const model = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
  model.refresh();
  return { root, model };
}

describe('live appends recompute only the open episode', () => {
  it(`appending to a ${(EPISODES * (NOTES_PER_EPISODE + 7)).toLocaleString('en')}-record session rebuilds one episode`, () => {
    const root = tempDir();
    bigSession(root);
    const model = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
    model.refresh();
    expect(model.summary().records).toBeGreaterThan(100_000);
    expect(model.episodes_rebuilt).toEqual({ fold: EPISODES + 1, views: EPISODES + 1 });
    // The session's class counts and tokens (what a detail shows) sum every episode once.
    model.detail();
    const tokens = model.tokens();
    expect(model.episodes_summed).toBe(2 * (EPISODES + 1));

    const indexed_before = model.sums.work.parts_indexed;
    append(root, [{ type: 'run_note', payload: { note: 'live 1' } }, { type: 'run_note', payload: { note: 'live 2' } }]);
    expect(model.refresh().frames_added).toBe(2);
    model.detail();
    expect(model.episodes_rebuilt).toEqual({ fold: EPISODES + 2, views: EPISODES + 2 });
    // No finished episode is indexed again (their indexes are not kept): the open one's index is taken on.
    expect(model.sums.work.parts_indexed - indexed_before).toBeLessThanOrEqual(4);
    // Taken on over the finished episodes: the open one is added to each sum.
    expect(model.tokens()).toEqual(tokens);
    expect(model.episodes_summed).toBe(2 * (EPISODES + 1) + 2);
    const rows = model.rowCounts().timeline;
    expect(model.rows('timeline', rows - 1, 1).rows[0]).toMatchObject({ kind: 'event', type: 'run_note' });

    // The open episode finishes and another starts: both change, nothing else does.
    append(root, [
      { type: 'tool_result', payload: { batch_id: `b${EPISODES + 1}`, tool_call_id: `call-${EPISODES + 1}`, outcome: 'ok', output: {} } },
      { type: 'tool_batch_finished', payload: { batch_id: `b${EPISODES + 1}` } },
      { type: 'run_finished', payload: { reason: 'completed' } },
      ...episodeFrames(EPISODES + 2, 1, false),
    ]);
    model.refresh();
    model.detail();
    expect(model.episodes_rebuilt).toEqual({ fold: EPISODES + 4, views: EPISODES + 4 });
    // The episode that finished joins the finished ones, and the new open one is added: two to each sum.
    model.tokens();
    expect(model.episodes_summed).toBe(2 * (EPISODES + 1) + 2 + 4);
    expect(model.summary().episodes).toBe(EPISODES + 2);
    expect(model.summary().status).toBe('needs_operator');
  }, BIG_TEST_MS_MAX);

  it('a late record for a closed episode rebuilds that episode too, and every view equals a full rebuild', () => {
    const root = tempDir();
    withSession(root, 'big', () => undefined);
    append(root, [...episodeFrames(1, 2, false).slice(0, 4), { type: 'run_finished', payload: { reason: 'failed' } }, ...episodeFrames(2, 2, false)]);
    const model = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
    model.refresh();
    model.detail();
    const counts_before = { classes: model.summary().class_counts, tokens: model.tokens() };
    // The finished episode is handed to the snapshot as the fold holds it: only the open one's step and batch
    // are copied.
    expect(model.parts_rebuilt.copied).toBe(2);
    const before = model.episodes_rebuilt;
    const copied_before = model.parts_rebuilt.copied;
    const snapshot_before = model.fold();
    // A copy as data: its chunked lists become arrays.
    const as_it_was: unknown = JSON.parse(JSON.stringify(snapshot_before));
    // A tool_result naming episode 1's batch after episode 1 finished: the fold files it under episode 1.
    append(root, [{ type: 'tool_result', payload: { batch_id: 'b1', tool_call_id: 'call-1', outcome: 'ok', output: { late: true } } }]);
    model.refresh();
    model.detail();
    expect(model.episodes_rebuilt.fold - before.fold).toBe(2);
    expect(model.episodes_rebuilt.views - before.views).toBe(2);
    // The fold makes its own copy of episode 1 (its step and batch) before changing it, and the snapshot a
    // copy of the batch the record changed: the snapshot handed out before is left as it was.
    expect(model.parts_rebuilt.copied - copied_before).toBe(3);
    expect(snapshot_before).toEqual(as_it_was);
    expect(snapshot_before.episodes[0]).not.toBe(model.fold().episodes[0]);

    const full = new SessionFolder();
    readWal(walPath(sessionDir(root, 'big')), { on_frame: (frame) => full.push(frame) });
    const fold = full.snapshot();
    expect(model.fold()).toEqual(fold);
    // The session's sums were taken on over the finished episodes: episode 1 replaced, they are made again.
    const fresh = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
    fresh.refresh();
    expect(model.summary().class_counts).toEqual(fresh.summary().class_counts);
    expect(model.summary().class_counts).not.toEqual(counts_before.classes);
    expect(model.tokens()).toEqual(fresh.tokens());
    expect(model.tokens()).toEqual(counts_before.tokens);
    const timeline = buildTimeline(fold, walPayloadReader(walPath(sessionDir(root, 'big'))));
    const counts = model.rowCounts();
    expect(model.rows('timeline', 0, counts.timeline).rows).toEqual(timeline.rows);
    for (const [seq, row] of timeline.row_of_seq.entries()) {
      if (seq === 0) continue;
      const index = model.locateSeq(seq);
      expect(model.record(index!)?.timeline_row ?? -1).toBe(row);
    }
  });
});

describe('live appends to a long open episode copy and lay out only the parts they change', () => {
  const STEPS = 1_500;

  /** Step `s` of one run: the model asks for one call, its batch runs it; the last step's call is in flight. */
  function stepFrames(s: number, in_flight: boolean): Frame[] {
    const call = `call-${s}`;
    const frames: Frame[] = [
      { type: 'model_step_finished', payload: { step_id: s, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: call, name: 'lookup', input: { s } }] }, usage: { input_tokens: 1, output_tokens: 1 } } },
      { type: 'tool_batch_started', payload: { batch_id: `b${s}`, step_id: s, sequential: false, planned_calls: [{ tool_call_id: call, name: 'lookup', plan: 'dispatch' }] } },
      { type: 'tool_dispatch_intent', payload: { batch_id: `b${s}`, tool_call_id: call, args: { s } } },
    ];
    return in_flight ? frames : [...frames, ...stepEnd(s)];
  }

  function stepEnd(s: number): Frame[] {
    return [
      { type: 'tool_result', payload: { batch_id: `b${s}`, tool_call_id: `call-${s}`, outcome: 'completed', output: { s } } },
      { type: 'tool_batch_finished', payload: { batch_id: `b${s}` } },
      { type: 'turn_finished', payload: { step_id: s } },
    ];
  }

  /** The model's views equal a fold and a timeline made from scratch of the WAL as it is now. */
  function expectSameAsFullRebuild(root: string, model: SessionModel): void {
    const full = new SessionFolder();
    readWal(walPath(sessionDir(root, 'big')), { on_frame: (frame) => full.push(frame) });
    const fold = full.snapshot();
    expect(model.fold()).toEqual(fold);
    const timeline = buildTimeline(fold, walPayloadReader(walPath(sessionDir(root, 'big'))));
    const total = model.rowCounts().timeline;
    expect(total).toBe(timeline.rows.length);
    for (let start = 0; start < total; start += 2_000) expect(model.rows('timeline', start, 2_000).rows).toEqual(timeline.rows.slice(start, start + 2_000));
  }

  it(`an episode of ${STEPS.toLocaleString('en')} steps: a note copies nothing, a step's end or a new step copies its step and batch`, () => {
    const { root, model } = openEpisodeOfSteps(STEPS, stepFrames);
    // As the session view shows it: the detail, the row counts, the last page of the timeline.
    const show = (): void => {
      model.detail();
      const total = model.rowCounts().timeline;
      model.rows('timeline', total - 100, 100);
    };
    model.detail();
    model.rowCounts();
    // The first snapshot copies every step and batch; counting the rows lays none out.
    expect(model.parts_rebuilt).toEqual({ copied: 2 * STEPS, steps_laid_out: 0 });
    show();
    // The page lays out the steps it shows (at most one a row), not the episode's: a live episode's page is laid
    // out alone (views/timeline.ts `episodeRowsPage`).
    expect(model.parts_rebuilt.copied).toBe(2 * STEPS);
    expect(model.parts_rebuilt.steps_laid_out).toBeGreaterThan(0);
    expect(model.parts_rebuilt.steps_laid_out).toBeLessThanOrEqual(100);

    const cost = (frames_appended: Frame[]): { copied: number; steps_laid_out: number } => {
      const before = model.parts_rebuilt;
      append(root, frames_appended);
      model.refresh();
      show();
      const after = model.parts_rebuilt;
      return { copied: after.copied - before.copied, steps_laid_out: after.steps_laid_out - before.steps_laid_out };
    };
    // A record shown in the episode, attached to no step: the episode is rebuilt from shared parts.
    expect(cost([{ type: 'run_note', payload: { note: 'live' } }])).toEqual({ copied: 0, steps_laid_out: 0 });
    expectSameAsFullRebuild(root, model);
    // The in-flight call's result, its batch's end and its turn's end: that step and that batch.
    expect(cost(stepEnd(STEPS))).toEqual({ copied: 2, steps_laid_out: 1 });
    expectSameAsFullRebuild(root, model);
    // A new step with its batch under way.
    expect(cost(stepFrames(STEPS + 1, true))).toEqual({ copied: 2, steps_laid_out: 1 });
    expectSameAsFullRebuild(root, model);
    expect(model.episodes_rebuilt.fold).toBe(4);
  });
});

describe('an append to a long open episode recomputes what it appended, and every view equals a fresh read', () => {
  const STEPS = 1_200;
  /** Items the sums over the open episode add again per append: each goes on from a checkpoint a few items
   *  before the end (replay/resumable.ts), whatever the episode's length. */
  const SUM_ITEMS_PER_APPEND_MAX = 200;
  /** Turns checked again per append: those among the last messages of the request part (the checkpoint). */
  const TURNS_PER_APPEND_MAX = 8;
  /** The four lists of each of the last snapshots a live episode's sums may go back through, and the newest's. */
  const LISTS_KEPT_MAX = 4 * 6;

  function stepFrames(s: number, in_flight: boolean): Frame[] {
    const call = `call-${s}`;
    const frames: Frame[] = [
      { type: 'model_attempt_finished', payload: { step_id: s, attempt: 1, outcome: 'completed', ts_ms: 1_000 * s } },
      { type: 'model_step_finished', payload: { step_id: s, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `step ${s}` }, { type: 'tool_use', id: call, name: 'lookup', input: { s } }] }, usage: { input_tokens: s, output_tokens: 1 } } },
      { type: 'tool_batch_started', payload: { batch_id: `b${s}`, step_id: s, sequential: false, planned_calls: [{ tool_call_id: call, name: 'lookup', plan: 'dispatch' }] } },
      { type: 'tool_dispatch_intent', payload: { batch_id: `b${s}`, tool_call_id: call, args: { s }, dispatched_at_ms: 1_000 * s + 10 } },
    ];
    return in_flight ? frames : [...frames, ...stepEnd(s)];
  }

  function stepEnd(s: number): Frame[] {
    return [
      { type: 'tool_result', payload: { batch_id: `b${s}`, tool_call_id: `call-${s}`, outcome: 'completed', output: { s }, finished_at_ms: 1_000 * s + 20 } },
      { type: 'tool_batch_finished', payload: { batch_id: `b${s}` } },
      { type: 'turn_finished', payload: { step_id: s } },
    ];
  }

  /** Everything the session view and the live tail ask for, as plain values. */
  function everyView(model: SessionModel): unknown {
    const fold = model.fold();
    const counts = model.rowCounts();
    const last = fold.episodes.at(-1)!;
    return {
      detail: { ...model.detail(), summary: { ...model.summary(), last_activity_ms: null } },
      counts,
      timeline: model.rows('timeline', 0, counts.timeline).rows,
      // A page holds at most PAGE_ROWS_MAX rows: the live tail's page, at the end, too.
      timeline_tail: model.rows('timeline', Math.max(0, counts.timeline - 100), 100).rows,
      transcript: model.rows('transcript', 0, counts.transcript).rows,
      records: model.rows('records', Math.max(0, counts.records - 50), 50).rows,
      plans: (['resume', 'cancel', 'seal'] as const).map((kind) => planFor(fold, kind, model.sums)),
      timing: episodeTiming(last, model.sums),
      run: model.summary().run,
      class_counts: model.summary().class_counts,
      tokens: model.tokens(),
    };
  }

  function expectSameAsFreshRead(root: string, model: SessionModel): void {
    const fresh = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
    fresh.refresh();
    expect(everyView(model)).toEqual(everyView(fresh));
  }

  it(`an episode of ${STEPS.toLocaleString('en')} steps: each append adds a bounded number of items, never the episode's`, () => {
    const { root, model } = openEpisodeOfSteps(STEPS, stepFrames);
    everyView(model);

    const work = () => ({ sums: model.sums.work.items_added, indexed: model.sums.work.parts_indexed, turns: model.turns_checked, walked: model.sums.work.lists_walked, ...model.parts_rebuilt });
    const cost = (appended: Frame[]) => {
      const before = work();
      append(root, appended);
      model.refresh();
      everyView(model);
      const after = work();
      return { sums: after.sums - before.sums, indexed: after.indexed - before.indexed, turns: after.turns - before.turns, walked: after.walked - before.walked, copied: after.copied - before.copied, laid_out: after.steps_laid_out - before.steps_laid_out };
    };
    // The first read summed every step and batch.
    expect(model.sums.work.items_added).toBeGreaterThan(10 * STEPS);

    // What the live tail appends most: a record attached to no step or batch. The first pause is the first to
    // ask for the seq of the run's latest progress (is the pause still in force?): that sum was made at every
    // snapshot before, so it is taken on, not made over the whole episode in this append.
    for (let pause = 1; pause <= 2; pause++) {
      const paused = cost([{ type: 'run_paused', payload: { reason: 'operator' } }]);
      // Which steps and batches two snapshots share is known from how the later one was made: no list walked.
      expect(paused).toMatchObject({ indexed: 0, walked: 0, copied: 0, laid_out: 0 });
      expect(paused.turns).toBeLessThanOrEqual(TURNS_PER_APPEND_MAX);
      expect(paused.sums).toBeLessThanOrEqual(SUM_ITEMS_PER_APPEND_MAX);
    }
    expectSameAsFreshRead(root, model);

    // The step in flight ends (its result, its batch's commit, its turn's end): that step and batch.
    const ended = cost(stepEnd(STEPS));
    expect(ended).toMatchObject({ indexed: 2, walked: 0, copied: 2, laid_out: 1 });
    expect(ended.turns).toBeLessThanOrEqual(TURNS_PER_APPEND_MAX);
    expect(ended.sums).toBeLessThanOrEqual(SUM_ITEMS_PER_APPEND_MAX);
    expectSameAsFreshRead(root, model);

    // A new step starts and asks for a call.
    const started = cost(stepFrames(STEPS + 1, true));
    expect(started).toMatchObject({ indexed: 2, walked: 0, copied: 2, laid_out: 1 });
    expect(started.sums).toBeLessThanOrEqual(SUM_ITEMS_PER_APPEND_MAX);
    expectSameAsFreshRead(root, model);
  }, BIG_TEST_MS_MAX);

  it('an append that changes no step, batch or turn hands on the last snapshot\'s lists, not copies as long as the episode', () => {
    const { root, model } = openEpisodeOfSteps(STEPS, stepFrames);
    everyView(model);
    const before = openEpisodeLists(model);
    append(root, [{ type: 'run_paused', payload: { reason: 'operator' } }, { type: 'run_note', payload: { note: 'live' } }]);
    model.refresh();
    everyView(model);
    const after = openEpisodeLists(model);
    for (const [at, list] of after.entries()) expect(list).toBe(before[at]);
    expectSameAsFreshRead(root, model);
    // A result for the call in flight changes its batch (and the request part's turns), not the steps.
    append(root, [{ type: 'tool_result', payload: { batch_id: `b${STEPS}`, tool_call_id: `call-${STEPS}`, outcome: 'completed', output: { s: STEPS }, finished_at_ms: 1_000 * STEPS + 20 } }]);
    model.refresh();
    everyView(model);
    const [steps, batches, recorded] = openEpisodeLists(model);
    expect(steps).toBe(after[0]);
    expect(recorded).toBe(after[2]);
    expect(batches).not.toBe(after[1]);
    expectSameAsFreshRead(root, model);
  }, BIG_TEST_MS_MAX);

  it('an append of a whole step to a long open episode copies the chunks of its lists it reached, not the lists', () => {
    const { root, model } = openEpisodeOfSteps(STEPS, stepFrames);
    everyView(model);
    const length = openEpisodeLists(model).reduce((sum, list) => sum + list.length, 0);
    const copied_before = ChunkedList.items_copied;
    append(root, [...stepEnd(STEPS), ...stepFrames(STEPS + 1, true)]);
    model.refresh();
    everyView(model);
    // Each list's last chunk or two (512 items a chunk), against ~6,000 items in the four lists copied whole.
    expect(length).toBeGreaterThan(5_000);
    expect(ChunkedList.items_copied - copied_before).toBeLessThan(length / 4);
    expectSameAsFreshRead(root, model);
  }, BIG_TEST_MS_MAX);

  it('a long live tail keeps a bounded number of the open episode\'s past lists: no snapshot\'s list holds the one before it', async () => {
    // Each snapshot's lists share chunks with the lists they were made from, and the sums note which snapshot
    // they were taken on from; a note held strongly kept every past snapshot's steps, batches and request part
    // alive: a million records' open episode kept ~4 MB more an append until the heap filled.
    const { root, model } = openEpisodeOfSteps(STEPS, stepFrames);
    everyView(model);
    const APPENDS = 24;
    const past: WeakRef<Parts<object>>[] = [];
    const seen = new WeakSet<Parts<object>>();
    for (let round = 1; round <= APPENDS; round++) {
      // The step in flight ends and the next one starts: every one of the four lists changes.
      append(root, [...stepEnd(STEPS + round - 1), ...stepFrames(STEPS + round, true)]);
      model.refresh();
      everyView(model);
      for (const list of openEpisodeLists(model)) {
        expect(seen.has(list)).toBe(false);
        seen.add(list);
        past.push(new WeakRef(list));
      }
      // Its own task, as each refresh of a live session is: a WeakRef keeps its target until the task ends.
      await new Promise((resolve) => setImmediate(resolve));
    }
    fullGc();
    const alive = past.map((ref) => ref.deref() !== undefined);
    // The newest snapshot's lists and those of the few copies its sums may go back through (MADE_FROM_KEPT_MAX).
    expect(alive.slice(0, -LISTS_KEPT_MAX).filter(Boolean)).toEqual([]);
    expect(alive.slice(-4).every(Boolean)).toBe(true);
    expectSameAsFreshRead(root, model);
  }, BIG_TEST_MS_MAX);

  it('a record reaching far back in the open episode is summed from the start again, and the views still equal a fresh read', () => {
    const root = tempDir();
    withSession(root, 'big', () => undefined);
    const frames: Frame[] = [episodeFrames(1, 0, false)[0]!];
    for (let s = 1; s <= 60; s++) for (const frame of stepFrames(s, s === 60)) frames.push(frame);
    append(root, frames);
    const model = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
    model.refresh();
    everyView(model);
    // A second result for step 3's call, long after its batch was committed: an anomaly in an early batch.
    const before = model.sums.work.items_added;
    append(root, [{ type: 'tool_result', payload: { batch_id: 'b3', tool_call_id: 'call-3', outcome: 'completed', output: { again: true } } }]);
    model.refresh();
    everyView(model);
    expect(model.sums.work.items_added - before).toBeGreaterThan(60);
    expectSameAsFreshRead(root, model);
    // A steer joining the step in flight, then the run is cancelled and sealed by its writer.
    append(root, [
      { type: 'steered', payload: { submission_id: 's1', input: [user('also check the logs')], delivery: 'queued' } },
      { type: 'run_cancel_requested', payload: { at: 'now' } },
    ]);
    model.refresh();
    expectSameAsFreshRead(root, model);
  });
});

describe('an episode\'s timeline rows are counted without laying them out', () => {
  it('to the number laid out, episode by episode, in every demo session (notes, batches with and without a step, steers, approvals, pauses, anomalies)', () => {
    const root = tempDir();
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    let episodes = 0;
    for (const key of Object.keys(DEMO_SESSIONS)) {
      for (const episode of episodesOf(walPath(sessionDir(root, key)))) {
        expect(episodeRowCount(episode, new StepRowCache()), `${key} episode ${episode.episode}`).toBe(episodeRows(episode, new StepRowCache()).length);
        episodes++;
      }
    }
    expect(episodes).toBeGreaterThan(Object.keys(DEMO_SESSIONS).length);
  });
});

describe("the session's token sums", () => {
  it('are summed from the finished episodes\' steps, without making their timing, and equal the timings\' sums', () => {
    const root = tempDir();
    withSession(root, 'big', () => undefined);
    const episodes_made = 200;
    const frames: Frame[] = [];
    for (let n = 1; n <= episodes_made; n++) frames.push(...episodeFrames(n, 0));
    frames.push(...episodeFrames(episodes_made + 1, 0, false));
    append(root, frames);
    const model = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
    const tokensNow = (timed_steps_max: number) => {
      model.refresh();
      // The first status made the timing of every episode for these sums (338 on the 1 GiB session); now only
      // the open episode's, which getSession makes anyway.
      const before = model.sums.work.items_added;
      const tokens = model.tokens();
      expect(model.sums.work.items_added - before).toBeLessThanOrEqual(timed_steps_max);
      const from_timings: Record<string, number> = {};
      for (const episode of model.fold().episodes) for (const [name, value] of Object.entries(episodeTiming(episode, model.sums).tokens)) from_timings[name] = (from_timings[name] ?? 0) + value;
      expect(tokens).toEqual(from_timings);
      return tokens;
    };
    expect(tokensNow(1)).toEqual({ input_tokens: episodes_made + 1, output_tokens: episodes_made + 1 });
    // An append to the open episode, and a late record for a closed one: the kept sums stay right.
    append(root, [
      { type: 'model_step_finished', payload: { step_id: 2, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, usage: { input_tokens: 5, output_tokens: 7 } } },
      { type: 'tool_result', payload: { batch_id: 'b1', tool_call_id: 'call-1', outcome: 'ok', output: { late: true } } },
    ]);
    expect(tokensNow(2)).toEqual({ input_tokens: episodes_made + 6, output_tokens: episodes_made + 8 });
  });
});

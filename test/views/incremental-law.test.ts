// The law the incremental views keep (issue 29, item 4): a generated session is appended record by record
// through the engine's writer to a real WAL, and after every append the live session model's views (its fold
// snapshot made from the last one, the sums, rows and requests taken on from the last snapshot's) equal the
// replay's full functions over a fresh fold of the file, and a fresh model's views of it. The fold's change list
// is held to its contract (src-shared/replay.ts FoldChanges) at every snapshot, and so is the update's (SessionChanges:
// no row before a list's first changed row differs from the last update's). Seeds: WALSCOPE_LAW_SEEDS=n
// checks n seeds instead of the fixed few (a failing seed is reported and replays exactly).
import { describe, expect, it } from 'vitest';
import type { FoldChanges, SessionFold } from '../../src-shared/replay.js';
import type { Parts } from '../../src-shared/parts.js';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { Prng } from '../../src-main/crashsim/prng.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { planFor } from '../../src-main/replay/plan.js';
import { episodeTiming, episodeTimingSummary, sumUsage } from '../../src-main/replay/timing.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { buildTimeline, buildTranscript } from '../../src-main/views/timeline.js';
import type { Payload } from '../../src-shared/wal.js';
import { ALL_ROWS } from '../../src-shared/timeline-filter.js';
import { withSession } from '../app/wal-fixture.js';
import { expectChangesHold, type Lists } from '../helpers/session-changes.js';
import { diskFold, SESSION, walOf } from '../replay/session-script.js';
import { useTempDirs } from '../helpers/temp.js';
import { generatedSession } from './generated-session.js';

const tempDir = useTempDirs('walscope-law-');
const SEEDS_DEFAULT = 6;
const SEEDS_MAX = 10_000;
const seeds_count = Number(process.env['WALSCOPE_LAW_SEEDS'] ?? SEEDS_DEFAULT);
if (!Number.isSafeInteger(seeds_count) || seeds_count < 1 || seeds_count > SEEDS_MAX) {
  throw new Error(`WALSCOPE_LAW_SEEDS is ${process.env['WALSCOPE_LAW_SEEDS']}: give a whole number of seeds from 1 to ${SEEDS_MAX}`);
}
const SEEDS = Array.from({ length: seeds_count }, (_, index) => 1 + index);
const SEED_TEST_MS_MAX = 60_000;
const SEARCHED = 'lookup';
/** Records made durable as the runtime makes them (an intent before its call is sent, a turn's and a run's
 *  end); the others are read from the page cache, as a live WAL's appends are. */
const BARRIER_AFTER: ReadonlySet<string> = new Set(['tool_dispatch_intent', 'turn_finished', 'run_finished']);
/** Every plan an operator is offered: each made from the model's store, taken on, against a fresh one's. */
const PLAN_KINDS = ['resume', 'cancel', 'seal'] as const;
/** Records whose timeline row is located after each append, back from the last. */
const ROWS_LOCATED = 8;

/** What the session view, its live tail and a search ask of a model, as plain values. */
function modelViews(model: SessionModel) {
  const fold = model.fold();
  const counts = model.rowCounts();
  const last = fold.episodes.at(-1);
  return {
    detail: { ...model.detail(), summary: { ...model.summary(), last_activity_ms: null } },
    counts,
    timeline: model.rows('timeline', 0, counts.timeline).rows,
    transcript: model.rows('transcript', 0, counts.transcript).rows,
    timing: last === undefined ? [] : [episodeTimingSummary(last, model.sums)],
    tokens: model.tokens(),
    search: searched(model),
    cost: model.cost(),
    errors_only: filtered(model),
    // The rows of the last few records, and of the first (each a read of its frame from disk).
    timeline_row_of: [1, ...Array.from({ length: Math.min(ROWS_LOCATED, fold.last_seq) }, (_, back) => fold.last_seq - back)].map((seq) => model.record(model.locateSeq(seq)!)?.timeline_row ?? null),
    context: last === undefined || last.steps.length === 0 ? null : model.context(last.episode, last.steps.at(-1)!.step_id),
  };
}

/** The timeline rows a search finds, the search run to its end. */
function searched(model: SessionModel): unknown[] {
  for (let round = 0; round < 1_000; round++) {
    const result = model.search('timeline', SEARCHED, ALL_ROWS);
    if (result.complete) return result.rows;
  }
  throw new Error('a search of a small session did not complete');
}

/** The timeline's rows that the errors-only filter keeps, its walk run to its end. */
function filtered(model: SessionModel): unknown {
  const filter = { ...ALL_ROWS, errors: true };
  for (let round = 0; round < 1_000; round++) {
    const result = model.filterTimeline(filter, 0, 1_000);
    if (result.complete) return result;
  }
  throw new Error('the errors-only filter of a small session did not complete');
}

/** The replay's full functions over `fold`: what the model's views must equal. */
function fullViews(fold: SessionFold, payloads: ReturnType<typeof walPayloadReader>) {
  const calls = fold.episodes.flatMap((episode) => episode.batches.flatMap((batch) => batch.calls));
  const class_counts: Record<string, number> = {};
  for (const call of calls) class_counts[call.class] = (class_counts[call.class] ?? 0) + 1;
  const last = fold.episodes.at(-1);
  return {
    timeline: buildTimeline(fold, payloads).rows,
    transcript: buildTranscript(renderTranscript(fold, payloads)),
    plans: PLAN_KINDS.map((kind) => planFor(fold, kind)),
    class_counts,
    tokens: sumUsage(fold.episodes.flatMap((episode) => episode.steps.map((step) => step.usage))),
    timing: last === undefined ? null : episodeTiming(last),
  };
}

/** The model's views against the full functions over a fresh fold of the WAL, and against a fresh model. */
function expectLaw(root: string, model: SessionModel): void {
  const fresh_fold = diskFold(root);
  expect(model.fold()).toEqual(fresh_fold);
  const views = modelViews(model);
  const full = fullViews(fresh_fold, walPayloadReader(walOf(root)));
  expect({
    timeline: views.timeline,
    transcript: views.transcript,
    plans: PLAN_KINDS.map((kind) => planFor(model.fold(), kind, model.sums)),
    class_counts: views.detail.summary.class_counts,
    tokens: views.tokens,
    timing: model.fold().episodes.length === 0 ? null : episodeTiming(model.fold().episodes.at(-1)!, model.sums),
  }).toEqual(full);
  expect(views.detail.resume).toEqual(full.plans[0]);
  const fresh = new SessionModel(SESSION, sessionTarget(sessionDir(root, SESSION)));
  fresh.refresh();
  expect(views).toEqual(modelViews(fresh));
}

/** FoldChanges' contract: what it does not name is the very object `previous` held, what it names is new, and
 *  `previous` is as it was when handed out (`previous_json`). */
function expectChangesExact(previous: { fold: SessionFold; json: string } | null, now: SessionFold, changes: FoldChanges): void {
  expect(changes.from_scratch).toBe(previous === null);
  if (previous !== null) expect(JSON.stringify(previous.fold)).toBe(previous.json);
  const indexes = changes.episodes.map((change) => change.index);
  expect(indexes).toEqual([...new Set(indexes)].sort((a, b) => a - b));
  const named = new Map(changes.episodes.map((change) => [change.index, change]));
  now.episodes.forEach((episode, index) => {
    const was = previous?.fold.episodes[index];
    const change = named.get(index);
    if (change === undefined) return expect(episode, `episode ${index + 1} is not named, so it is the one handed out before`).toBe(was);
    expect(episode).not.toBe(was);
    expect(change.added).toBe(was === undefined);
    expect(change.closed).toBe(episode.finished !== null && (was === undefined || was.finished === null));
    const lists = (fold: typeof episode | undefined) => ({ steps: fold?.steps as Parts<object> | undefined, batches: fold?.batches as Parts<object> | undefined });
    for (const list of ['steps', 'batches'] as const) {
      const before = lists(was)[list];
      const after = lists(episode)[list]!;
      const part = change[list];
      expect(part.added_from).toBe(before?.length ?? 0);
      expect(after.length).toBeGreaterThanOrEqual(part.added_from);
      const changed = new Set(part.changed);
      expect(part.changed).toEqual([...changed].sort((a, b) => a - b));
      for (let at = 0; at < part.added_from; at++) {
        expect(after.at(at) !== before!.at(at), `episode ${index + 1} ${list} place ${at}: named ${changed.has(at)}`).toBe(changed.has(at));
      }
    }
  });
  expect(indexes.every((index) => index < now.episodes.length)).toBe(true);
}

/** A snapshot as handed out (its JSON then), and the model's whole lists made from it. */
interface Handed {
  fold: SessionFold;
  json: string;
  lists: Lists;
}

function listsOf(model: SessionModel): Lists {
  const counts = model.rowCounts();
  return { timeline: model.rows('timeline', 0, counts.timeline).rows, records: model.rows('records', 0, counts.records).rows, transcript: model.rows('transcript', 0, counts.transcript).rows };
}

/** The checks after one append: the live model's change list and views; now and then the sporadic model's
 *  refresh and a random page of its timeline. Returns the live snapshot, as handed out. */
function checkAppend(root: string, live: SessionModel, sporadic: SessionModel, previous: Handed | null, random: Prng): Handed {
  live.refresh();
  const now = live.fold();
  expectChangesExact(previous, now, live.tailer.changes!);
  const changes = live.changesSinceShown();
  expectLaw(root, live);
  const lists = listsOf(live);
  expect(changes.restart).toBe(previous === null);
  if (previous !== null) expectChangesHold(previous.lists, lists, changes, 'the update');
  const handed_out = { fold: now, json: JSON.stringify(now), lists };
  if (random.chance(0.5)) return handed_out;
  sporadic.refresh();
  if (random.chance(0.5)) return handed_out;
  const total = sporadic.rowCounts().timeline;
  const start = random.int(total + 1);
  const count = 1 + random.int(20);
  expect(sporadic.rows('timeline', start, count).rows, `a page from ${start}`).toEqual(buildTimeline(diskFold(root), walPayloadReader(walOf(root))).rows.slice(start, start + count));
  return handed_out;
}

/** Appends the seed's session record by record; after every append the live model is checked, and a second
 *  model, refreshed after some appends only and reading only some views, pages at random. */
function checkSeed(seed: number): { records: number } {
  const root = tempDir();
  const records = generatedSession(seed);
  const random = new Prng(seed, 1);
  const target = () => sessionTarget(sessionDir(root, SESSION));
  let live: SessionModel | null = null;
  let sporadic: SessionModel | null = null;
  let previous: Handed | null = null;
  withSession(root, SESSION, (_append, session) => {
    for (const [at, record] of records.entries()) {
      session.writer.append(record.type, record.payload as Payload);
      if (BARRIER_AFTER.has(record.type)) session.writer.barrier();
      live ??= new SessionModel(SESSION, target());
      sporadic ??= new SessionModel(SESSION, target());
      try {
        previous = checkAppend(root, live, sporadic, previous, random);
      } catch (error) {
        if (error instanceof Error) error.message = `seed ${seed}, after record ${at + 1} (${record.type}): ${error.message}`;
        throw error;
      }
    }
  });
  sporadic!.refresh();
  expectLaw(root, sporadic!);
  return { records: records.length };
}

describe('the incremental views equal the full functions after every append (issue 29, item 4)', () => {
  it.each(SEEDS)('seed %i', (seed) => {
    const { records } = checkSeed(seed);
    expect(records).toBeGreaterThan(0);
  }, SEED_TEST_MS_MAX);
});

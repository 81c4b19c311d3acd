// The Timeline's filter runs in the service, over a generated session of every shape it sorts: calls of three
// tools, a call the tool failed (is_error), one of unknown outcome, one not dispatched, a step retried that then
// succeeded (no error) and one whose last attempt failed (an error), a run finished in error, an anomaly. Each
// filter alone and combined is checked against the rows as the whole timeline shows them; the walk is bounded as
// a search is (stepped, its answers saying whether it is complete, its kept rows capped) and reads no payload.
import { describe, expect, it } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { FilterScan, isErrorRow } from '../../src-main/views/timeline-filter.js';
import type { FilteredTimeline, SearchResult, TimelineRow } from '../../src-shared/ipc.js';
import { ALL_ROWS, filterFromParams, filterParams, filterProblem, type TimelineFilter } from '../../src-shared/timeline-filter.js';
import type { Payload } from '../../src-shared/wal.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-timeline-filter-');
const STEPS = 40;
const TOOLS = ['bash', 'read_file', 'edit'];

type Append = (type: string, payload: Payload) => number;

/** Step `step` of run `run`: one call of tool TOOLS[step % 3]; every 5th failed (is_error), the 13th never
 *  dispatched; steps 7 and 8 retried once, step 8 failing for good. */
function step(append: Append, run: number, step_id: number): void {
  const call = `c${run}-${step_id}`;
  const batch = `b${run}-${step_id}`;
  const tool = TOOLS[step_id % TOOLS.length]!;
  if (step_id === 7 || step_id === 8) {
    append('model_attempt_finished', { step_id, attempt: 1, request_len: 1, request_sha256: 'x', response_len: 1, response_sha256: 'x', http_status: 529, outcome: 'http_error', ts_ms: 1 });
    const last = step_id === 7 ? 'completed' : 'http_error';
    append('model_attempt_finished', { step_id, attempt: 2, request_len: 1, request_sha256: 'x', response_len: 1, response_sha256: 'x', http_status: last === 'completed' ? 200 : 529, outcome: last, ts_ms: 2 });
  }
  append('model_step_finished', { step_id, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `step ${run}.${step_id}` }, { type: 'tool_use', id: call, name: tool, input: { n: step_id } }] }, usage: { input_tokens: 1, output_tokens: 1 } });
  const plan = step_id === 13 ? 'no_dispatch' : 'dispatch';
  append('tool_batch_started', { batch_id: batch, step_id, sequential: false, planned_calls: [{ tool_call_id: call, name: tool, plan }] });
  if (plan === 'no_dispatch') append('tool_no_dispatch', { batch_id: batch, tool_call_id: call, reason: 'denied' });
  else {
    append('tool_dispatch_intent', { batch_id: batch, tool_call_id: call, args: { command: `marker ${run}.${step_id}` } });
    append('tool_result', { batch_id: batch, tool_call_id: call, outcome: 'completed', output: `out ${run}.${step_id}`, is_error: step_id % 5 === 0 });
  }
  append('tool_batch_finished', { batch_id: batch });
}

/** Two finished runs (the second in error, with a result for a batch it never started: an anomaly), and an open
 *  third whose last call has an intent and no result (outcome unknown). */
function openSession(): { root: string; model: SessionModel } {
  const root = tempDir();
  withSession(root, 's', (append) => {
    for (let run = 1; run <= 3; run++) {
      append('run_started', { run_id: `r${run}`, session: 's', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: `task ${run}` }] }] });
      for (let step_id = 1; step_id <= STEPS; step_id++) step(append, run, step_id);
      if (run === 2) append('tool_result', { batch_id: 'nowhere', tool_call_id: 'c?', outcome: 'completed', output: 'stray', is_error: false });
      if (run < 3) append('run_finished', run === 2 ? { reason: 'error', error: { kind: 'provider', message: 'gave up' } } : { reason: 'completed' });
    }
    append('model_step_finished', { step_id: STEPS + 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'open', name: 'bash', input: {} }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    append('tool_batch_started', { batch_id: 'b-open', step_id: STEPS + 1, sequential: false, planned_calls: [{ tool_call_id: 'open', name: 'bash', plan: 'dispatch' }] });
    append('tool_dispatch_intent', { batch_id: 'b-open', tool_call_id: 'open', args: { command: 'sleep' } });
  });
  const model = new SessionModel('s', sessionTarget(sessionDir(root, 's')));
  model.refresh();
  return { root, model };
}

/** Every page of the filtered timeline, asked again until the filter's walk is complete. */
function filtered(model: SessionModel, filter: TimelineFilter): FilteredTimeline {
  let answer = model.filterTimeline(filter, 0, 0);
  for (let asked = 1; !answer.complete; asked++) {
    expect(asked).toBeLessThan(10_000);
    answer = model.filterTimeline(filter, 0, 0);
  }
  const rows = [];
  for (let start = 0; start < answer.total; start += 100) rows.push(...model.filterTimeline(filter, start, 100).rows);
  return { ...answer, rows };
}

/** The whole timeline as its pages show it. */
function allRows(model: SessionModel): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const total = model.rowCounts().timeline;
  for (let start = 0; start < total; start += 100) rows.push(...model.rows('timeline', start, 100).rows);
  return rows;
}

const calls = (rows: readonly TimelineRow[]) => rows.filter((row): row is Extract<TimelineRow, { kind: 'call' }> => row.kind === 'call');

describe('the Timeline filter', () => {
  it('errors only: failed calls, a step that failed for good, a run finished in error, anomalies; not a retried step', () => {
    const { model } = openSession();
    const answer = filtered(model, { ...ALL_ROWS, errors: true });
    const matched = answer.rows.filter((kept) => !kept.context).map((kept) => kept.row);
    const failed_calls = calls(matched).map((row) => row.call.tool_call_id).sort();
    // Per run: steps 5, 10, …, 40 failed (is_error), step 13 not dispatched; the open run's last call unknown.
    const per_run = ['5', '10', '13', '15', '20', '25', '30', '35', '40'];
    expect(failed_calls).toEqual([1, 2, 3].flatMap((run) => per_run.map((n) => `c${run}-${n}`)).concat('open').sort());
    expect(calls(matched).find((row) => row.call.tool_call_id === 'c1-13')?.call.class).toBe('no_dispatch');
    expect(calls(matched).find((row) => row.call.tool_call_id === 'open')?.call.class).toBe('indeterminate');
    const steps = matched.filter((row) => row.kind === 'step').map((row) => row.kind === 'step' && `${row.episode}.${row.step_id}`);
    expect(steps).toEqual(['1.8', '2.8', '3.8']);
    expect(matched.filter((row) => row.kind === 'episode').map((row) => row.episode)).toEqual([2]);
    expect(matched.filter((row) => row.kind === 'anomaly')).toHaveLength(1);
    expect(answer.matched).toBe(matched.length);
    // The same rows a brute-force pass over the whole timeline calls errors.
    expect(matched).toEqual(allRows(model).filter(isErrorRow));
  });

  it('keeps each kept row in place: its episode, step and batch rows come before it, once, as context', () => {
    const { model } = openSession();
    const all = allRows(model);
    const answer = filtered(model, { ...ALL_ROWS, tool: 'edit' });
    const places = answer.rows.map((kept) => kept.at);
    expect(places).toEqual([...new Set(places)].sort((a, b) => a - b));
    for (const kept of answer.rows) expect(kept.row).toEqual(all[kept.at]);
    for (const [k, kept] of answer.rows.entries()) {
      if (kept.row.kind !== 'call') continue;
      const before = answer.rows.slice(0, k).map((row) => row.row);
      // A batch of one call is folded into its call's row (kept.row.batch); a batch of several has a row of its own.
      const batch = kept.row.batch ?? before.findLast((row) => row.kind === 'batch');
      const step_row = before.findLast((row) => row.kind === 'step');
      const episode = before.findLast((row) => row.kind === 'episode');
      if (kept.row.batch === null) expect(batch !== undefined && 'batch_id' in batch && batch.batch_id).toBe(kept.row.batch_id);
      expect(step_row?.kind === 'step' && step_row.step_id).toBe(batch?.step_id);
      expect(episode?.episode).toBe(kept.row.episode);
    }
    expect(answer.rows.filter((kept) => kept.context).every((kept) => ['episode', 'step', 'batch'].includes(kept.row.kind))).toBe(true);
    // Steps 2, 5, …, 41 hold edit's calls in each of the first three runs.
    expect(answer.matched).toBe(3 * Math.floor(STEPS / 3));
    // Each is its batch's only call (the batch folded into its row): a match brings its step's row, and each run's.
    expect(answer.total).toBe(answer.matched * 2 + 3);
    expect(answer.of).toBe(all.length);
  });

  it('a call class, a tool, a record type, and all of them at once', () => {
    const { model } = openSession();
    const all = allRows(model);
    const matchedOf = (filter: TimelineFilter) => filtered(model, filter).rows.filter((kept) => !kept.context).map((kept) => kept.row);
    expect(calls(matchedOf({ ...ALL_ROWS, call_class: 'no_dispatch' })).map((row) => row.call.tool_call_id)).toEqual(['c1-13', 'c2-13', 'c3-13']);
    const bash = matchedOf({ ...ALL_ROWS, tool: 'bash' });
    expect(bash.every((row) => row.kind === 'call' && row.call.name === 'bash')).toBe(true);
    expect(bash).toHaveLength(calls(all).filter((row) => row.call.name === 'bash').length);
    // model_attempt_finished shows in the rows of the steps retried (7 and 8 of each run), and in no other.
    const attempts = matchedOf({ ...ALL_ROWS, record_type: 'model_attempt_finished' });
    expect(attempts.map((row) => row.kind === 'step' && `${row.episode}.${row.step_id}`)).toEqual(['1.7', '1.8', '2.7', '2.8', '3.7', '3.8']);
    expect(matchedOf({ ...ALL_ROWS, record_type: 'tool_no_dispatch' })).toHaveLength(3);
    // bash's calls that failed, shown by their tool_result (step 15 and 30 of the finished runs, 15 and 30 of
    // the open one; its unknown call has no result).
    const combined = matchedOf({ errors: true, call_class: 'completed', tool: 'bash', record_type: 'tool_result' });
    expect(calls(combined).map((row) => row.call.tool_call_id)).toEqual(['c1-15', 'c1-30', 'c2-15', 'c2-30', 'c3-15', 'c3-30']);
    expect(matchedOf({ ...ALL_ROWS, tool: 'no such tool' })).toEqual([]);
  });

  it('offers the tools the session called, with their calls, and its records\' types', () => {
    const { model } = openSession();
    const { filter_choices } = model.detail();
    expect(filter_choices.tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    expect(filter_choices.tools.reduce((sum, tool) => sum + tool.calls, 0)).toBe(3 * STEPS + 1);
    expect(filter_choices.record_types).toContain('tool_no_dispatch');
    expect(filter_choices.record_types).not.toContain('lineage');
  });

  it('combines with search: the matches are places in the filtered timeline', () => {
    const { model } = openSession();
    const filter: TimelineFilter = { ...ALL_ROWS, errors: true };
    let result: SearchResult = model.search('timeline', 'marker 2.', filter);
    for (let asked = 1; !result.complete; asked++) {
      expect(asked).toBeLessThan(10_000);
      result = model.search('timeline', 'marker 2.', filter);
    }
    const rows = filtered(model, filter).rows;
    expect(result.rows.map((k) => rows[k]!.row).map((row) => row.kind === 'call' && row.call.tool_call_id)).toEqual(['c2-5', 'c2-10', 'c2-15', 'c2-20', 'c2-25', 'c2-30', 'c2-35', 'c2-40']);
  });

  it('is bounded as a search is: stepped, a page at most a page, capped, and it reads no payload to walk', () => {
    const { model } = openSession();
    const reads_before = model.payloads_read;
    const answer = filtered(model, { ...ALL_ROWS, tool: 'read_file' });
    // Only the rows the pages showed read their args and output (at most two a call row), not the walk.
    const shown_calls = calls(answer.rows.map((kept) => kept.row)).length;
    expect(model.payloads_read - reads_before).toBeLessThanOrEqual(2 * shown_calls + answer.rows.length);
    expect(model.filterTimeline({ ...ALL_ROWS, tool: 'read_file' }, 0, 1_000_000).rows.length).toBeLessThanOrEqual(2_000);
    // Past its cap the walk stops and says so; every kept row still has its context before it.
    const { views } = (model as unknown as { residency: { views: { timeline: FilterScan['segments'] } } }).residency;
    const scan = FilterScan.of({ ...ALL_ROWS, tool: 'read_file' }, views.timeline, null, 10);
    while (!scan.done) scan.step(() => null);
    expect(scan.truncated).toBe(true);
    expect(scan.matched).toBeLessThan(10);
    expect(scan.rows.length).toBeLessThanOrEqual(10 + 3);
  });

  it('after an append, walks again only the parts the append reached', () => {
    const { root, model } = openSession();
    const filter: TimelineFilter = { ...ALL_ROWS, errors: true };
    const before = filtered(model, filter);
    expect(model.filter_rows_walked).toBe(model.rowCounts().timeline);
    const last_episode_at = before.rows.findLast((kept) => kept.row.kind === 'episode' && kept.row.episode === 3)?.at ?? allRows(model).findLastIndex((row) => row.kind === 'episode');
    withSession(root, 's', (append) => {
      append('tool_result', { batch_id: 'b-open', tool_call_id: 'open', outcome: 'completed', output: 'woke', is_error: true });
      append('tool_batch_finished', { batch_id: 'b-open' });
    });
    model.refresh();
    const after = filtered(model, filter);
    // The open episode's rows and the session's own after it; the first two episodes' kept rows were kept.
    expect(model.filter_rows_walked).toBe(model.rowCounts().timeline - last_episode_at);
    expect(after.matched).toBe(before.matched);
    expect(after.rows.map((kept) => kept.row)).toEqual(allRows(model).flatMap((row, at) => (after.rows.some((kept) => kept.at === at) ? [row] : [])));
    expect(calls(after.rows.map((kept) => kept.row)).find((row) => row.call.tool_call_id === 'open')?.call.is_error).toBe(true);
  });
});

describe('the filter as the address and the API carry it', () => {
  const fromAddress = (query: string) => {
    const params = new URLSearchParams(query);
    return filterFromParams((name) => params.get(name));
  };

  it('is named by the parameters of the fields set, and read back the same', () => {
    const filter: TimelineFilter = { errors: true, call_class: 'indeterminate', tool: 'bash & co=1', record_type: 'tool_result' };
    expect(filterParams(filter)).toEqual([['errors', '1'], ['class', 'indeterminate'], ['tool', 'bash & co=1'], ['type', 'tool_result']]);
    expect(fromAddress(new URLSearchParams(filterParams(filter)).toString())).toEqual(filter);
    expect(filterParams(ALL_ROWS)).toEqual([]);
    expect(fromAddress('session=s&tab=timeline')).toEqual(ALL_ROWS);
  });

  it('leaves out what names nothing a filter takes, and the API refuses it', () => {
    expect(fromAddress(`errors=yes&class=toString&tool=${'x'.repeat(201)}&type=`)).toEqual(ALL_ROWS);
    expect(fromAddress('class=__proto__')).toEqual(ALL_ROWS);
    expect(filterProblem({ ...ALL_ROWS, call_class: 'hasOwnProperty' })).not.toBeNull();
    expect(filterProblem({ ...ALL_ROWS, tool: '' })).not.toBeNull();
    expect(filterProblem({ ...ALL_ROWS, extra: 1 })).not.toBeNull();
    expect(filterProblem(null)).not.toBeNull();
    expect(filterProblem({ errors: true, call_class: 'max_steps', tool: 'bash', record_type: 'tool_result' })).toBeNull();
  });
});

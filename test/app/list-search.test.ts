// Searching the timeline and the transcript reads each row's payloads back (outputs, args, messages stay on
// disk), so over a million records it runs in steps like the records search: each answer carries the matches so
// far and asking again goes on. It once made every row's text in one call: 260 s over the million-record bench
// session, the worker answering nothing meanwhile, and every text kept (hundreds of MB for a 1 GiB session).
// The work is counted in texts made, never timed.
import { describe, expect, it } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { SearchTexts } from '../../src-main/views/session-views.js';
import type { RowList, SearchResult } from '../../src-shared/ipc.js';
import { ALL_ROWS } from '../../src-shared/timeline-filter.js';
import type { Payload } from '../../src-shared/wal.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-list-search-');
const EPISODES = 4;
const STEPS = 30;

type Append = (type: string, payload: Payload) => number;

function episode(append: Append, run: number, finished: boolean): void {
  append('run_started', { run_id: `run-${run}`, session: 's', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: `task ${run}` }] }] });
  for (let step = 1; step <= STEPS; step++) steps(append, run, step);
  if (finished) append('run_finished', { reason: 'completed' });
}

function steps(append: Append, run: number, step: number): void {
  const call = `call-${run}-${step}`;
  append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `thinking ${run}.${step}` }, { type: 'tool_use', id: call, name: 'read', input: { n: step } }] }, usage: { input_tokens: 1, output_tokens: 1 } });
  append('tool_batch_started', { batch_id: `b${run}-${step}`, step_id: step, sequential: false, planned_calls: [{ tool_call_id: call, name: 'read', plan: 'dispatch' }] });
  append('tool_dispatch_intent', { batch_id: `b${run}-${step}`, tool_call_id: call, args: { path: `file-${run}-${step}.txt` } });
  append('tool_result', { batch_id: `b${run}-${step}`, tool_call_id: call, outcome: 'ok', output: step % 7 === 3 ? `the Needle in ${run}.${step}` : `hay ${run}.${step}` });
  append('tool_batch_finished', { batch_id: `b${run}-${step}` });
}

function searchAll(model: SessionModel, list: RowList, query: string): SearchResult {
  let result = model.search(list, query, ALL_ROWS);
  for (let asked = 1; !result.complete; asked++) {
    expect(asked).toBeLessThan(10_000);
    result = model.search(list, query, ALL_ROWS);
  }
  return result;
}

/** Every row of `list` as shown, matched by brute force: what the search must find. */
function expected(model: SessionModel, list: 'timeline' | 'transcript', needle: string): number[] {
  const total = model.rowCounts()[list];
  const found: number[] = [];
  for (let start = 0; start < total; start += 100) {
    const page = model.rows(list, start, 100).rows;
    page.forEach((row, offset) => {
      const text = JSON.stringify(row).toLowerCase();
      if (text.includes(needle)) found.push(start + offset);
    });
  }
  return found;
}

function openSession(): { root: string; model: SessionModel } {
  const root = tempDir();
  withSession(root, 's', (append) => {
    for (let run = 1; run < EPISODES; run++) episode(append, run, true);
    episode(append, EPISODES, false);
  });
  const model = new SessionModel('s', sessionTarget(sessionDir(root, 's')));
  model.refresh();
  return { root, model };
}

describe('timeline and transcript search', () => {
  it('finds what only a payload on disk holds (an output, an argument, a message), as the rows show it', () => {
    const { model } = openSession();
    for (const [list, needle] of [['timeline', 'needle in'], ['timeline', 'file-2-17.txt'], ['transcript', 'thinking 3.5'], ['transcript', 'needle in 4']] as const) {
      const result = searchAll(model, list, needle);
      expect(result.rows.length).toBeGreaterThan(0);
      if (list === 'timeline') expect(result.rows).toEqual(expected(model, list, needle));
    }
    expect(searchAll(model, 'timeline', 'nowhere at all').rows).toEqual([]);
  });

  it('a search asked again is kept; the same search later makes no text again; after an append only the open episode is searched again', () => {
    const { root, model } = openSession();
    const rows = model.rowCounts().timeline;
    const first = searchAll(model, 'timeline', 'needle');
    expect(model.search_texts_made).toBe(rows);
    // Another query over the same views matches the kept texts.
    searchAll(model, 'timeline', 'hay 2.');
    expect(model.search_texts_made).toBe(rows);

    withSession(root, 's', (append) => steps(append, EPISODES, STEPS + 1));
    model.refresh();
    const made_before = model.search_texts_made;
    const again = searchAll(model, 'timeline', 'needle');
    const closed_rows = expected(model, 'timeline', '"kind":"episode"').at(-1)!;
    expect(again.rows.filter((row) => row < closed_rows)).toEqual(first.rows.filter((row) => row < closed_rows));
    expect(again.rows).toEqual(expected(model, 'timeline', 'needle'));
    // Only the open episode's rows (and the session's own rows after them) were made again.
    expect(model.search_texts_made - made_before).toBe(model.rowCounts().timeline - closed_rows);
  });

  it('lays out an episode\'s rows only when a page or the search reaches it', () => {
    const { model } = openSession();
    const total = model.rowCounts().timeline;
    expect(model.parts_rebuilt.steps_laid_out).toBe(0);
    // The last page: the steps it shows only, at most one a row (a million records' timeline was laid out whole,
    // ~2 s; then the last episode's every step).
    const page = model.rows('timeline', total - 10, 10).rows;
    expect(page).toHaveLength(10);
    expect(model.parts_rebuilt.steps_laid_out).toBeGreaterThan(0);
    expect(model.parts_rebuilt.steps_laid_out).toBeLessThanOrEqual(10);
    expect(searchAll(model, 'timeline', 'needle').rows).toEqual(expected(model, 'timeline', 'needle'));
    expect(model.parts_rebuilt.steps_laid_out).toBe(EPISODES * STEPS);
  });

  it('keeps texts up to its budget, a prefix of each part, and drops parts no longer shown', () => {
    const texts = new SearchTexts(100);
    const part_a = ['a', 'b', 'c'];
    const part_b = ['d', 'e'];
    const make = (part: string[], index: number) => () => part[index]!.repeat(30);
    for (let index = 0; index < 3; index++) texts.text(part_a, index, make(part_a, index));
    for (let index = 0; index < 2; index++) texts.text(part_b, index, make(part_b, index));
    expect(texts.made).toBe(5);
    // 90 characters of part_a were kept; part_b's did not fit.
    for (let index = 0; index < 3; index++) expect(texts.text(part_a, index, make(part_a, index))).toBe(part_a[index]!.repeat(30));
    expect(texts.made).toBe(5);
    texts.text(part_b, 0, make(part_b, 0));
    expect(texts.made).toBe(6);
    texts.retainOnly([part_b]);
    texts.text(part_b, 0, make(part_b, 0));
    texts.text(part_b, 1, make(part_b, 1));
    texts.text(part_b, 0, make(part_b, 0));
    expect(texts.made).toBe(8);
    texts.text(part_a, 0, make(part_a, 0));
    expect(texts.made).toBe(9);
  });
});

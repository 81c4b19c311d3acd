// Searching the Records tab covers payload text, not only type and seq (issue 9), and comes in steps that a
// caller continues by asking again with the same query.
import { describe, expect, it } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import type { SearchResult } from '../../src-shared/ipc.js';
import { ALL_ROWS } from '../../src-shared/timeline-filter.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-search-');

function searchAll(model: SessionModel, query: string): SearchResult {
  let result = model.search('records', query, ALL_ROWS);
  for (let step = 0; !result.complete; step++) {
    expect(step).toBeLessThan(10_000);
    result = model.search('records', query, ALL_ROWS);
  }
  return result;
}

describe('records search', () => {
  it('finds text that only a payload holds, case-insensitively, and types and seqs as before', () => {
    const root = tempDir();
    const seqs: number[] = [];
    withSession(root, 's', (append) => {
      append('run_started', { run_id: 'r', session: 's', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] });
      for (let index = 0; index < 300; index++) {
        const seq = append('run_note', { note: index % 100 === 7 ? `the Needle-${index} is here` : `hay ${index}` });
        if (index % 100 === 7) seqs.push(seq);
      }
    });
    const model = new SessionModel('s', sessionTarget(sessionDir(root, 's')));
    model.refresh();
    const found = searchAll(model, 'needle');
    expect(found.rows.map((index) => model.rows('records', index, 1).rows[0]!.seq)).toEqual(seqs);
    expect(searchAll(model, 'NEEDLE-107').rows).toHaveLength(1);
    expect(searchAll(model, 'run_started').rows).toHaveLength(1);
    expect(searchAll(model, 'seq 3').rows.length).toBeGreaterThan(0);
    expect(searchAll(model, 'not anywhere').rows).toEqual([]);
  });

  it('a search asked again goes on over records appended meanwhile', () => {
    const root = tempDir();
    withSession(root, 's', (append) => append('run_note', { note: 'first marker' }));
    const model = new SessionModel('s', sessionTarget(sessionDir(root, 's')));
    model.refresh();
    expect(searchAll(model, 'marker').rows).toHaveLength(1);
    withSession(root, 's', (append) => append('run_note', { note: 'second marker' }));
    model.refresh();
    const again = model.search('records', 'marker', ALL_ROWS);
    expect(again.rows).toHaveLength(2);
  });
});

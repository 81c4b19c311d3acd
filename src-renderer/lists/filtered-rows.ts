// The rows the Timeline's filter keeps, fetched a page at a time for what is on screen only (as paged-rows.ts
// fetches the whole list's), with where the filter's walk stands.
import { useQuery } from '@tanstack/react-query';
import type { FilteredRow, FilteredTimeline } from '../../src-shared/ipc.js';
import type { TimelineFilter } from '../../src-shared/timeline-filter.js';
import { PAGE_ROWS, queries } from '../queries.js';

/** A getter of kept row `index` over the pages around `center` (undefined while its page loads), and the latest
 *  answer's counts (undefined before the first). */
export function useFilteredRows(key: string, filter: TimelineFilter, center: number): { rowAt: (index: number) => FilteredRow | undefined; counts: Omit<FilteredTimeline, 'rows'> | undefined } {
  const page = Math.floor(Math.max(0, center) / PAGE_ROWS);
  const previous = useQuery(queries.filtered(key, filter, Math.max(0, page - 1)));
  const current = useQuery(queries.filtered(key, filter, page));
  const next = useQuery(queries.filtered(key, filter, page + 1));
  const pages = [current, previous, next];
  const rowAt = (index: number) => {
    for (const query of pages) {
      const data = query.data;
      if (data !== undefined && index >= data.start && index < data.start + data.rows.length) return data.rows[index - data.start];
    }
    return undefined;
  };
  // The answer that walked furthest: each one asked takes the walk on.
  const answers = pages.map((query) => query.data).filter((data): data is FilteredTimeline => data !== undefined);
  const counts = answers.reduce<FilteredTimeline | undefined>((best, data) => (best === undefined || data.total > best.total || (data.complete && !best.complete) ? data : best), undefined);
  return { rowAt, counts };
}

// Rows of a server list, fetched a page at a time for what is on screen only.
import type { RowList, RowTypes } from '../../src-shared/ipc.js';
import { useQuery } from '@tanstack/react-query';
import { PAGE_ROWS, queries } from '../queries.js';

/** A row getter over the pages around `center`; undefined while a row's page loads. */
export function usePagedRows<L extends RowList>(key: string, list: L, center: number): (index: number) => RowTypes[L] | undefined {
  const page = Math.floor(Math.max(0, center) / PAGE_ROWS);
  const previous = useQuery(queries.page(key, list, Math.max(0, page - 1)));
  const current = useQuery(queries.page(key, list, page));
  const next = useQuery(queries.page(key, list, page + 1));
  return (index) => {
    for (const query of [current, previous, next]) {
      const data = query.data;
      if (data !== undefined && index >= data.start && index < data.start + data.rows.length) return data.rows[index - data.start] as RowTypes[L];
    }
    return undefined;
  };
}

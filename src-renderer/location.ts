// Deep links: the address's fragment names the session, its tab, a record (by seq, which a reload or a grown WAL
// does not move) and the Timeline's filter: `#session=KEY&tab=records&record=SEQ&errors=1&tool=bash`. The
// fragment never reaches the server and survives the token's removal from the address (http-api.ts) and a reload.
import type { RowList } from '../src-shared/ipc.js';
import { filterFromParams, filterParams, type TimelineFilter } from '../src-shared/timeline-filter.js';

export type TabName = RowList | 'context' | 'time';
const TAB_NAMES: readonly TabName[] = ['timeline', 'records', 'transcript', 'context', 'time'];

export interface DeepLink {
  session: string | null;
  tab: TabName | null;
  record: number | null;
  filter: TimelineFilter;
}

export function readLink(): DeepLink {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const tab = params.get('tab');
  const record = Number(params.get('record') ?? 'NaN');
  return {
    session: params.get('session'),
    tab: TAB_NAMES.includes(tab as TabName) ? (tab as TabName) : null,
    record: Number.isSafeInteger(record) && record >= 0 ? record : null,
    filter: filterFromParams((name) => params.get(name)),
  };
}

/** Replaces the fragment (no history entry, no hashchange): the address always says what is shown. */
export function writeLink(link: DeepLink): void {
  const params = new URLSearchParams();
  if (link.session !== null) params.set('session', link.session);
  if (link.session !== null && link.tab !== null) params.set('tab', link.tab);
  if (link.session !== null && link.record !== null) params.set('record', String(link.record));
  if (link.session !== null) for (const [name, value] of filterParams(link.filter)) params.set(name, value);
  const hash = params.size === 0 ? '' : `#${params.toString()}`;
  if (hash !== window.location.hash) window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`);
}

// Deep links: the address's fragment names the session, its tab and a record (by seq, which a reload or a
// grown WAL does not move): `#session=KEY&tab=records&record=SEQ`. The fragment never reaches the server
// and survives the token's removal from the address (http-api.ts) and a reload.
import type { RowList } from '../src-shared/ipc.js';

export type TabName = RowList | 'context' | 'time';
const TAB_NAMES: readonly TabName[] = ['timeline', 'records', 'transcript', 'context', 'time'];

export interface DeepLink {
  session: string | null;
  tab: TabName | null;
  record: number | null;
}

export function readLink(): DeepLink {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const tab = params.get('tab');
  const record = Number(params.get('record') ?? 'NaN');
  return {
    session: params.get('session'),
    tab: TAB_NAMES.includes(tab as TabName) ? (tab as TabName) : null,
    record: Number.isSafeInteger(record) && record >= 0 ? record : null,
  };
}

/** Replaces the fragment (no history entry, no hashchange): the address always says what is shown. */
export function writeLink(link: DeepLink): void {
  const params = new URLSearchParams();
  if (link.session !== null) params.set('session', link.session);
  if (link.session !== null && link.tab !== null) params.set('tab', link.tab);
  if (link.session !== null && link.record !== null) params.set('record', String(link.record));
  const hash = params.size === 0 ? '' : `#${params.toString()}`;
  if (hash !== window.location.hash) window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`);
}

// Deep links: the address's fragment names the session, its tab, a record (by seq, which a reload or a grown WAL
// does not move), a step (the Context view's) and the Timeline's filter:
// `#session=KEY&tab=records&record=SEQ&errors=1&tool=bash`, `#session=KEY&tab=context&episode=1&step=3`. The
// fragment never reaches the server and survives the token's removal from the address (http-api.ts) and a reload.
// A walscope:// link (src-shared/links.ts) names the same, with the path to open: linkFragment is its fragment.
import { LINK_TABS, type LinkTab } from '../src-shared/links.js';
import { filterFromParams, filterParams, type TimelineFilter } from '../src-shared/timeline-filter.js';

export type TabName = LinkTab;
const TAB_NAMES: readonly TabName[] = LINK_TABS;

export interface DeepLink {
  session: string | null;
  tab: TabName | null;
  record: number | null;
  /** The step the Context view shows (a link's `episode` and `step`). */
  step: { episode: number; step_id: number } | null;
  filter: TimelineFilter;
}

function wholeNumber(value: string | null): number | null {
  if (value === null || !/^(0|[1-9][0-9]{0,15})$/.test(value)) return null;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : null;
}

export function readLink(): DeepLink {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const tab = params.get('tab');
  const record = Number(params.get('record') ?? 'NaN');
  const episode = wholeNumber(params.get('episode'));
  const step_id = wholeNumber(params.get('step'));
  return {
    session: params.get('session'),
    tab: TAB_NAMES.includes(tab as TabName) ? (tab as TabName) : null,
    record: Number.isSafeInteger(record) && record >= 0 ? record : null,
    step: episode === null || step_id === null ? null : { episode, step_id },
    filter: filterFromParams((name) => params.get(name)),
  };
}

/** Replaces the fragment (no history entry, no hashchange): the address always says what is shown. */
export function writeLink(link: DeepLink): void {
  const params = new URLSearchParams();
  if (link.session !== null) params.set('session', link.session);
  if (link.session !== null && link.tab !== null) params.set('tab', link.tab);
  if (link.session !== null && link.step !== null) {
    params.set('episode', String(link.step.episode));
    params.set('step', String(link.step.step_id));
  }
  if (link.session !== null && link.record !== null) params.set('record', String(link.record));
  if (link.session !== null) for (const [name, value] of filterParams(link.filter)) params.set(name, value);
  const hash = params.size === 0 ? '' : `#${params.toString()}`;
  if (hash !== window.location.hash) window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`);
}

/** A comparison the address names: `#compare=A&with=B` (and `&episode=N` for that episode of each only). */
export interface CompareLink {
  a: string;
  b: string;
  episode: number | null;
}

export function readCompareLink(): CompareLink | null {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const a = params.get('compare');
  const b = params.get('with');
  if (a === null || b === null || a.length === 0 || b.length === 0) return null;
  const episode = Number(params.get('episode') ?? 'NaN');
  return { a, b, episode: Number.isSafeInteger(episode) && episode >= 1 ? episode : null };
}

export function compareHash(link: CompareLink): string {
  const params = new URLSearchParams({ compare: link.a, with: link.b });
  if (link.episode !== null) params.set('episode', String(link.episode));
  return `#${params.toString()}`;
}

/** Opens a comparison as a new entry of the history (Back returns to what was shown): the window follows the
 *  hashchange. */
export function openComparison(link: CompareLink): void {
  window.location.hash = compareHash(link);
}

/** Replaces the fragment with the comparison shown (its episode chosen), as writeLink does a session's. */
export function writeCompareLink(link: CompareLink): void {
  const hash = compareHash(link);
  if (hash !== window.location.hash) window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`);
}

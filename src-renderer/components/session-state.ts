// What the session view shows and where, as one state changed by named actions (a reducer): the tab, the row
// selected in each list, whether its detail is open, the search and its match, following the tail. Every way of
// moving (a click, a key, a search match, a jump to a record) is one action here, so two of them cannot leave the
// view half moved.
import type { RowList } from '../../src-shared/ipc.js';
import { ALL_ROWS, type TimelineFilter } from '../../src-shared/timeline-filter.js';
import type { DeepLink, TabName } from '../location.js';

export type ShownTab = TabName;

export interface SessionViewState {
  tab: RowList;
  /** What the main pane shows: the tab's list, or a view of its own over it (the Context view, the Time view). */
  pane: 'list' | 'context' | 'time';
  /** The step the Context view opens at (from the timeline); null: its default. */
  context_step: { episode: number; step_id: number } | null;
  selected: Record<RowList, number | null>;
  /** The selected row's detail is shown beside the list. */
  open: boolean;
  /** A row to scroll into view (a new object for each request, so the same row can be asked for twice). */
  reveal: { index: number } | null;
  /** The first row in view: where the list's pages are asked for around. */
  first: number;
  follow: boolean;
  query: string;
  /** The match shown; null until Enter is pressed (the first Enter selects the first match). */
  match: number | null;
  /** Enter pressed before the first match arrived: the first match is selected when it does. */
  enter_pending: boolean;
  /** A deep link's record is being located: the address is not rewritten meanwhile. */
  locating: boolean;
  /** The provisional tail gave way to the real list's rows (at its end). */
  handed_over: boolean;
  /** The Timeline's filter: while one is set, the timeline's places are places in the rows it keeps. */
  filter: TimelineFilter;
}

export type SessionViewAction =
  | { type: 'show'; tab: ShownTab }
  | { type: 'select'; list: RowList; index: number | null; reveal: boolean }
  /** A row chosen by a key or a match: selected, revealed, the tail no longer followed. */
  | { type: 'move'; index: number }
  | { type: 'detail'; open: boolean }
  | { type: 'follow'; on: boolean }
  | { type: 'first_row'; index: number }
  | { type: 'query'; query: string }
  | { type: 'match'; match: number; index: number }
  | { type: 'enter_pending'; pending: boolean }
  /** A record located by seq (a jump, a deep link): the Records tab, the row opened. */
  | { type: 'located'; index: number }
  | { type: 'located_done' }
  | { type: 'open_context'; step: { episode: number; step_id: number } }
  | { type: 'to_timeline'; row: number }
  | { type: 'handed_over'; last_row: number }
  | { type: 'filter'; filter: TimelineFilter };

/** The first state, from a deep link to this session (or none) and whether its WAL is still being read. */
export function initialViewState(link: DeepLink | null, reading: boolean): SessionViewState {
  return {
    tab: link?.record != null ? 'records' : link?.tab === 'context' || link?.tab === 'time' || link?.tab == null ? 'timeline' : link.tab,
    // A step is shown in the Context view (a link names it with its tab, or alone).
    pane: link?.record == null && link?.step != null ? 'context' : (link?.tab === 'context' || link?.tab === 'time') && link.record === null ? link.tab : 'list',
    context_step: link?.record == null ? (link?.step ?? null) : null,
    selected: { timeline: null, records: null, transcript: null },
    open: false,
    reveal: null,
    first: 0,
    // A session opened while its WAL is read from the start shows its tail first (ProvisionalTail), at the end:
    // the real list then follows its end too, so the rows in view stay the same when it replaces the tail.
    follow: reading && link?.record == null,
    query: '',
    match: null,
    enter_pending: false,
    locating: link?.record != null,
    handed_over: false,
    filter: link?.filter ?? ALL_ROWS,
  };
}

export function sessionViewReducer(state: SessionViewState, action: SessionViewAction): SessionViewState {
  switch (action.type) {
    case 'show':
      return action.tab === 'context' || action.tab === 'time' ? { ...state, pane: action.tab } : { ...state, tab: action.tab, match: null, pane: 'list' };
    case 'select':
      return withSelected(state, action.list, action.index, action.reveal);
    case 'move':
      return { ...withSelected(state, state.tab, action.index, true), follow: false };
    case 'detail':
      return { ...state, open: action.open };
    case 'follow':
      return { ...state, follow: action.on };
    case 'first_row':
      return { ...state, first: action.index };
    case 'query':
      return { ...state, query: action.query, match: null, enter_pending: false };
    case 'match':
      return { ...withSelected(state, state.tab, action.index, true), match: action.match, follow: false, open: true };
    case 'enter_pending':
      return { ...state, enter_pending: action.pending };
    case 'located':
      return { ...withSelected({ ...state, tab: 'records', pane: 'list' }, 'records', action.index, true), follow: false, open: true };
    case 'located_done':
      return { ...state, locating: false };
    case 'open_context':
      return { ...state, context_step: action.step, pane: 'context' };
    case 'to_timeline':
      // `row` is a place in the whole timeline: the filter gives way.
      return { ...withSelected({ ...state, tab: 'timeline', filter: ALL_ROWS }, 'timeline', action.row, true), open: true };
    case 'handed_over':
      return { ...state, first: action.last_row, handed_over: true };
    case 'filter':
      // Another list: what was selected and matched in the one before names other rows here.
      return { ...withSelected({ ...state, filter: action.filter, match: null, first: 0, follow: false }, 'timeline', null, false), reveal: null };
  }
}

function withSelected(state: SessionViewState, list: RowList, index: number | null, reveal: boolean): SessionViewState {
  const selected = { ...state.selected, [list]: index };
  return { ...state, selected, reveal: index !== null && reveal ? { index } : state.reveal };
}

/** The next match after `match` (or before, `delta` < 0), wrapping; the first (or last) when none is shown yet. */
export function nextMatch(match: number | null, delta: number, matches: number): number {
  if (match === null) return delta > 0 ? 0 : matches - 1;
  return (match + delta + matches) % matches;
}

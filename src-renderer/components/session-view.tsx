// One session: header, integrity banner, tabs (timeline, records, transcript, context) as windowed lists, search
// (matches painted, search-highlight.ts), follow-tail, and the side pane (session-side.tsx). What is shown and
// where is one state changed by named actions (session-state.ts); the keys are a hook of their own
// (session-keys.ts). The address names the tab, the record and the Timeline's filter (location.ts); while a filter
// is set the timeline shows the rows it keeps (timeline-filter-bar.tsx, lists/filtered-rows.ts).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useRef, useState, type Dispatch, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { AfterDamageView, RecordRow, RowList, SearchResult, SessionDetail, SessionTail, TimelineRow, TranscriptRow } from '../../src-shared/ipc.js';
import { ALL_ROWS, filterSet } from '../../src-shared/timeline-filter.js';
import { useFilteredRows } from '../lists/filtered-rows.js';
import { ScaledList } from '../lists/scaled-list.js';
import { usePagedRows } from '../lists/paged-rows.js';
import { readLink, writeLink } from '../location.js';
import { queries } from '../queries.js';
import { AfterDamageNote, UnverifiedMark } from './after-damage.js';
import { ContextView } from './context-view.js';
import { IntegrityBanner } from './integrity-banner.js';
import { ProvisionalTail } from './provisional-tail.js';
import { useSearchHighlight } from './search-highlight.js';
import { SessionHeader } from './session-header.js';
import type { LinkPlace } from './share-line.js';
import { useSessionKeys } from './session-keys.js';
import { TimelineFilterBar } from './timeline-filter-bar.js';
import { SessionSide } from './session-side.js';
import { initialViewState, nextMatch, sessionViewReducer, type SessionViewAction, type SessionViewState, type ShownTab } from './session-state.js';
import { TimelineRowView } from './timeline-row.js';
import { TimeView } from './time-view.js';
import { TranscriptLine } from './transcript.js';
import { UnconfirmedCalls } from './unconfirmed-calls.js';

const ROW_PX: Record<RowList, number> = { timeline: 30, records: 24, transcript: 30 };
const TABS: { list: RowList; label: string }[] = [
  { list: 'timeline', label: 'Timeline' },
  { list: 'records', label: 'Records' },
  { list: 'transcript', label: 'Transcript' },
];

export function SessionView({ detail }: { detail: SessionDetail }) {
  const key = detail.summary.key;
  const client = useQueryClient();
  const reading = detail.summary.status === 'loading';
  // A deep link (location.ts) opens this session at its tab and record; only the first render reads it.
  const [link] = useState(() => { const read = readLink(); return read.session === key ? read : null; });
  const [state, dispatch] = useReducer(sessionViewReducer, null, () => initialViewState(link, reading));
  const { tab, pane } = state;
  const search_box = useRef<HTMLInputElement>(null);
  const filter_box = useRef<HTMLInputElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const current = state.selected[tab];
  const tail = useQuery(queries.tail(client, key, reading)).data ?? null;
  const shown_rows = useShownRows(detail, state, tail, dispatch);
  const { rowAt, tail_list, total } = shown_rows;
  const search = useQuery(queries.search(key, tab, state.query, tab === 'timeline' ? state.filter : ALL_ROWS, detail.summary.last_seq));
  useSearchHighlight(body, pane !== 'list' ? '' : state.query);
  useSessionKeys(total, current, dispatch, search_box, filter_box);

  const jumpToRecord = useCallback(async (seq: number) => {
    const index = await client.fetchQuery(queries.locate(key, seq));
    if (index !== null) dispatch({ type: 'located', index });
  }, [client, key]);
  useEffect(() => {
    if (link?.record == null) return;
    void jumpToRecord(link.record).finally(() => dispatch({ type: 'located_done' }));
  }, [link, jumpToRecord]);

  // The address says what is shown: session, tab, and the record open in the Records tab.
  const shown_seq = tab === 'records' && current !== null ? (rowAt(current)?.row as RecordRow | undefined)?.seq : null;
  useEffect(() => {
    if (state.locating || shown_seq === undefined) return;
    writeLink({ session: key, tab: pane === 'list' ? tab : pane, record: pane === 'list' ? (shown_seq ?? null) : null, step: pane === 'context' ? state.context_step : null, filter: state.filter });
  }, [key, tab, pane, shown_seq, state.locating, state.filter, state.context_step]);

  return (
    <div className="session-view" data-testid="session-view" data-session={key}>
      <SessionHeader detail={detail} tail={tail} place={linkPlace(state, current === null ? undefined : rowAt(current)?.row, shown_seq ?? null)} />
      <IntegrityBanner detail={detail} />
      <RunBanner detail={detail} />
      <div className="session-body" ref={body}>
        <SessionMain detail={detail} state={state} tail={tail} tail_list={tail_list} rows={shown_rows} search={search.data} boxes={{ search: search_box, filter: filter_box }} dispatch={dispatch} />
        {pane !== 'time' && <SessionSide
          detail={detail}
          selection={{ tab, open: state.open && current !== null ? { index: current, row: rowAt(current)?.row } : null, episode: tab === 'timeline' && current !== null ? episodeOf(rowAt(current)?.row) : null }}
          onJump={(seq) => void jumpToRecord(seq)}
          onContext={(episode, step_id) => dispatch({ type: 'open_context', step: { episode, step_id } })}
          onTimeline={(row) => dispatch({ type: 'to_timeline', row })}
        />}
      </div>
    </div>
  );
}

/** The tabs, the search, and the list shown (or the Context view, or the provisional tail while the WAL is read). */
function SessionMain({ detail, state, tail, tail_list, rows, search, boxes, dispatch }: {
  detail: SessionDetail;
  state: SessionViewState;
  tail: SessionTail | null;
  tail_list: Exclude<RowList, 'transcript'> | null;
  rows: ShownRows;
  search: SearchResult | undefined;
  boxes: { search: React.RefObject<HTMLInputElement | null>; filter: React.RefObject<HTMLInputElement | null> };
  dispatch: Dispatch<SessionViewAction>;
}) {
  const { tab, pane } = state;
  const matches = search?.rows ?? [];
  const renderRow = useRowRenderer(detail, state, rows.rowAt, new Set(matches), dispatch);
  const shown_tab: ShownTab = pane === 'list' ? tab : pane;
  const filtering = tab === 'timeline' && filterSet(state.filter);
  return (
    <div className="session-main">
      <div className="tabs">
        <Tabs detail={detail} shown={shown_tab} onShow={(next) => dispatch({ type: 'show', tab: next })} />
        <SearchBar state={state} search={search} matches={matches} box={boxes.search} dispatch={dispatch} />
        {tab === 'timeline' && pane === 'list' && tail_list === null && (
          <TimelineFilterBar detail={detail} filter={state.filter} counts={rows.counts} box={boxes.filter} onFilter={(filter) => dispatch({ type: 'filter', filter })} />
        )}
      </div>
      {tab === 'transcript' && pane === 'list' && <TranscriptCheck valid={detail.transcript_valid} />}
      {tab === 'records' && pane === 'list' && <AfterDamageNote view={detail.after_damage} />}
      <div className="tab-panel" role="tabpanel" id={`panel-${shown_tab}`} aria-labelledby={`tab-${shown_tab}`}>
        {pane === 'context' ? <ContextView key={JSON.stringify(state.context_step)} sessionKey={detail.summary.key} episodes={detail.summary.episodes} initial={state.context_step} /> : pane === 'time' ? <TimeView detail={detail} /> : tail_list !== null && tail !== null ? <ProvisionalTail tail={tail} list={tail_list} /> : <ScaledList
          key={filtering ? `${tab} ${JSON.stringify(state.filter)}` : tab}
          total={rows.total}
          row_height_px={ROW_PX[tab]}
          renderRow={renderRow}
          reveal={state.reveal}
          follow={state.follow}
          onScrolledAway={() => dispatch({ type: 'follow', on: false })}
          onFirstRow={(index) => dispatch({ type: 'first_row', index })}
          label={tab}
          testid={`list-${tab}`}
        />}
      </div>
    </div>
  );
}

/** The list shown: how many rows, each row (and whether the filter shows it only as context), and the filter's
 *  counts while one is set. */
interface ShownRows {
  total: number;
  rowAt: (index: number) => { row: unknown; context: boolean } | undefined;
  counts?: ReturnType<typeof useFilteredRows>['counts'];
}

/** The rows of the list shown (the filter's while one is set on the timeline), and which list the provisional
 *  tail stands in for (null: none). Once the read ends the tail stays until the real list's last page is here
 *  (asked for around the end, where the list will show it), so no empty rows come between the two. */
function useShownRows(detail: SessionDetail, state: SessionViewState, tail: SessionTail | null, dispatch: Dispatch<SessionViewAction>): ShownRows & { tail_list: Exclude<RowList, 'transcript'> | null } {
  const { tab } = state;
  const total = detail.rows[tab];
  const reading = detail.summary.status === 'loading';
  const last_row = Math.max(0, total - 1);
  const handing_over = !reading && tail !== null && !state.handed_over;
  const listed = usePagedRows(detail.summary.key, tab, handing_over ? last_row : state.first);
  const filtering = tab === 'timeline' && filterSet(state.filter);
  const kept = useFilteredRows(detail.summary.key, filtering ? state.filter : ALL_ROWS, state.first);
  const last_here = total === 0 || listed(last_row) !== undefined;
  const tail_list = tail !== null && tab !== 'transcript' && (reading || (handing_over && !last_here)) ? tab : null;
  useEffect(() => {
    if (handing_over && last_here) dispatch({ type: 'handed_over', last_row });
  }, [handing_over, last_here, last_row, dispatch]);
  if (filtering) return { total: kept.counts?.total ?? 0, rowAt: kept.rowAt, counts: kept.counts, tail_list };
  const rowAt = (index: number) => {
    const row = listed(index);
    return row === undefined ? undefined : { row, context: false };
  };
  return { total, rowAt, tail_list };
}

/** One row of the list shown: selected, matched, clicked to open its detail; a row the filter shows only as
 *  context is marked so. */
function useRowRenderer(detail: SessionDetail, state: SessionViewState, rowAt: ShownRows['rowAt'], matched: ReadonlySet<number>, dispatch: Dispatch<SessionViewAction>) {
  const { tab } = state;
  const current = state.selected[tab];
  return (index: number) => {
    const shown = rowAt(index);
    const row = shown?.row;
    const isSelected = index === current;
    const className = `row-inner${isSelected ? ' selected' : ''}${matched.has(index) ? ' match' : ''}${shown?.context === true ? ' context' : ''}`;
    const onClick = () => {
      dispatch({ type: 'select', list: tab, index, reveal: false });
      dispatch({ type: 'detail', open: true });
    };
    // A row still on its way is an option too, marked busy: a listbox of loading rows is still a listbox of options.
    if (row === undefined) return <div className={className} role="option" aria-selected={false} aria-busy="true" aria-label="loading"><span className="muted">…</span></div>;
    return (
      <div className={className} onClick={onClick} role="option" aria-selected={isSelected} data-testid={`${tab}-row`} data-match={matched.has(index) ? 'true' : undefined} data-context={shown?.context === true ? 'true' : undefined}>
        {tab === 'timeline' && <TimelineRowView row={row as Parameters<typeof TimelineRowView>[0]['row']} />}
        {tab === 'records' && <RecordLine row={row as RecordRow} afterDamage={detail.after_damage} />}
        {tab === 'transcript' && <TranscriptLine row={row as TranscriptRow} />}
      </div>
    );
  };
}

/** The search box, its count, and follow-tail. Enter goes to the next match (Shift+Enter the one before); an Enter
 *  pressed before the first match arrived is taken once it does. */
function SearchBar({ state, search, matches, box, dispatch }: { state: SessionViewState; search: SearchResult | undefined; matches: readonly number[]; box: React.RefObject<HTMLInputElement | null>; dispatch: Dispatch<SessionViewAction> }) {
  const goMatch = useCallback((delta: number) => {
    if (matches.length === 0) return;
    const match = nextMatch(state.match, delta, matches.length);
    dispatch({ type: 'match', match, index: matches[match]! });
  }, [matches, state.match, dispatch]);
  useEffect(() => {
    if (!state.enter_pending || matches.length === 0) return;
    dispatch({ type: 'enter_pending', pending: false });
    goMatch(1);
  }, [state.enter_pending, matches.length, goMatch, dispatch]);
  const onKey = (event: ReactKeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    if (matches.length === 0 && search?.complete !== true) dispatch({ type: 'enter_pending', pending: true });
    else goMatch(event.shiftKey ? -1 : 1);
  };
  return (
    <div className="search-bar">
      <input ref={box} type="search" placeholder="Search (/)" value={state.query} onChange={(event) => dispatch({ type: 'query', query: event.target.value })}
        onKeyDown={onKey} aria-label="Search in session" data-testid="search-input" />
      <span className="muted search-count" role="status" data-testid="search-count">{state.query.trim() === '' ? '' : searchCount(search, state.match)}</span>
      <label className="follow"><input type="checkbox" checked={state.follow} onChange={(event) => dispatch({ type: 'follow', on: event.target.checked })} data-testid="follow-tail" /> follow tail</label>
    </div>
  );
}

/** What a link made now names besides the session: the step or record selected, else the view shown. */
function linkPlace(state: SessionViewState, selected: unknown, shown_seq: number | null): LinkPlace {
  const { tab, pane } = state;
  if (pane === 'context') return state.context_step === null ? { tab: 'context', step: null, record: null } : { tab: null, step: state.context_step, record: null };
  if (pane === 'time') return { tab: 'time', step: null, record: null };
  if (tab === 'records') return shown_seq === null ? { tab: 'records', step: null, record: null } : { tab: null, step: null, record: shown_seq };
  const row = selected as TimelineRow | undefined;
  if (tab === 'timeline' && row !== undefined) {
    if (row.kind === 'step') return { tab: null, step: { episode: row.episode, step_id: row.step_id }, record: null };
    const seq = row.seqs[0];
    if (seq !== undefined) return { tab: null, step: null, record: seq };
  }
  return { tab: tab === 'timeline' ? null : tab, step: null, record: null };
}

function episodeOf(row: unknown): number | null {
  const episode = (row as { episode?: unknown } | undefined)?.episode;
  return typeof episode === 'number' ? episode : null;
}

/** "searching…" until every row was searched and nothing matched; never "no match" while it is running. */
function searchCount(result: SearchResult | undefined, match: number | null): string {
  // The query is part of the search's key: an answer here is this query's.
  const done = result?.complete === true;
  const found = result?.rows.length ?? 0;
  if (found === 0) return done ? 'no match' : 'searching…';
  const more = result!.truncated || !done ? '+' : '';
  return match === null ? `${found}${more} match${found === 1 && more === '' ? '' : 'es'} · Enter` : `${match + 1} of ${found}${more}`;
}

/** The tabs as the ARIA tabs pattern: one tab stop, the arrow keys move between tabs. Home and End stay the
 *  list's (first and last row), wherever the focus is. */
function Tabs({ detail, shown, onShow }: { detail: SessionDetail; shown: ShownTab; onShow: (tab: ShownTab) => void }) {
  const all: { name: ShownTab; label: string; count: number | null }[] = [
    ...TABS.map((entry) => ({ name: entry.list, label: entry.label, count: detail.rows[entry.list] })),
    { name: 'context', label: 'Context', count: null },
    { name: 'time', label: 'Time', count: null },
  ];
  const onKey = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    const at = all.findIndex((entry) => entry.name === shown);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    const next = all[(to + all.length) % all.length]!;
    onShow(next.name);
    event.currentTarget.querySelector<HTMLElement>(`#tab-${next.name}`)?.focus();
  };
  return (
    <div className="tab-list" role="tablist" aria-label="Session views" onKeyDown={onKey}>
      {all.map((entry) => (
        <button key={entry.name} type="button" role="tab" id={`tab-${entry.name}`} aria-selected={shown === entry.name} aria-controls={`panel-${entry.name}`}
          tabIndex={shown === entry.name ? 0 : -1} onClick={() => onShow(entry.name)} data-testid={`tab-${entry.name}`}>
          {entry.label}{entry.count !== null && <> <TabCount count={entry.count} reading={detail.summary.status === 'loading'} /></>}
        </button>
      ))}
    </div>
  );
}

/** A tab's row count; while the WAL is still read from its start it is the count so far (the timeline's is 0
 *  until the read ends, however many rows the tail shows), and says so. */
function TabCount({ count, reading }: { count: number; reading: boolean }) {
  if (!reading) return <span className="tab-count">{count.toLocaleString()}</span>;
  return <span className="tab-count" title="rows read so far: the WAL is still being read from its start" data-testid="tab-count-so-far">{count === 0 ? '…' : `${count.toLocaleString()}…`}</span>;
}

/** The check of the transcript, up front: is it what the next request would carry, and is that valid. */
function TranscriptCheck({ valid }: { valid: boolean }) {
  return (
    <p className={`banner ${valid ? 'banner-info' : 'banner-error'} transcript-check`} data-testid="transcript-check" data-valid={valid}>
      The conversation as the next request would carry it: {valid ? 'provider-valid (every tool call is answered by one result).' : 'NOT provider-valid — the next request could not be sent as it stands.'}
    </p>
  );
}

/** The session-level truth a list scan needs beyond the status: calls of unknown outcome (each to be checked and
 *  recorded), and how many tool results were errors. */
function RunBanner({ detail }: { detail: SessionDetail }) {
  const run = detail.summary.run;
  if (run === null) return null;
  return (
    <>
      <UnconfirmedCalls detail={detail} />
      {run.error_results > 0 && <p className="muted banner-line" data-testid="error-results">{run.error_results} tool result(s) recorded as errors (is_error).</p>}
    </>
  );
}

function RecordLine({ row, afterDamage }: { row: RecordRow; afterDamage: AfterDamageView | null }) {
  return (
    <div className={`record-line mono${afterDamage === null ? '' : ' with-damage'}${row.unverified === true ? ' unverified' : ''}${row.index === afterDamage?.first_index ? ' damage-first' : ''}`} data-unverified={row.unverified === true}>
      <span>{row.offset}</span><span>seq {row.seq}</span><span>v{row.ver}</span><span>f{row.fence}</span><strong>{row.type}</strong><span className="muted">{row.features.join(',')}</span><span className="muted">{row.digest_algorithm}</span>
      <UnverifiedMark row={row} view={afterDamage} />
    </div>
  );
}

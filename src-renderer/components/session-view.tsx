// One session: integrity banner, tabs (timeline, records, transcript) as windowed lists, a detail pane,
// search (matches painted, search-highlight.ts), follow-tail, and the recovery panel with the queue beside
// them. Keyboard: j/k move, Home/End go to the first/last row (a million rows are too many to walk), enter
// opens, escape closes, / searches, ←/→ on the tabs. The address names the tab and record (location.ts).
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { AfterDamageView, RecordRow, RowList, SearchResult, SessionDetail, SessionTail, TranscriptRow } from '../../src-shared/ipc.js';
import { reportHtml } from '../../src-shared/report-html.js';
import { api } from '../api/api.js';
import { ScaledList } from '../lists/scaled-list.js';
import { AfterDamageNote, UnverifiedMark } from './after-damage.js';
import { ContextView } from './context-view.js';
import { usePagedRows } from '../lists/paged-rows.js';
import { readLink, writeLink } from '../location.js';
import { keys, useRecord, useTail } from '../queries.js';
import { StatusChip, TornTailChip } from './chips.js';
import { isRefusedStatus } from '../../src-shared/status.js';
import { RecordDetailView, TimelineDetail } from './details.js';
import { IntegrityBanner } from './integrity-banner.js';
import { ProvisionalTail } from './provisional-tail.js';
import { RecoveryHistory, RecoveryPanel } from './recovery-panel.js';
import { HistoryPanel } from './history-panel.js';
import { useSearchHighlight } from './search-highlight.js';
import { TranscriptLine, TranscriptMessage } from './transcript.js';
import { TimelineRowView } from './timeline-row.js';
import { UnconfirmedCalls } from './unconfirmed-calls.js';
import { tokenText, Waterfall } from './waterfall.js';

/** How often a search still in progress is asked for more matches. */
const SEARCH_POLL_MS = 150;
const ROW_PX: Record<RowList, number> = { timeline: 30, records: 24, transcript: 30 };
const TABS: { list: RowList; label: string }[] = [
  { list: 'timeline', label: 'Timeline' },
  { list: 'records', label: 'Records' },
  { list: 'transcript', label: 'Transcript' },
];

export function SessionView({ detail }: { detail: SessionDetail }) {
  const key = detail.summary.key;
  // A deep link (location.ts) opens this session at its tab and record; only the first render reads it.
  const [link] = useState(() => { const read = readLink(); return read.session === key ? read : null; });
  const [tab, setTab] = useState<RowList>(link?.record != null ? 'records' : link?.tab === 'context' || link?.tab == null ? 'timeline' : link.tab);
  const [context_open, setContextOpen] = useState(link?.tab === 'context' && link.record === null);
  const [context_step, setContextStep] = useState<{ episode: number; step_id: number } | null>(null);
  const [selected, setSelected] = useState<Record<RowList, number | null>>({ timeline: null, records: null, transcript: null });
  const [open, setOpen] = useState(false);
  const [reveal, setReveal] = useState<{ index: number } | null>(null);
  const [first, setFirst] = useState(0);
  // A session opened while its WAL is read from the start shows its tail first (ProvisionalTail), at the end:
  // the real list then follows its end too, so the rows in view stay the same when it replaces the tail.
  const [follow, setFollow] = useState(detail.summary.status === 'loading' && link?.record == null);
  const [query, setQuery] = useState('');
  /** The match shown; null until Enter is pressed (the first Enter selects the first match). */
  const [match, setMatch] = useState<number | null>(null);
  /** Enter pressed before the first match arrived: the first match is selected when it does. */
  const [enter_pending, setEnterPending] = useState(false);
  const [locating, setLocating] = useState(link?.record != null);
  const search_box = useRef<HTMLInputElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const total = detail.rows[tab];
  const reading = detail.summary.status === 'loading';
  const tail = useTail(key, reading).data ?? null;
  // Once the read ends the tail stays until the real list's last page is here (asked for around the end, where
  // the list will show it), so no empty rows come between the two.
  const [handed_over, setHandedOver] = useState(false);
  const last_row = Math.max(0, total - 1);
  const handing_over = !reading && tail !== null && !handed_over;
  const rowAt = usePagedRows(key, tab, handing_over ? last_row : first);
  const last_here = total === 0 || rowAt(last_row) !== undefined;
  const tail_list = tail !== null && tab !== 'transcript' && (reading || (handing_over && !last_here)) ? tab : null;
  useEffect(() => {
    if (!handing_over || !last_here) return;
    setFirst(last_row);
    setHandedOver(true);
  }, [handing_over, last_here, last_row]);
  const current = selected[tab];

  const select = useCallback((list: RowList, index: number | null, show = true) => {
    setSelected((previous) => ({ ...previous, [list]: index }));
    if (index !== null && show) setReveal({ index });
  }, []);

  const search = useQuery({
    queryKey: ['search', key, tab, query, detail.summary.last_seq],
    queryFn: () => api.search(key, tab, query),
    enabled: query.trim().length > 0,
    // A search over payloads on disk comes in steps (records, timeline and transcript alike): asked again until
    // every row was searched.
    refetchInterval: (current) => (current.state.data?.complete === false ? SEARCH_POLL_MS : false),
  });
  const matches = search.data?.rows ?? [];
  const matched = new Set(matches);
  useSearchHighlight(body, context_open ? '' : query);

  const jumpToRecord = useCallback(async (seq: number) => {
    const index = await api.locateSeq(key, seq);
    if (index === null) return;
    setTab('records');
    setContextOpen(false);
    setFollow(false);
    select('records', index);
    setOpen(true);
  }, [key, select]);

  useEffect(() => {
    if (link?.record == null) return;
    void jumpToRecord(link.record).finally(() => setLocating(false));
  }, [link, jumpToRecord]);

  // The address says what is shown: session, tab, and the record open in the Records tab.
  const shown_seq = tab === 'records' && current !== null ? (rowAt(current) as RecordRow | undefined)?.seq : null;
  useEffect(() => {
    if (locating || shown_seq === undefined) return;
    writeLink({ session: key, tab: context_open ? 'context' : tab, record: context_open ? null : (shown_seq ?? null) });
  }, [key, tab, context_open, shown_seq, locating]);

  const jumpToTimeline = useCallback((row: number) => {
    setTab('timeline');
    select('timeline', row);
    setOpen(true);
  }, [select]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target !== null && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) {
        if (event.key === 'Escape') target.blur();
        return;
      }
      if (event.key === 'j' || event.key === 'k') {
        const step = event.key === 'j' ? 1 : -1;
        const next = Math.min(total - 1, Math.max(0, (current ?? (step > 0 ? -1 : total)) + step));
        if (total > 0) select(tab, next);
        setFollow(false);
      } else if (event.key === 'Home' || event.key === 'End') {
        if (total > 0) select(tab, event.key === 'Home' ? 0 : total - 1);
        setFollow(false);
      } else if (event.key === 'Enter') {
        if (current !== null) setOpen(true);
      } else if (event.key === 'Escape') {
        setOpen(false);
      } else if (event.key === '/') {
        event.preventDefault();
        search_box.current?.focus();
      } else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [tab, total, current, select]);

  const goMatch = (delta: number) => {
    if (matches.length === 0) return;
    const next = match === null ? (delta > 0 ? 0 : matches.length - 1) : (match + delta + matches.length) % matches.length;
    setMatch(next);
    select(tab, matches[next]!);
    setFollow(false);
    setOpen(true);
  };

  // eslint-disable-next-line react-hooks/exhaustive-deps -- after every render on purpose: an Enter pressed before the matches came is taken once they do, once (it clears its own flag)
  useEffect(() => {
    if (!enter_pending || matches.length === 0) return;
    setEnterPending(false);
    goMatch(1);
  });

  const onSearchKey = (event: ReactKeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    if (matches.length === 0 && search.data?.complete !== true) setEnterPending(true);
    else goMatch(event.shiftKey ? -1 : 1);
  };

  const showTab = (list: RowList | 'context') => {
    if (list === 'context') setContextOpen(true);
    else {
      setTab(list);
      setMatch(null);
      setContextOpen(false);
    }
  };

  const renderRow = (index: number) => {
    const row = rowAt(index);
    const isSelected = index === current;
    const className = `row-inner${isSelected ? ' selected' : ''}${matched.has(index) ? ' match' : ''}`;
    const onClick = () => { select(tab, index, false); setOpen(true); };
    if (row === undefined) return <div className={className}><span className="muted">…</span></div>;
    return (
      <div className={className} onClick={onClick} role="option" aria-selected={isSelected} data-testid={`${tab}-row`} data-match={matched.has(index) ? 'true' : undefined}>
        {tab === 'timeline' && <TimelineRowView row={row as Parameters<typeof TimelineRowView>[0]['row']} />}
        {tab === 'records' && <RecordLine row={row as RecordRow} afterDamage={detail.after_damage} />}
        {tab === 'transcript' && <TranscriptLine row={row as TranscriptRow} />}
      </div>
    );
  };

  const shown_tab: RowList | 'context' = context_open ? 'context' : tab;
  return (
    <div className="session-view" data-testid="session-view" data-session={key}>
      <header className="session-head">
        <div className="head-line">
          <h2 className="mono" title={key}>{detail.summary.host === undefined ? key : <><span className="badge" data-testid="session-host">{detail.summary.host}</span> {detail.summary.session_id}</>}</h2>
          <StatusChip value={detail.summary.status} title={detail.summary.status_detail} finishReason={detail.summary.finish_reason} />
          {detail.summary.torn_tail !== null && <TornTailChip tail={detail.summary.torn_tail} />}
          {detail.read_only && <span className="badge" data-testid="read-only">read-only export</span>}
          <ExportReport sessionKey={key} />
        </div>
        {/* A refusal's detail is the banner's: said once. */}
        {!isRefusedStatus(detail.summary.status) && (
          <div className="head-line">
            <span className="muted head-text" data-testid="status-detail" title={detail.summary.status_detail}>{detail.summary.status_detail}</span>
          </div>
        )}
        <div className="head-line">
          <span className="muted mono head-meta">wal_id {detail.wal_id ?? '—'} · last seq <span data-testid="last-seq">{detail.summary.last_seq}</span>{reading && <TailEnd tail={tail} />}</span>
          <span className="muted head-meta" data-testid="session-tokens">tokens: {tokenText(detail.tokens)}</span>
        </div>
      </header>
      <IntegrityBanner detail={detail} />
      <RunBanner detail={detail} />
      <div className="session-body" ref={body}>
        <div className="session-main">
          <div className="tabs">
            <Tabs detail={detail} shown={shown_tab} onShow={showTab} />
            <div className="search-bar">
              <input ref={search_box} type="search" placeholder="Search (/)" value={query} onChange={(event) => { setQuery(event.target.value); setMatch(null); setEnterPending(false); }}
                onKeyDown={onSearchKey} aria-label="Search in session" data-testid="search-input" />
              <span className="muted search-count" role="status" data-testid="search-count">{query.trim() === '' ? '' : searchCount(search.data, match)}</span>
              <label className="follow"><input type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} data-testid="follow-tail" /> follow tail</label>
            </div>
          </div>
          {tab === 'transcript' && !context_open && <TranscriptCheck valid={detail.transcript_valid} />}
          {tab === 'records' && !context_open && <AfterDamageNote view={detail.after_damage} />}
          <div className="tab-panel" role="tabpanel" id={`panel-${shown_tab}`} aria-labelledby={`tab-${shown_tab}`}>
            {context_open ? <ContextView key={JSON.stringify(context_step)} sessionKey={key} initial={context_step} /> : tail_list !== null && tail !== null ? <ProvisionalTail tail={tail} list={tail_list} /> : <ScaledList
              key={tab}
              total={total}
              row_height_px={ROW_PX[tab]}
              renderRow={renderRow}
              reveal={reveal}
              follow={follow}
              onScrolledAway={() => setFollow(false)}
              onFirstRow={setFirst}
              label={tab}
              testid={`list-${tab}`}
            />}
          </div>
        </div>
        <aside className="session-side" aria-label="Details and recovery">
          {open && current !== null && tab === 'timeline' && rowAt(current) !== undefined && (
            <TimelineDetail row={rowAt(current) as Parameters<typeof TimelineDetail>[0]['row']} onJump={(seq) => void jumpToRecord(seq)}
              onContext={(episode, step_id) => { setContextStep({ episode, step_id }); setContextOpen(true); }} />
          )}
          {open && current !== null && tab === 'records' && <RecordPane sessionKey={key} index={current} onBack={jumpToTimeline} />}
          {open && current !== null && tab === 'transcript' && rowAt(current) !== undefined && <TranscriptMessage row={rowAt(current) as TranscriptRow} />}
          <EpisodeWaterfall sessionKey={key} detail={detail} episode={tab === 'timeline' && current !== null ? episodeOf(rowAt(current)) : null} />
          <RecoveryPanel detail={detail} />
          <HistoryPanel sessionKey={key} lastSeq={detail.summary.last_seq} reading={reading} readOnly={detail.read_only} retire={detail.retire} />
          {detail.read_only && <p className="muted" data-testid="no-actions">This export is read-only: no recovery action is offered.</p>}
          <RecoveryHistory entries={detail.summary.recoveries} />
          <QueuePanel detail={detail} />
        </aside>
      </div>
    </div>
  );
}

/** While the WAL is read from its start, its last seq so far is the head's: the end found from the end is said
 *  beside it, as unverified. */
function TailEnd({ tail }: { tail: SessionTail | null }) {
  const last = tail?.records.at(-1);
  return last === undefined ? null : <span data-testid="tail-last-seq"> (read so far) · at the end: seq {last.seq}, not yet verified</span>;
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
function Tabs({ detail, shown, onShow }: { detail: SessionDetail; shown: RowList | 'context'; onShow: (tab: RowList | 'context') => void }) {
  const all: { name: RowList | 'context'; label: string; count: number | null }[] = [...TABS.map((entry) => ({ name: entry.list, label: entry.label, count: detail.rows[entry.list] })), { name: 'context', label: 'Context', count: null }];
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

function episodeOf(row: unknown): number | null {
  const episode = (row as { episode?: unknown } | undefined)?.episode;
  return typeof episode === 'number' ? episode : null;
}

/** The waterfall of the selected row's episode, else of the last one. The detail carries the last one's timing
 *  without its bars; the bars are asked for, again only when the detail's digest of them changes. */
function EpisodeWaterfall({ sessionKey, detail, episode }: { sessionKey: string; detail: SessionDetail; episode: number | null }) {
  const last = detail.timing.at(-1);
  const shown = episode ?? last?.episode ?? null;
  const asked = useQuery({
    queryKey: last !== undefined && shown === last.episode ? keys.lastTiming(sessionKey, last.episode, last.spans_digest) : keys.timing(sessionKey, shown ?? 0),
    queryFn: () => api.getTiming(sessionKey, shown!),
    enabled: shown !== null,
    placeholderData: (previous) => previous,
    // A live episode's earlier waterfalls are not kept: each is up to ~200 KB.
    gcTime: 0,
  });
  return asked.data === undefined ? null : <Waterfall timing={asked.data} />;
}

/** Saves the support report as one self-contained HTML file, through the browser's download (never beside
 *  the WAL: the app writes nothing into a workspace). */
function ExportReport({ sessionKey }: { sessionKey: string }) {
  const [state, setState] = useState<'idle' | 'busy' | string>('idle');
  const save = async () => {
    setState('busy');
    try {
      const report = await api.getReport(sessionKey);
      const url = URL.createObjectURL(new Blob([reportHtml(report)], { type: 'text/html' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `${sessionKey.replace(/[^A-Za-z0-9._-]/g, '_')}-report.html`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState('idle');
    } catch (error) {
      setState(`report failed: ${(error as Error).message}`);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void save()} disabled={state === 'busy'} data-testid="export-report">Export report</button>
      {state !== 'idle' && state !== 'busy' && <span className="error">{state}</span>}
    </>
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

function RecordPane({ sessionKey, index, onBack }: { sessionKey: string; index: number; onBack: (row: number) => void }) {
  const record = useRecord(sessionKey, index);
  if (record.data === undefined) return <div className="detail muted">{record.error?.message ?? 'reading…'}</div>;
  return <RecordDetailView record={record.data} onBack={onBack} />;
}

function QueuePanel({ detail }: { detail: SessionDetail }) {
  if (detail.queue.length === 0) return null;
  return (
    <section className="panel" aria-label="Send queue">
      <h3>Send queue</h3>
      <ul>{detail.queue.map((entry) => <li key={entry.submission_id}><span className="mono">{entry.submission_id}</span> {entry.state}{entry.delivery !== null ? ` · ${entry.delivery}` : ''}{entry.title !== null ? ` · ${entry.title}` : ''}</li>)}</ul>
    </section>
  );
}

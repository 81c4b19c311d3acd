// One session: integrity banner, tabs (timeline, records, transcript) as windowed lists, a detail pane,
// search, follow-tail, and the recovery panel with the queue beside them. Keyboard: j/k move, Home/End go to
// the first/last row (a million rows are too many to walk), enter opens, escape closes, / searches.
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RecordRow, RowList, SessionDetail, TranscriptRow } from '../../src-shared/ipc.js';
import { reportHtml } from '../../src-shared/report-html.js';
import { api } from '../api/api.js';
import { ScaledList } from '../lists/scaled-list.js';
import { ContextView } from './context-view.js';
import { usePagedRows } from '../lists/paged-rows.js';
import { useRecord } from '../queries.js';
import { StatusChip } from './chips.js';
import { RecordDetailView, TimelineDetail } from './details.js';
import { inline } from './format.js';
import { IntegrityBanner } from './integrity-banner.js';
import { RecoveryHistory, RecoveryPanel } from './recovery-panel.js';
import { HistoryPanel } from './history-panel.js';
import { TimelineRowView } from './timeline-row.js';
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
  const [tab, setTab] = useState<RowList>('timeline');
  const [context_open, setContextOpen] = useState(false);
  const [context_step, setContextStep] = useState<{ episode: number; step_id: number } | null>(null);
  const [selected, setSelected] = useState<Record<RowList, number | null>>({ timeline: null, records: null, transcript: null });
  const [open, setOpen] = useState(false);
  const [reveal, setReveal] = useState<{ index: number } | null>(null);
  const [first, setFirst] = useState(0);
  const [follow, setFollow] = useState(false);
  const [query, setQuery] = useState('');
  const [match, setMatch] = useState(0);
  const search_box = useRef<HTMLInputElement>(null);
  const total = detail.rows[tab];
  const rowAt = usePagedRows(key, tab, first);
  const current = selected[tab];

  const select = useCallback((list: RowList, index: number | null, show = true) => {
    setSelected((previous) => ({ ...previous, [list]: index }));
    if (index !== null && show) setReveal({ index });
  }, []);

  const search = useQuery({
    queryKey: ['search', key, tab, query, detail.summary.last_seq],
    queryFn: () => api.search(key, tab, query),
    enabled: query.trim().length > 0,
    // A records search over payloads on disk comes in steps: asked again until every record was searched.
    refetchInterval: (current) => (current.state.data?.complete === false ? SEARCH_POLL_MS : false),
  });
  const matches = search.data?.rows ?? [];

  const jumpToRecord = useCallback(async (seq: number) => {
    const index = await api.locateSeq(key, seq);
    if (index === null) return;
    setTab('records');
    setFollow(false);
    select('records', index);
    setOpen(true);
  }, [key, select]);

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
    const next = (match + delta + matches.length) % matches.length;
    setMatch(next);
    select(tab, matches[next]!);
  };

  const renderRow = (index: number) => {
    const row = rowAt(index);
    const isSelected = index === current;
    const className = `row-inner${isSelected ? ' selected' : ''}`;
    const onClick = () => { select(tab, index, false); setOpen(true); };
    if (row === undefined) return <div className={className}><span className="muted">…</span></div>;
    return (
      <div className={className} onClick={onClick} role="listitem" aria-selected={isSelected} data-testid={`${tab}-row`}>
        {tab === 'timeline' && <TimelineRowView row={row as Parameters<typeof TimelineRowView>[0]['row']} />}
        {tab === 'records' && <RecordLine row={row as RecordRow} />}
        {tab === 'transcript' && <TranscriptLine row={row as TranscriptRow} />}
      </div>
    );
  };

  return (
    <div className="session-view" data-testid="session-view" data-session={key}>
      <header className="session-head">
        <h2 className="mono">{detail.summary.host === undefined ? key : <><span className="badge" data-testid="session-host">{detail.summary.host}</span> {detail.summary.session_id}</>}</h2>
        <StatusChip value={detail.summary.status} title={detail.summary.status_detail} />
        <span className="muted" data-testid="status-detail">{detail.summary.status_detail}</span>
        {detail.read_only && <span className="badge" data-testid="read-only">read-only export</span>}
        <span className="muted mono">wal_id {detail.wal_id ?? '—'} · last seq <span data-testid="last-seq">{detail.summary.last_seq}</span></span>
        <span className="muted" data-testid="session-tokens">tokens: {tokenText(sessionTokens(detail))}</span>
        <ExportReport sessionKey={key} />
      </header>
      <IntegrityBanner integrity={detail.integrity} />
      <RunBanner detail={detail} />
      <div className="session-body">
        <div className="session-main">
          <div className="tabs" role="tablist">
            {TABS.map((entry) => (
              <button key={entry.list} type="button" role="tab" aria-selected={!context_open && tab === entry.list} onClick={() => { setTab(entry.list); setMatch(0); setContextOpen(false); }} data-testid={`tab-${entry.list}`}>
                {entry.label} <span className="muted">{detail.rows[entry.list].toLocaleString()}</span>
              </button>
            ))}
            <button type="button" role="tab" aria-selected={context_open} onClick={() => setContextOpen(true)} data-testid="tab-context">Context</button>
            <input ref={search_box} type="search" placeholder="Search (/)" value={query} onChange={(event) => { setQuery(event.target.value); setMatch(0); }}
              onKeyDown={(event) => { if (event.key === 'Enter') goMatch(event.shiftKey ? -1 : 1); }} aria-label="Search in session" data-testid="search-input" />
            {query.trim() !== '' && <span className="muted" data-testid="search-count">{matches.length === 0 ? (search.data?.complete === false ? 'searching…' : 'no match') : `${match + 1} of ${matches.length}${search.data?.truncated || search.data?.complete === false ? '+' : ''}`}</span>}
            <label className="follow"><input type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} data-testid="follow-tail" /> follow tail</label>
          </div>
          {context_open ? <ContextView key={JSON.stringify(context_step)} sessionKey={key} initial={context_step} /> : <ScaledList
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
          {tab === 'transcript' && <p className="muted">The conversation as the next request would carry it{detail.transcript_valid ? '' : ' — NOT provider-valid'}.</p>}
        </div>
        <aside className="session-side">
          {open && current !== null && tab === 'timeline' && rowAt(current) !== undefined && (
            <TimelineDetail row={rowAt(current) as Parameters<typeof TimelineDetail>[0]['row']} onJump={(seq) => void jumpToRecord(seq)}
              onContext={(episode, step_id) => { setContextStep({ episode, step_id }); setContextOpen(true); }} />
          )}
          {open && current !== null && tab === 'records' && <RecordPane sessionKey={key} index={current} onBack={jumpToTimeline} />}
          {open && current !== null && tab === 'transcript' && rowAt(current) !== undefined && <TranscriptPane row={rowAt(current) as TranscriptRow} />}
          <EpisodeWaterfall detail={detail} episode={tab === 'timeline' && current !== null ? episodeOf(rowAt(current)) : null} />
          <RecoveryPanel detail={detail} />
          <HistoryPanel sessionKey={key} lastSeq={detail.summary.last_seq} readOnly={detail.read_only} />
          {detail.read_only && <p className="muted" data-testid="no-actions">This export is read-only: no recovery action is offered.</p>}
          <RecoveryHistory entries={detail.summary.recoveries} />
          <QueuePanel detail={detail} />
        </aside>
      </div>
    </div>
  );
}

function sessionTokens(detail: SessionDetail): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const timing of detail.timing) for (const [key, value] of Object.entries(timing.tokens)) sums[key] = (sums[key] ?? 0) + value;
  return sums;
}

function episodeOf(row: unknown): number | null {
  const episode = (row as { episode?: unknown } | undefined)?.episode;
  return typeof episode === 'number' ? episode : null;
}

/** The waterfall of the selected row's episode, else of the last one. */
function EpisodeWaterfall({ detail, episode }: { detail: SessionDetail; episode: number | null }) {
  const timing = detail.timing.find((entry) => entry.episode === episode) ?? detail.timing.at(-1);
  return timing === undefined ? null : <Waterfall timing={timing} />;
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

/** The session-level truth a list scan needs: unconfirmed side effects, a cut WAL's last durable state. */
function RunBanner({ detail }: { detail: SessionDetail }) {
  const run = detail.summary.run;
  if (run === null) return null;
  return (
    <>
      {run.unconfirmed.length > 0 && (
        <div className="banner banner-warn" role="status" data-testid="unconfirmed">
          <strong>Unconfirmed side effect{run.unconfirmed.length === 1 ? '' : 's'}:</strong>
          <ul>
            {run.unconfirmed.map((call) => (
              <li key={`${call.episode}/${call.tool_call_id}`} data-testid="unconfirmed-call" data-call={call.tool_call_id}>
                <span className="mono">{call.tool_call_id}</span> (episode {call.episode}, {call.closed_out_seq === null ? 'no result recorded' : `recorded unknown at seq ${call.closed_out_seq}`}): {call.may_have}
              </li>
            ))}
          </ul>
        </div>
      )}
      {run.status === 'cut' && <div className="banner banner-warn" data-testid="cut-banner">{run.detail}</div>}
      {run.error_results > 0 && <p className="muted banner-line" data-testid="error-results">{run.error_results} tool result(s) recorded as errors (is_error).</p>}
    </>
  );
}

function RecordLine({ row }: { row: RecordRow }) {
  return (
    <div className="record-line mono">
      <span>{row.offset}</span><span>seq {row.seq}</span><span>v{row.ver}</span><span>f{row.fence}</span><strong>{row.type}</strong><span className="muted">{row.features.join(',')}</span><span className="muted">{row.digest_algorithm}</span>
    </div>
  );
}

function TranscriptLine({ row }: { row: TranscriptRow }) {
  return <div className="tl"><span className="role">{row.role}</span> <span className="text">{inline(row.content, 300)}</span></div>;
}

function TranscriptPane({ row }: { row: TranscriptRow }) {
  return <div className="detail"><h4>{row.role} message {row.index}</h4><pre className="text-block">{JSON.stringify(row.content, null, 2)}</pre></div>;
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

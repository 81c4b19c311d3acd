// The sessions of the workspace: status, last activity, episodes, records, size; filter (by status, or the
// attention queue), sort, search by id. It updates live from the service's events (react-query data replaced in
// place). One tab stop; the arrow keys move the selection. Two sessions ticked are compared ("Compare").
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { SessionSummary } from '../../src-shared/ipc.js';
import { isRefusedStatus, LISTED_STATUSES, STATUS_LABEL, type ListedStatus } from '../../src-shared/status.js';
import { errorResultsWords } from '../../src-shared/words.js';
import { StatusChip, TornTailChip } from './chips.js';
import { formatAgo, formatBytes } from './format.js';
import { CompareTicked, useTicks } from './compare-ticks.js';

type SortKey = 'activity' | 'id' | 'records' | 'size' | 'status';
type StatusFilter = ListedStatus | 'all' | 'attention';
const ROW_PX = 52;
type Progress = Map<string, { done_bytes: number; total_bytes: number }>;

const ORDER: Record<SortKey, (a: SessionSummary, b: SessionSummary) => number> = {
  activity: (a, b) => (b.last_activity_ms ?? 0) - (a.last_activity_ms ?? 0),
  id: (a, b) => a.key.localeCompare(b.key),
  records: (a, b) => b.records - a.records,
  size: (a, b) => b.size_bytes - a.size_bytes,
  status: (a, b) => LISTED_STATUSES.indexOf(a.status) - LISTED_STATUSES.indexOf(b.status) || a.key.localeCompare(b.key),
};

export function SessionList(props: { sessions: SessionSummary[]; selected: string | null; onSelect: (key: string) => void; progress: Progress }) {
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [sort, setSort] = useState<SortKey>('activity');
  const scroller = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => {
    const needle = query.trim().toLowerCase();
    const kept = (session: SessionSummary) => status === 'all' || (status === 'attention' ? session.attention !== null : session.status === status);
    return props.sessions.filter((session) => kept(session) && session.key.toLowerCase().includes(needle)).sort(ORDER[sort]);
  }, [props.sessions, query, status, sort]);
  const virtualizer = useVirtualizer({ count: shown.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 8 });
  const { stop_key, onKey } = useListKeys(shown, props.selected, props.onSelect, virtualizer, scroller);
  const ticks = useTicks(props.sessions.map((session) => session.key));
  const now_ms = Date.now();
  return (
    <nav className="session-list" aria-label="Sessions">
      <div className="list-tools">
        <input type="search" placeholder="Search session id" value={query} onChange={(event) => setQuery(event.target.value)} aria-label="Search session id" data-testid="session-search" />
        <select value={status} onChange={(event) => setStatus(event.target.value as StatusFilter)} aria-label="Filter by status" data-testid="status-filter">
          <option value="all">all statuses</option>
          <option value="attention">needs attention ({props.sessions.filter((session) => session.attention !== null).length})</option>
          {LISTED_STATUSES.map((value) => <option key={value} value={value}>{STATUS_LABEL[value]}</option>)}
        </select>
        <select value={sort} onChange={(event) => setSort(event.target.value as SortKey)} aria-label="Sort by">
          <option value="activity">last activity</option>
          <option value="id">id</option>
          <option value="status">status</option>
          <option value="records">records</option>
          <option value="size">size</option>
        </select>
      </div>
      <div className="session-scroll" ref={scroller} onKeyDown={onKey}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const session = shown[item.index]!;
            return (
              <div key={session.key} className="session-slot" style={{ top: item.start, height: ROW_PX }}>
                <SessionRow session={session} selected={session.key === props.selected} stop={session.key === stop_key} progress={props.progress.get(session.key)} now_ms={now_ms} onSelect={props.onSelect} />
                {ticks.box(session.key)}
              </div>
            );
          })}
        </div>
      </div>
      <CompareTicked ticks={ticks} />
      <div className="muted list-count" data-testid="list-count">{shown.length} of {props.sessions.length} {countNoun(props.sessions)}</div>
    </nav>
  );
}

/** The list as one tab stop (the selected row, else the first); the arrow keys, Home and End move in it. */
function useListKeys(shown: readonly SessionSummary[], selected: string | null, onSelect: (key: string) => void, virtualizer: Virtualizer<HTMLDivElement, Element>, scroller: React.RefObject<HTMLDivElement | null>) {
  const [focus_key, setFocusKey] = useState<string | null>(null);
  const stop_key = shown.some((session) => session.key === selected) ? selected : (shown[0]?.key ?? null);
  useEffect(() => {
    if (focus_key === null) return;
    scroller.current?.querySelector<HTMLElement>(`[data-session="${CSS.escape(focus_key)}"]`)?.focus();
  }, [focus_key, selected, scroller]);
  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const at = shown.findIndex((session) => session.key === (event.target as HTMLElement).dataset['session']);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: shown.length - 1 }[event.key];
    if (at === -1 || to === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    const next = shown[Math.min(shown.length - 1, Math.max(0, to))]!;
    virtualizer.scrollToIndex(shown.indexOf(next));
    onSelect(next.key);
    setFocusKey(next.key);
  };
  return { stop_key, onKey };
}

function SessionRow({ session, selected, stop, progress, now_ms, onSelect }: {
  session: SessionSummary;
  selected: boolean;
  stop: boolean;
  progress: { done_bytes: number; total_bytes: number } | undefined;
  now_ms: number;
  onSelect: (key: string) => void;
}) {
  return (
    <button
      type="button"
      className={`session-row${selected ? ' selected' : ''}`}
      onClick={() => onSelect(session.key)}
      data-testid="session-row"
      data-session={session.key}
      data-status={session.status}
      aria-current={selected}
      tabIndex={stop ? 0 : -1}
    >
      <span className="session-id" title={session.key}>{session.key}</span>
      <span className="session-chips">
        {session.torn_tail !== null && <TornTailChip tail={session.torn_tail} />}
        <StatusChip value={session.status} title={session.status_detail} finishReason={session.finish_reason} />
      </span>
      {/* While its WAL is read the counts say little: the line says how far the read has got. */}
      {progress !== undefined ? (
        <span className="session-meta muted session-progress" data-testid="list-progress"><progress max={progress.total_bytes} value={progress.done_bytes} aria-label="Reading" /> read {formatBytes(progress.done_bytes)} of {formatBytes(progress.total_bytes)}</span>
      ) : (
        // The counts give way to what warns: a narrow list cuts the counts, never the errors or unconfirmed calls.
        <span className="session-meta session-facts muted">
          <span className="facts">{formatAgo(session.last_activity_ms, now_ms)} · {session.episodes} ep · {session.records.toLocaleString()} rec · {formatBytes(session.size_bytes)}</span>
          {(session.run?.error_results ?? 0) > 0 && <span className="error" data-testid="list-errors" title="tool results recorded as errors (is_error): what the tools said, not damage to the WAL"> · {errorResultsWords(session.run!.error_results)}</span>}
          {unchecked(session) > 0 && <span className="warn-text" data-testid="list-unconfirmed"> · {unchecked(session)} unconfirmed</span>}
          {(isRefusedStatus(session.status) || session.status === 'failed') && <span className="error" data-testid="list-cause"> · {session.status_detail}</span>}
        </span>
      )}
    </button>
  );
}

/** "sessions", or "sessions · 1 is not a WAL": a file that is not a WAL is listed, but is no session. */
function countNoun(sessions: readonly SessionSummary[]): string {
  const not_wals = sessions.filter((session) => session.status === 'not_a_wal').length;
  return not_wals === 0 ? 'sessions' : `sessions · ${not_wals === 1 ? '1 file is' : `${not_wals} files are`} not a WAL`;
}

/** The last run's calls of unknown outcome nobody has acknowledged yet. */
function unchecked(session: SessionSummary): number {
  return session.run?.unconfirmed.filter((call) => call.acknowledged === null).length ?? 0;
}

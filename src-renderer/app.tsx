// The window: workspace header, the session list, the selected session (named by the address's fragment,
// location.ts), and the keyboard help (`?`).
import { useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { openDropped, queries, useServiceEvents } from './queries.js';
import { SessionList } from './components/session-list.js';
import { SessionView } from './components/session-view.js';
import { ErrorBoundary } from './components/error-boundary.js';
import { WorkspaceOverview } from './components/workspace-overview.js';
import { FleetList, FleetOverview } from './components/fleet-list.js';
import type { HostView, SessionDetail, Workspace } from '../src-shared/ipc.js';
import { KeyboardHelp } from './components/keyboard-help.js';
import { AlertsButton } from './components/alerts-panel.js';
import { readCompareLink, readLink, writeLink, type CompareLink } from './location.js';
import { CompareView } from './components/compare-view.js';
import { ALL_ROWS } from '../src-shared/timeline-filter.js';

export function App() {
  const client = useQueryClient();
  const workspace = useQuery(queries.workspace());
  const is_fleet = workspace.data?.kind === 'fleet';
  const sessions = useQuery(queries.sessions(workspace.data !== undefined && !is_fleet));
  const [hosts, setHosts] = useState<HostView[]>([]);
  const progress = useServiceEvents();
  const [comparing, setComparing] = useComparison();
  const [selected, selectSession, visit] = useSelectedSession();
  // Selecting a session leaves a comparison (its address is the session's then).
  const select = (key: string | null) => {
    setComparing(null);
    selectSession(key);
  };
  const summaries = new Map((sessions.data ?? []).map((session) => [session.key, session]));
  const [help, setHelp] = useHelpKey();
  const detail = useQuery(queries.session(client, selected));
  const [dropError, setDropError] = useState<string | null>(null);
  return (
    <div
      className="app"
      onDragOver={(event) => { if (openDropped !== null) event.preventDefault(); }}
      onDrop={(event) => {
        const file = event.dataTransfer.files[0];
        if (openDropped === null || file === undefined) return;
        event.preventDefault();
        openDropped(file).then(() => select(null), (error: unknown) => setDropError(String(error)));
      }}
    >
      <AppHeader workspace={workspace} dropError={dropError} onHelp={() => setHelp(true)} onSelect={select} />
      {help && <KeyboardHelp onClose={() => setHelp(false)} />}
      <main className="app-body">
        <ErrorBoundary resetKey="list">{is_fleet ? <FleetList selected={selected} onSelect={select} onHosts={setHosts} /> : <SessionList sessions={sessions.data ?? []} selected={selected} onSelect={select} progress={progress} />}</ErrorBoundary>
        <section className="session-pane">
          {comparing !== null && <ErrorBoundary resetKey="compare"><CompareView key={JSON.stringify(comparing)} link={comparing} summaries={summaries} onClose={() => select(comparing.a)} /></ErrorBoundary>}
          {comparing === null && selected === null && <ErrorBoundary resetKey="overview">{is_fleet ? <FleetOverview hosts={hosts} /> : <WorkspaceOverview sessions={sessions.data ?? []} canDrop={openDropped !== null} onSelect={select} />}</ErrorBoundary>}
          {comparing === null && selected !== null && <SessionPane selected={selected} visit={visit} detail={detail} />}
        </section>
      </main>
    </div>
  );
}

function AppHeader({ workspace, dropError, onHelp, onSelect }: { workspace: UseQueryResult<Workspace>; dropError: string | null; onHelp: () => void; onSelect: (key: string) => void }) {
  const data = workspace.data;
  return (
    <header className="app-head">
      <strong>walscope</strong>
      <span className="mono muted head-text" data-testid="workspace-path" title={data?.path}>{data?.path ?? ''}</span>
      {data !== undefined && <span className="badge" data-testid="workspace-kind">{data.kind}{data.read_only ? ' · read-only' : ''}</span>}
      {data !== undefined && data.not_sessions.length > 0 && <span className="muted head-text">not sessions: {data.not_sessions.join(', ')}</span>}
      {dropError !== null && <span className="error head-text">{dropError}</span>}
      {workspace.error !== null && <span className="error head-text" role="alert" data-testid="workspace-error">{workspace.error.message}</span>}
      {data !== undefined && <AlertsButton onSelect={onSelect} />}
      <button type="button" className="help-button" onClick={onHelp} aria-label="Keyboard help" title="Keyboard help (?)" data-testid="help-button">?</button>
    </header>
  );
}

function SessionPane({ selected, visit, detail }: { selected: string; visit: number; detail: UseQueryResult<SessionDetail> }) {
  if (detail.data === undefined) return <p className="muted empty" data-testid="session-unavailable">{detail.error?.message ?? 'Reading…'}</p>;
  return (
    <div className="pane-column">
      {detail.data.summary.stale !== undefined && <p className="warn-text stale-banner" role="status" data-testid="session-stale">{detail.data.summary.stale}</p>}
      <ErrorBoundary resetKey={selected}><SessionView key={`${visit} ${selected}`} detail={detail.data} /></ErrorBoundary>
    </div>
  );
}

/** The session the address names: selecting one writes it there, and a link to `#session=KEY` (the History
 *  panel's sealed lineages, a walscope:// link the desktop followed) selects that session. `visit` counts the
 *  addresses followed: each opens its session view anew at what it names (a record, a step), even the one shown. */
function useSelectedSession(): [string | null, (key: string | null) => void, number] {
  const [selected, setSelected] = useState<string | null>(() => readLink().session);
  const [visit, setVisit] = useState(0);
  useEffect(() => {
    const follow = () => {
      setSelected(readLink().session);
      setVisit((count) => count + 1);
    };
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const select = (key: string | null) => {
    setSelected(key);
    if (key !== null) writeLink({ session: key, tab: null, record: null, step: null, filter: ALL_ROWS });
  };
  return [selected, select, visit];
}

/** The comparison the address names (`#compare=A&with=B`), followed as the address changes: "Compare with…" and
 *  the list's "Compare" open one as a new entry of the history, and Back leaves it. */
function useComparison(): [CompareLink | null, (link: CompareLink | null) => void] {
  const [comparing, setComparing] = useState<CompareLink | null>(() => readCompareLink());
  useEffect(() => {
    const follow = () => setComparing(readCompareLink());
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return [comparing, setComparing];
}

/** `?` opens the keyboard help anywhere but in a text field. */
function useHelpKey(): [boolean, (open: boolean) => void] {
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.key !== '?' || (target !== null && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT'))) return;
      event.preventDefault();
      setHelp(true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return [help, setHelp];
}

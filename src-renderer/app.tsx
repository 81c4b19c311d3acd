// The window: workspace header, the session list, the selected session (named by the address's fragment,
// location.ts), and the keyboard help (`?`).
import { useEffect, useState } from 'react';
import { useServiceEvents, useSession, useSessions, useWorkspace } from './queries.js';
import { SessionList } from './components/session-list.js';
import { SessionView } from './components/session-view.js';
import { api } from './api/api.js';
import { ErrorBoundary } from './components/error-boundary.js';
import { WorkspaceOverview } from './components/workspace-overview.js';
import { FleetList, FleetOverview } from './components/fleet-list.js';
import type { HostView } from '../src-shared/ipc.js';
import { KeyboardHelp } from './components/keyboard-help.js';
import { readLink, writeLink } from './location.js';

export function App() {
  const workspace = useWorkspace();
  const is_fleet = workspace.data?.kind === 'fleet';
  const sessions = useSessions(workspace.data !== undefined && !is_fleet);
  const [hosts, setHosts] = useState<HostView[]>([]);
  const progress = useServiceEvents();
  const [selected, setSelected] = useState<string | null>(() => readLink().session);
  const [help, setHelp] = useState(false);
  const detail = useSession(selected);
  const [dropError, setDropError] = useState<string | null>(null);
  const select = (key: string) => {
    setSelected(key);
    writeLink({ session: key, tab: null, record: null });
  };
  // A link to `#session=KEY` (the History panel's sealed lineages) selects that session.
  useEffect(() => {
    const follow = () => setSelected(readLink().session);
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  // `?` opens the keyboard help anywhere but in a text field.
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
  return (
    <div
      className="app"
      onDragOver={(event) => { if (api.openDropped !== undefined) event.preventDefault(); }}
      onDrop={(event) => {
        const file = event.dataTransfer.files[0];
        if (api.openDropped === undefined || file === undefined) return;
        event.preventDefault();
        api.openDropped(file).then(() => setSelected(null), (error: unknown) => setDropError(String(error)));
      }}
    >
      <header className="app-head">
        <strong>walscope</strong>
        <span className="mono muted head-text" data-testid="workspace-path" title={workspace.data?.path}>{workspace.data?.path ?? ''}</span>
        {workspace.data !== undefined && <span className="badge" data-testid="workspace-kind">{workspace.data.kind}{workspace.data.read_only ? ' · read-only' : ''}</span>}
        {workspace.data !== undefined && workspace.data.not_sessions.length > 0 && <span className="muted head-text">not sessions: {workspace.data.not_sessions.join(', ')}</span>}
        {dropError !== null && <span className="error head-text">{dropError}</span>}
        {workspace.error !== null && <span className="error head-text" role="alert" data-testid="workspace-error">{workspace.error.message}</span>}
        <button type="button" className="help-button" onClick={() => setHelp(true)} aria-label="Keyboard help" title="Keyboard help (?)" data-testid="help-button">?</button>
      </header>
      {help && <KeyboardHelp onClose={() => setHelp(false)} />}
      <main className="app-body">
        <ErrorBoundary resetKey="list">{is_fleet ? <FleetList selected={selected} onSelect={select} onHosts={setHosts} /> : <SessionList sessions={sessions.data ?? []} selected={selected} onSelect={select} progress={progress} />}</ErrorBoundary>
        <section className="session-pane">
          {selected === null && <ErrorBoundary resetKey="overview">{is_fleet ? <FleetOverview hosts={hosts} /> : <WorkspaceOverview sessions={sessions.data ?? []} canDrop={api.openDropped !== undefined} onSelect={select} />}</ErrorBoundary>}
          {selected !== null && detail.data === undefined && <p className="muted empty" data-testid="session-unavailable">{detail.error?.message ?? 'Reading…'}</p>}
          {detail.data !== undefined && (
            <div className="pane-column">
              {detail.data.summary.stale !== undefined && <p className="warn-text stale-banner" role="status" data-testid="session-stale">{detail.data.summary.stale}</p>}
              <ErrorBoundary resetKey={selected ?? ''}><SessionView key={selected ?? ''} detail={detail.data} /></ErrorBoundary>
            </div>
          )}
        </section>
      </main>
    </div>
  );
}

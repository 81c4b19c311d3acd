// The session pane before a session is picked: how many sessions are in each state (most urgent first), what
// each state asks of the reader, and the keys — so a first look at a state root says where to start.
import type { SessionStatus, SessionSummary } from '../../src-shared/ipc.js';
import { STATUS_MEANING, STATUS_WORD, StatusChip } from './chips.js';
import { formatTime } from './format.js';

export function WorkspaceOverview({ sessions, canDrop }: { sessions: SessionSummary[]; canDrop: boolean }) {
  const counts = new Map<SessionStatus, number>();
  for (const session of sessions) counts.set(session.status, (counts.get(session.status) ?? 0) + 1);
  const present = (Object.keys(STATUS_WORD) as SessionStatus[]).filter((status) => counts.has(status));
  return (
    <div className="overview" data-testid="workspace-overview">
      <p>Pick a session.{canDrop ? ' Drop a state root or a WAL export here to open it.' : ''}</p>
      {present.length > 0 && (
        <table>
          <tbody>
            {present.map((status) => (
              <tr key={status}>
                <td className="count">{counts.get(status)}</td>
                <td><StatusChip value={status} /></td>
                <td className="muted">{STATUS_MEANING[status]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <RootRecoveries sessions={sessions} />
      <p className="muted">Keys: j / k move · Home / End go to the first / last row · Enter opens · Esc closes · / searches</p>
    </div>
  );
}

/** Every recovery recorded in the workspace's WALs (operator_action), most recent first. */
function RootRecoveries({ sessions }: { sessions: SessionSummary[] }) {
  const all = sessions.flatMap((session) => session.recoveries.map((entry) => ({ session: session.key, entry })));
  all.sort((a, b) => (b.entry.ts_ms ?? 0) - (a.entry.ts_ms ?? 0));
  return (
    <section aria-label="Recoveries" data-testid="root-recoveries">
      <h3>Recoveries</h3>
      {all.length === 0 ? (
        <p className="muted">No recovery action is recorded in these WALs.</p>
      ) : (
        <table>
          <thead><tr><th scope="col">When</th><th scope="col">Session</th><th scope="col">Action</th><th scope="col">Who</th><th scope="col">Why</th><th scope="col">Wrote</th></tr></thead>
          <tbody>
            {all.map(({ session, entry }) => (
              <tr key={`${session}/${entry.seq}`} data-testid="root-recovery" data-session={session}>
                <td>{entry.ts_ms === null ? '—' : formatTime(entry.ts_ms)}</td>
                <td className="mono">{session}</td>
                <td>{entry.action}</td>
                <td className="mono">{entry.operator} <span className="muted">via {entry.via}</span></td>
                <td>{entry.reason}</td>
                <td>{entry.records.length} record(s)</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

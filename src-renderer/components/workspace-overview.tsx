// The session pane before a session is picked: how many sessions are in each state (most urgent first), what
// each state asks of the reader, and the keys — so a first look at a state root says where to start.
import type { SessionStatus, SessionSummary } from '../../src-shared/ipc.js';
import { STATUS_MEANING, STATUS_WORD, StatusChip } from './chips.js';

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
      <p className="muted">Keys: j / k move · Home / End go to the first / last row · Enter opens · Esc closes · / searches</p>
    </div>
  );
}

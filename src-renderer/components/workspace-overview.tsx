// The session pane before a session is picked: the sessions that wait on a person (the attention queue, each
// saying what it waits for and what closes it), how many sessions are in each state (most urgent first) and what
// each state means, files that are not WALs at all (apart: they are not sessions), and the recoveries recorded.
import type { SessionSummary } from '../../src-shared/ipc.js';
import { LISTED_STATUSES, STATUS_MEANING, type ListedStatus } from '../../src-shared/status.js';
import { StatusChip } from './chips.js';
import { actionWords, formatTime, writtenWords } from './format.js';

export function WorkspaceOverview({ sessions, canDrop, onSelect }: { sessions: SessionSummary[]; canDrop: boolean; onSelect: (key: string) => void }) {
  const wal_sessions = sessions.filter((session) => session.status !== 'not_a_wal');
  const counts = new Map<ListedStatus, number>();
  for (const session of wal_sessions) counts.set(session.status, (counts.get(session.status) ?? 0) + 1);
  const present = LISTED_STATUSES.filter((status) => counts.has(status));
  return (
    <div className="overview" data-testid="workspace-overview">
      <p>Pick a session.{canDrop ? ' Drop a state root or a WAL export here to open it.' : ''}</p>
      <AttentionQueue sessions={sessions} onSelect={onSelect} />
      {present.length > 0 && (
        <table aria-label="Sessions by status" data-testid="status-counts">
          <tbody>
            {present.map((status) => (
              <tr key={status} data-testid="status-count" data-status={status}>
                <td className="count">{counts.get(status)}</td>
                <td><StatusChip value={status} /></td>
                <td className="muted">{STATUS_MEANING[status]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NotWals sessions={sessions} onSelect={onSelect} />
      <RootRecoveries sessions={sessions} />
      <p className="muted">Keys: j / k move · Home / End go to the first / last row · Enter opens · Esc closes · / searches</p>
    </div>
  );
}

/** The sessions that wait on a person (wal-format §10 "Needs attention"), most urgent first. */
function AttentionQueue({ sessions, onSelect }: { sessions: SessionSummary[]; onSelect: (key: string) => void }) {
  const waiting = sessions.filter((session) => session.attention !== null);
  waiting.sort((a, b) => LISTED_STATUSES.indexOf(a.status) - LISTED_STATUSES.indexOf(b.status) || a.key.localeCompare(b.key));
  return (
    <section aria-label="Needs attention" data-testid="attention-queue">
      <h3>Needs attention {waiting.length > 0 && <span className="tab-count">{waiting.length}</span>}</h3>
      {waiting.length === 0 ? (
        <p className="muted" data-testid="attention-empty">Nothing waits on a person: no recovery is owed, no call waits on its provider, no unknown outcome is unchecked, nothing is damaged.</p>
      ) : (
        <ul className="attention">
          {waiting.map((session) => (
            <li key={session.key} data-testid="attention-entry" data-session={session.key} data-kind={session.attention!.kind}>
              <button type="button" className="link-button mono" onClick={() => onSelect(session.key)}>{session.key}</button>{' '}
              <StatusChip value={session.status} title={session.status_detail} finishReason={session.finish_reason} />{' '}
              <span>{session.attention!.message}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Files that are not WALs at all (wal-format §5 rule 0), apart from the sessions: the wrong file, never a cut one. */
function NotWals({ sessions, onSelect }: { sessions: SessionSummary[]; onSelect: (key: string) => void }) {
  const files = sessions.filter((session) => session.status === 'not_a_wal');
  if (files.length === 0) return null;
  return (
    <section aria-label="Not WALs" data-testid="not-wals">
      <h3>Not WALs <span className="tab-count">{files.length}</span></h3>
      <p className="muted">{STATUS_MEANING.not_a_wal}</p>
      <ul>
        {files.map((session) => (
          <li key={session.key} data-testid="not-wal" data-session={session.key}>
            <button type="button" className="link-button mono" onClick={() => onSelect(session.key)}>{session.key}</button> <span className="muted">{session.status_detail}</span>
          </li>
        ))}
      </ul>
    </section>
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
              <tr key={`${session}/${entry.seq}/${entry.retired?.wal_id ?? ''}`} data-testid="root-recovery" data-session={session} data-action={entry.action}>
                <td>{entry.ts_ms === null ? '—' : formatTime(entry.ts_ms)}</td>
                <td className="mono">{session}</td>
                <td>{actionWords(entry)}</td>
                <td className="mono">{entry.operator}{entry.os_user !== null && entry.os_user !== entry.operator && <span className="muted"> (as {entry.os_user})</span>} <span className="muted">via {entry.via}</span></td>
                <td>{entry.reason}</td>
                <td>{writtenWords(entry)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

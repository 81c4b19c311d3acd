// "Compare with…" on a session's header: a picker of the workspace's other sessions (in a fleet, the first page of
// its list: two sessions of any host are ticked in the list) and of this session's own sealed lineages, which opens
// the comparison (location.ts: a new entry of the history, so Back returns here).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ALL_SESSIONS, type SessionSummary } from '../../src-shared/ipc.js';
import { openComparison } from '../location.js';
import { queries } from '../queries.js';

export function CompareWith({ sessionKey, lastSeq, reading }: { sessionKey: string; lastSeq: number; reading: boolean }) {
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState('');
  const workspace = useQuery(queries.workspace());
  const is_fleet = workspace.data?.kind === 'fleet';
  const listed = useQuery(queries.sessions(workspace.data !== undefined && !is_fleet));
  // `enabled`, not skipToken: these keys are shared with the fleet list's first page and the History panel, and a
  // skipToken observer would leave the shared query without its function (an invalidation would then fetch nothing).
  const fleet_page = useQuery({ ...queries.sessionPage(ALL_SESSIONS, 0), enabled: open && is_fleet });
  const history = useQuery({ ...queries.history(sessionKey, lastSeq, reading), enabled: open && !is_fleet });
  const others: SessionSummary[] = ((is_fleet ? fleet_page.data?.rows : listed.data) ?? []).filter((session) => session.key !== sessionKey);
  const base = is_fleet || sessionKey.includes('@') ? null : sessionKey;
  const lineages = base === null ? [] : (history.data?.lineages ?? []).filter((lineage) => lineage.where === 'sealed').map((lineage) => `${base}@${lineage.wal_id}`);
  const picked = choice !== '' && (others.some((session) => session.key === choice) || lineages.includes(choice)) ? choice : '';
  return (
    <span className="compare-with">
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="compare-with">Compare with…</button>
      {open && (
        <>
          <select value={picked} onChange={(event) => setChoice(event.target.value)} aria-label={`Compare ${sessionKey} with`} data-testid="compare-with-select">
            <option value="">choose a session…</option>
            {lineages.length > 0 && <optgroup label="this session's sealed lineages">{lineages.map((key) => <option key={key} value={key}>{key}</option>)}</optgroup>}
            <optgroup label={is_fleet ? 'sessions (the list\'s first page: tick two in the list for any others)' : 'the workspace\'s other sessions'}>
              {others.map((session) => <option key={session.key} value={session.key}>{session.host === undefined ? session.key : `${session.host} · ${session.session_id ?? session.key}`}</option>)}
            </optgroup>
          </select>
          <button type="button" disabled={picked === ''} onClick={() => openComparison({ a: sessionKey, b: picked, episode: null })} data-testid="compare-with-open">Compare</button>
        </>
      )}
    </span>
  );
}

// A session's history (wal-format §11): the lineage chain newest first — live, sealed, deleted (a tombstone:
// counts only), missing — with each lineage's records, time span and counters, what is wrong with the chain,
// and the archive's integrity as a banner. Everything shown is text; wal_ids are hex the engine produced.
import { useQuery } from '@tanstack/react-query';
import type { SessionHistory } from '../../src-shared/ipc.js';
import { api } from '../api/api.js';
import { formatTime } from './format.js';

export function HistoryPanel({ sessionKey, lastSeq }: { sessionKey: string; lastSeq: number }) {
  // The live lineage grows; the query refetches when the session's last seq moves.
  const history = useQuery({ queryKey: ['history', sessionKey, lastSeq], queryFn: () => api.getHistory(sessionKey) });
  if (history.error) return <p className="error" data-testid="history-error">{history.error.message}</p>;
  const data = history.data;
  if (data === undefined || (data.archive === null && data.lineages.length <= 1 && data.problems.length === 0)) return null;
  return (
    <section className="panel history" aria-label="History" data-testid="history-panel">
      <h3>History</h3>
      <ArchiveBanner archive={data.archive} />
      <table>
        <thead>
          <tr><th>lineage</th><th>where</th><th>seq</th><th>time span</th><th>next tag</th><th>next notice</th></tr>
        </thead>
        <tbody>
          {data.lineages.map((lineage) => (
            <tr key={`${lineage.where}-${lineage.wal_id}`} data-testid="history-lineage" data-where={lineage.where}>
              <td className="mono" title={lineage.parent_wal_id === null ? 'no parent recorded' : `parent ${lineage.parent_wal_id}`}>{lineage.wal_id.slice(0, 12)}…</td>
              <td>{lineage.where}</td>
              <td>{lineage.first_seq === null ? '—' : `${lineage.first_seq}–${lineage.last_seq}`}</td>
              <td>{formatTime(lineage.first_ms)} – {formatTime(lineage.last_ms)}</td>
              <td>{lineage.next_tag ?? '—'}</td>
              <td>{lineage.next_notice_seq ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.problems.map((problem, index) => (
        <p key={index} className="error" data-testid="history-problem" data-kind={problem.kind}>{problem.kind.replaceAll('_', ' ')}: {problem.message}</p>
      ))}
      <p className="muted">Open a sealed lineage read-only with <span className="mono">walscope serve SESSION_DIR@WAL_ID</span>.</p>
    </section>
  );
}

function ArchiveBanner({ archive }: { archive: SessionHistory['archive'] }) {
  if (archive === null) return null;
  if (archive.error !== null) {
    return <div className="banner banner-error" role="alert" data-testid="archive-banner" data-kind={archive.error.kind}>Archive {archive.error.kind.replaceAll('_', ' ')} at offset {archive.error.offset ?? '?'}: no older history is served and no lineage is reported absent. Restore the archive from a good copy.</div>;
  }
  if (archive.torn_tail !== null) {
    return <div className="banner banner-warn" role="status" data-testid="archive-banner" data-kind="torn_tail">Archive torn tail: {archive.torn_tail.bytes} bytes at offset {archive.torn_tail.offset} were never committed (a retire died mid-append); the next retire keeps a copy and cuts them.</div>;
  }
  if (archive.damaged_members.length > 0) {
    return <div className="banner banner-warn" role="status" data-testid="archive-banner" data-kind="member_damaged">{archive.damaged_members.length} archived lineage(s) damaged: refused alone, the rest readable.</div>;
  }
  const note = archive.index === 'valid' ? '' : ` — index ${archive.index}: the members it does not cover are found by reading their headers`;
  return <div className="banner banner-info" role="status" data-testid="archive-banner" data-kind={`index_${archive.index}`}>Archive: {archive.members} member(s){note}.</div>;
}

// A session's history (wal-format §11): the lineage chain newest first — live, sealed, deleted (a tombstone:
// counts only), missing — with each lineage's records, time span and counters, what is wrong with the chain,
// and the archive's integrity as a banner. Everything shown is text; wal_ids are hex the engine produced.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { isOperatorName, type WriteChoice, type RetirePreview, type SessionHistory } from '../../src-shared/ipc.js';
import { useOperatorName, useRecordedWho } from '../operator.js';
import { OperatorField } from './operator-field.js';
import { queries, writes } from '../queries.js';
import { formatTime } from './format.js';

export function HistoryPanel({ sessionKey, lastSeq, reading, readOnly, retire }: { sessionKey: string; lastSeq: number; reading: boolean; readOnly: boolean; retire: WriteChoice }) {
  // The live lineage grows; the query refetches when the session's last seq moves, and when its first read
  // completes (the live lineage is the read's so far until then). The last answer stays shown meanwhile: a
  // retire moves the last seq, and unmounting the panel then would drop the retire's result.
  const history = useQuery(queries.history(sessionKey, lastSeq, reading));
  if (history.error) return <p className="error" data-testid="history-error">{history.error.message}</p>;
  const data = history.data;
  if (data === undefined) return null;
  if (data.archive === null && data.lineages.length <= 1 && data.problems.length === 0) return readOnly ? null : <section className="panel history" aria-label="History" data-testid="history-panel"><h3>History</h3><p className="muted">One lineage, no archive yet.</p><RetireActions sessionKey={sessionKey} choice={retire} /></section>;
  return (
    <section className="panel history" aria-label="History" data-testid="history-panel">
      <h3>History</h3>
      <ArchiveBanner archive={data.archive} />
      {data.live_reading && <p className="muted" data-testid="history-reading">The live lineage is still being read: its seq range, counters and time span are the read's so far{data.lineages.some((lineage) => lineage.where === 'live') ? '' : ' (its lineage frame is not read yet)'}. Retiring is offered once it is read.</p>}
      <table>
        <thead>
          <tr><th>lineage</th><th>where</th><th>seq</th><th>time span</th><th>next tag</th><th>next notice</th></tr>
        </thead>
        <tbody>
          {data.lineages.map((lineage) => (
            <tr key={`${lineage.where}-${lineage.wal_id}`} data-testid="history-lineage" data-where={lineage.where}>
              <td className="mono" title={lineage.parent_wal_id === null ? 'no parent recorded' : `parent ${lineage.parent_wal_id}`}>{lineage.wal_id.slice(0, 12)}…</td>
              <td>{lineage.where === 'sealed' ? <a href={`#session=${encodeURIComponent(`${sessionKey}@${lineage.wal_id}`)}`} data-testid="open-sealed" title="open this lineage read-only">sealed</a> : lineage.where}</td>
              <td>{lineage.first_seq === null ? '—' : `${lineage.first_seq}–${lineage.last_seq}`}</td>
              <td>{formatTime(lineage.first_ms)} – {formatTime(lineage.last_ms)}</td>
              <td>{lineage.next_tag ?? '—'}</td>
              <td>{lineage.next_notice_seq ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.lineages.filter((lineage) => lineage.retired_by !== null).map((lineage) => (
        <p key={`retired-${lineage.wal_id}`} className="muted" data-testid="retired-by" data-wal-id={lineage.wal_id}>
          <span className="mono">{lineage.wal_id.slice(0, 12)}…</span> retired by <span className="mono">{lineage.retired_by!.operator}</span> via {lineage.retired_by!.via}
          {' '}· {formatTime(lineage.retired_by!.ts_ms)}: <q>{lineage.retired_by!.reason}</q>
        </p>
      ))}
      {data.problems.map((problem, index) => (
        <p key={index} className="error" data-testid="history-problem" data-kind={problem.kind}>{problem.kind.replaceAll('_', ' ')}: {problem.message}</p>
      ))}
      <p className="muted">A sealed lineage opens read-only (click “sealed”), here or with <span className="mono">walscope serve SESSION_DIR@WAL_ID</span>.</p>
      {/* As resume, cancel and seal: nothing is offered while the WAL is still read from its start. */}
      {!readOnly && !data.live_reading && <RetireActions sessionKey={sessionKey} choice={retire} />}
    </section>
  );
}

/** Retire the live lineage: a preview of exactly what would be written, then a confirmation. */
function RetireActions({ sessionKey, choice }: { sessionKey: string; choice: WriteChoice }) {
  const client = useQueryClient();
  const [operator, setOperator] = useOperatorName();
  const who = useRecordedWho();
  // The preview shown is the last one asked for, until the retire or Close dismisses it; the result shown is the
  // retire's, until another preview is asked for.
  const ask = useMutation({ ...writes.previewRetire(sessionKey), onSuccess: () => { run.reset(); setAuditReason(''); } });
  const [auditReason, setAuditReason] = useState('');
  const run = useMutation(writes.runRetire(client, sessionKey));
  const preview = ask.data ?? null;
  const result = run.data ?? null;
  const retire = (value: RetirePreview) => run.mutate({ preview: value, reason: auditReason, operator: operator.trim() }, { onSuccess: () => ask.reset() });

  const plan = preview?.plan ?? null;
  return (
    <div className="retire">
      <div className="actions">
        <button type="button" onClick={() => ask.mutate('sealed')} disabled={!choice.applies || ask.isPending || run.isPending} title={choice.why} aria-describedby="why-retire" data-testid="retire-sealed">Retire (seal)…</button>
        <button type="button" onClick={() => ask.mutate('deleted')} disabled={!choice.applies || ask.isPending || run.isPending} title={choice.why} aria-describedby="why-retire" data-testid="retire-deleted">Retire (delete)…</button>
      </div>
      <p id="why-retire" className="muted" data-testid="why-retire" data-applies={choice.applies}>{choice.applies ? `Retire ${choice.why}.` : `Retire does not apply now: ${choice.why}.`}</p>
      {ask.error && <p className="error">{ask.error.message}</p>}
      {preview !== null && (
        <div className="confirm" role="dialog" aria-label="Confirm retire" data-testid="retire-dialog">
          {preview.refusal !== null ? (
            <p className="refusal" data-testid="retire-refusal" data-code={preview.refusal.code}>Refused: {preview.refusal.message}</p>
          ) : plan !== null && (
            <ol data-testid="retire-plan">
              {plan.archive_torn_tail !== null && <li>keep the archive's torn tail ({plan.archive_torn_tail.bytes} bytes at offset {plan.archive_torn_tail.offset}) in {plan.archive_torn_tail.copy_name}, then cut it</li>}
              <li>{plan.member === null ? 'member already archived: skipped' : `append member ${plan.member.wal_id.slice(0, 12)}… (${plan.member.reason}, seq ${plan.member.first_seq}–${plan.member.last_seq}, ${plan.member.content_bytes} content bytes) at archive offset ${plan.member.offset}`}</li>
              <li>successor: a new lineage with parent {plan.successor.parent_wal_id.slice(0, 12)}…, next_tag {plan.successor.next_tag}, next_notice_seq {plan.successor.next_notice_seq}</li>
              <li>archive.index rewritten to cover {plan.index.members} member(s) (now {plan.index.before})</li>
            </ol>
          )}
          {plan !== null && plan.member !== null && (
            <>
              {plan.live.torn_tail !== null && <p className="warn-text" data-testid="retire-tail-repair">First, the live lineage's torn tail is cut: {plan.live.torn_tail.bytes} byte(s) at offset {plan.live.torn_tail.offset}, after a copy of them is kept beside the WAL; the member holds the valid prefix ({plan.live.valid_bytes} bytes).</p>}
              <p className="mono" data-testid="retire-audit">first, in its own barrier: operator_action — action retire, {who}, based on seq {plan.live.last_seq} (appended to the retiring lineage{plan.reason === 'deleted' ? '; a deleted lineage keeps only its counts, so the record goes with it' : ', so its member holds it'})</p>
              <OperatorField name={operator} onChange={setOperator} />
              <label className="reason">
                Reason (recorded in the WAL with your name):
                <textarea value={auditReason} onChange={(event) => setAuditReason(event.target.value)} rows={2} maxLength={2000} required data-testid="retire-reason" />
              </label>
            </>
          )}
          <div className="actions">
            {plan !== null && <button type="button" className="danger" onClick={() => retire(preview)} disabled={run.isPending || (plan.member !== null && (auditReason.trim() === '' || !isOperatorName(operator)))} data-testid="retire-confirm">Retire ({preview.reason})</button>}
            <button type="button" onClick={() => ask.reset()} data-testid="retire-close">Close</button>
          </div>
        </div>
      )}
      {run.error && <p className="error">{run.error.message}</p>}
      {result !== null && <p className={result.ok ? '' : 'refusal'} data-testid="retire-result" data-ok={result.ok}>{result.ok ? result.message : `Refused: ${result.refusal.message}`}</p>}
    </div>
  );
}

function ArchiveBanner({ archive }: { archive: SessionHistory['archive'] }) {
  if (archive === null) return null;
  if (archive.error !== null) {
    // The session's banner says the refusal and what to do; here, only what it means for the history.
    return <div className="banner banner-error" role="alert" data-testid="archive-banner" data-kind={archive.error.kind}>The archive is refused at offset {archive.error.offset ?? '?'}: no older history is served and no lineage is reported absent.</div>;
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

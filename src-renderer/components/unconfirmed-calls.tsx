// The calls of the last run whose outcome the WAL leaves unknown, each with what to check and, once checked, what
// its owner found and who recorded it. "Record what you found…" opens the same kind of confirmation as the
// recovery actions: the one operator_action it appends (wal-format §6 acknowledgement), a torn tail the writer
// cuts first, the operator's name and reason. An export is read-only: its owner records it on their state root.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { isOperatorName, type AcknowledgeResult, type SessionDetail } from '../../src-shared/ipc.js';
import { FINDINGS, type Finding, type UnconfirmedCall } from '../../src-shared/replay.js';
import { FINDING_WORDS } from '../../src-shared/words.js';
import { queries, writes } from '../queries.js';
import { useOperatorName, useRecordedWho } from '../operator.js';
import { formatTime } from './format.js';
import { OperatorField } from './operator-field.js';

/** A finding as its radio button offers it: "Not applied: the side effect did not happen." */
function findingChoice(finding: Finding): string {
  const { label, meaning } = FINDING_WORDS[finding];
  return `${label.charAt(0).toUpperCase()}${label.slice(1)}: ${meaning.charAt(0).toLowerCase()}${meaning.slice(1)}`;
}

export function UnconfirmedCalls({ detail }: { detail: SessionDetail }) {
  const run = detail.summary.run;
  const [open, setOpen] = useState<UnconfirmedCall | null>(null);
  const [result, setResult] = useState<AcknowledgeResult | null>(null);
  if (run === null || run.unconfirmed.length === 0) return null;
  const unchecked = run.unconfirmed.filter((call) => call.acknowledged === null).length;
  return (
    <div className={`banner ${unchecked > 0 ? 'banner-warn' : 'banner-info'}`} role="status" data-testid="unconfirmed">
      <strong>{unchecked > 0 ? `Unconfirmed side effect${run.unconfirmed.length === 1 ? '' : 's'}:` : 'Unknown outcomes, each checked by its owner:'}</strong>
      <ul>
        {run.unconfirmed.map((call) => (
          <li key={`${call.episode}/${call.batch_id}/${call.tool_call_id}`} data-testid="unconfirmed-call" data-call={call.tool_call_id} data-checked={call.acknowledged !== null}>
            <span className="mono">{call.tool_call_id}</span> (episode {call.episode}, {call.closed_out_seq === null ? 'no result recorded' : `recorded unknown at seq ${call.closed_out_seq}`}): {call.may_have}
            {call.acknowledged !== null && (
              <div data-testid="acknowledged">
                Checked: <strong>{FINDING_WORDS[call.acknowledged.finding].label}</strong>, by <span className="mono">{call.acknowledged.operator}</span>
                {call.acknowledged.os_user !== null && call.acknowledged.os_user !== call.acknowledged.operator && <span className="muted"> (as {call.acknowledged.os_user})</span>} via {call.acknowledged.via}
                {' '}· {formatTime(call.acknowledged.ts_ms)} · seq {call.acknowledged.seq}: <q>{call.acknowledged.reason}</q>
              </div>
            )}
            {detail.read_only ? (
              <div className="muted" data-testid="acknowledge-elsewhere">This export is read-only: the owner records what they found on the customer&apos;s state root (<span className="mono">walscope acknowledge SESSION --call {call.tool_call_id} --finding …</span>).</div>
            ) : (
              <div>
                <button type="button" onClick={() => { setResult(null); setOpen(call); }} disabled={!detail.acknowledge.applies} title={detail.acknowledge.why} data-testid="acknowledge-open">{call.acknowledged === null ? 'Record what you found…' : 'Record again…'}</button>
                {!detail.acknowledge.applies && <span className="muted" data-testid="acknowledge-why"> Not now: {detail.acknowledge.why}.</span>}
              </div>
            )}
          </li>
        ))}
      </ul>
      {open !== null && <AcknowledgeDialog sessionKey={detail.summary.key} call={open} onDone={(value) => { setResult(value); if (value.ok) setOpen(null); }} onClose={() => setOpen(null)} />}
      {result !== null && <p className={result.ok ? '' : 'refusal'} data-testid="acknowledge-result" data-ok={result.ok}>{result.ok ? result.message : `Refused: ${result.refusal.message}`}</p>}
    </div>
  );
}

function AcknowledgeDialog({ sessionKey, call, onDone, onClose }: { sessionKey: string; call: UnconfirmedCall; onDone: (result: AcknowledgeResult) => void; onClose: () => void }) {
  const client = useQueryClient();
  const [finding, setFinding] = useState<Finding | null>(null);
  const [reason, setReason] = useState('');
  const [operator, setOperator] = useOperatorName();
  const who = useRecordedWho();
  const box = useRef<HTMLDivElement>(null);
  const ref = { batch_id: call.batch_id, tool_call_id: call.tool_call_id };
  const preview = useQuery(queries.acknowledgePreview(sessionKey, ref, finding));
  const write = useMutation(writes.runAcknowledge(client, sessionKey));
  const record = () => write.mutate({ call: ref, finding: finding!, based_on_seq: preview.data!.based_on_seq, reason, operator: operator.trim() }, { onSuccess: onDone });
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest' });
    box.current?.querySelector<HTMLInputElement>('input[type=radio]')?.focus();
  }, []);
  const shown = preview.data;
  const refusal = shown?.refusal ?? null;
  return (
    <div className="confirm" role="dialog" aria-modal="true" aria-label={`Record what you found for ${call.tool_call_id}`} data-testid="acknowledge-dialog" ref={box} tabIndex={-1}
      onKeyDown={(event) => { if (event.key === 'Escape') { event.stopPropagation(); onClose(); } }}>
      <h4>What did <span className="mono">{call.tool_call_id}</span> ({call.name}) do?</h4>
      <p>{call.may_have}.</p>
      <FindingChoice finding={finding} onChange={setFinding} />
      {preview.error && <p className="error">{preview.error.message}</p>}
      {refusal !== null && <p className="refusal" data-testid="acknowledge-refusal" data-reason={refusal.reason}>Refused: {refusal.message}</p>}
      {shown !== undefined && refusal === null && (
        <>
          <p>The one write, under a new lease epoch, in a barrier of its own:</p>
          {shown.tail_repair !== null && (
            <p className="warn-text" data-testid="tail-repair">
              First, the torn tail is cut: {shown.tail_repair.bytes} byte(s) at offset {shown.tail_repair.offset} are truncated from the WAL, after a copy of them is kept at <span className="mono">{shown.tail_repair.copy_path}</span>.
            </p>
          )}
          <p className="mono" data-testid="acknowledge-record">operator_action — action acknowledge, call {call.batch_id}/{call.tool_call_id}, finding {finding}, {who}, based on seq {shown.based_on_seq}</p>
          <p className="muted">It changes no class and no plan: the run reads as “finished, checked” once every unknown outcome is acknowledged.</p>
          <OperatorField name={operator} onChange={setOperator} />
          <label className="reason">
            Reason (what you checked, recorded in the WAL with your name):
            <textarea value={reason} onChange={(event) => setReason(event.target.value)} rows={2} maxLength={2000} required data-testid="acknowledge-reason" />
          </label>
        </>
      )}
      {write.error && <p className="error">{write.error.message}</p>}
      <div className="actions">
        {shown !== undefined && refusal === null && (
          <button type="button" className="danger" onClick={record} disabled={write.isPending || reason.trim() === '' || !isOperatorName(operator)} data-testid="acknowledge-write">
            Write 1 record{shown.tail_repair === null ? '' : ' and cut the torn tail'}
          </button>
        )}
        <button type="button" onClick={onClose} data-testid="acknowledge-close">Close</button>
      </div>
    </div>
  );
}

function FindingChoice({ finding, onChange }: { finding: Finding | null; onChange: (finding: Finding) => void }) {
  return (
    <fieldset>
      <legend>Your finding</legend>
      {FINDINGS.map((value) => (
        <label key={value} className="finding">
          <input type="radio" name="finding" value={value} checked={finding === value} onChange={() => onChange(value)} data-testid={`finding-${value}`} /> {findingChoice(value)}
        </label>
      ))}
    </fieldset>
  );
}

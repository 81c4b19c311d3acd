// The recovery plan for the last episode, the three actions side by side (what each would write and leave
// behind, which apply now and why the others do not), and a confirmation that lists every write the chosen
// action makes — the operator_action audit record, a torn tail's truncation, each appended record — says so
// when the choice contradicts the recommended plan, and asks for the operator's reason. Absent for exports.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ActionChoice, ActionKind, ActionOutcome, ActionPreview, SessionDetail } from '../../src-shared/ipc.js';
import type { PlannedRecord, RecoveryEntry, UnconfirmedCall } from '../../src-shared/replay.js';
import { writes } from '../queries.js';
import { isRefusedStatus } from '../../src-shared/status.js';
import { PLAN_WORDS } from '../../src-shared/words.js';
import { actionWords, formatTime, inline, writtenWords } from './format.js';
import { OperatorField } from './operator-field.js';
import { useOperatorName, useRecordedWho } from '../operator.js';
import { isOperatorName } from '../../src-shared/ipc.js';

const LABEL: Record<ActionKind, string> = { resume: 'Resume', cancel: 'Cancel run', seal: 'Seal' };

export function RecoveryPanel({ detail }: { detail: SessionDetail }) {
  const key = detail.summary.key;
  const client = useQueryClient();
  // The preview shown is the last one asked for, until a write or Close dismisses it; the outcome shown is the
  // last write's, until another preview is asked for.
  const ask = useMutation({ ...writes.previewAction(key), onSuccess: () => run.reset() });
  const [operator, setOperator] = useOperatorName();
  const run = useMutation(writes.runAction(client, key));
  const preview = ask.data ?? null;
  const outcome = run.data ?? null;
  const write = (value: ActionPreview, reason: string) => run.mutate({ preview: value, reason, operator: operator.trim() }, { onSuccess: () => ask.reset() });
  // Escape or Close gives the focus back to the action button that opened the confirmation (it is disabled
  // while the preview loads, so the focus has left it by the time the confirmation opens).
  const opener = useRef<HTMLButtonElement | null>(null);
  const close = () => {
    ask.reset();
    opener.current?.focus();
  };
  if (detail.read_only) return null;
  if (isRefusedStatus(detail.summary.status)) return <NoRecovery />;
  const plan = detail.resume;
  const unconfirmed = (detail.summary.run?.unconfirmed ?? []).filter((call) => call.acknowledged === null);
  return (
    <section className="panel recovery" aria-label="Recovery" data-testid="recovery-panel">
      <h3>Recovery</h3>
      <p>
        Recommended: <strong data-testid="plan-action" data-action={plan.action} title={PLAN_WORDS[plan.action].meaning}>{PLAN_WORDS[plan.action].label}</strong> — {plan.message}
      </p>
      {plan.indeterminate.length > 0 && <p>Indeterminate (may have run): {plan.indeterminate.join(', ')}</p>}
      {/* While a confirmation is open it lists the records; twice would only push it out of sight. */}
      {preview === null && <RecordList records={plan.records} testid="plan-records" />}
      <CompareActions choices={detail.actions} unconfirmed={unconfirmed} />
      <div className="actions">
        {detail.actions.map((choice) => (
          <button key={choice.kind} type="button" onClick={(event) => { opener.current = event.currentTarget; ask.mutate(choice.kind); }} data-testid={`action-${choice.kind}`}
            disabled={!choice.applies || ask.isPending || run.isPending} title={choice.why} aria-describedby={`why-${choice.kind}`}>
            {LABEL[choice.kind]}…
          </button>
        ))}
      </div>
      {ask.error && <p className="error">{ask.error.message}</p>}
      {preview !== null && <Confirm preview={preview} pending={run.isPending} operator={operator} onOperator={setOperator} onWrite={(reason) => write(preview, reason)} onClose={close} />}
      {run.error && <p className="error">{run.error.message}</p>}
      {outcome !== null && <OutcomeView outcome={outcome} />}
    </section>
  );
}

function NoRecovery() {
  return (
    <section className="panel recovery" aria-label="Recovery" data-testid="recovery-panel">
      <h3>Recovery</h3>
      <p className="muted" data-testid="no-recovery">No recovery is offered for a refused WAL: acting on the part before the refusal could contradict what follows it.</p>
    </section>
  );
}

/** What a written action appended (each record, its seq and fence), or why it was refused. */
function OutcomeView({ outcome }: { outcome: ActionOutcome }) {
  return (
    <div className="outcome" data-testid="action-outcome" data-ok={outcome.ok}>
      {outcome.ok ? (
        <>
          <p>{outcome.message}</p>
          <ul>{outcome.written.map((record) => <li key={record.seq}>seq {record.seq} · {record.type} · fence {record.fence}</li>)}</ul>
        </>
      ) : (
        <p className="refusal">Refused: {outcome.refusal.message}</p>
      )}
    </div>
  );
}

/** The three actions side by side: whether each applies, what it writes, how it ends the run, and why not. */
function CompareActions({ choices, unconfirmed }: { choices: ActionChoice[]; unconfirmed: UnconfirmedCall[] }) {
  return (
    <section className="compare" aria-label="What each action would do now" data-testid="action-compare">
      <h4>What each action would do now</h4>
      <ul>
        {choices.map((choice) => (
          <li key={choice.kind} data-testid={`compare-${choice.kind}`} data-applies={choice.applies} className={choice.applies ? '' : 'muted'}>
            <strong>{LABEL[choice.kind]}</strong>{' '}
            {choice.applies
              ? `— writes ${choice.records} record(s) and the audit record; ${choice.finishes_as === null ? 'leaves the run open' : `ends the run as "${choice.finishes_as}"`}.`
              : '— does not apply now.'}
            <div id={`why-${choice.kind}`} data-testid={`why-${choice.kind}`}>
              {choice.why}
              {choice.contradicts !== null && <span className="warn-text"> {choice.contradicts}</span>}
            </div>
          </li>
        ))}
      </ul>
      {unconfirmed.length > 0 && (
        <p data-testid="compare-unconfirmed">
          Whichever is chosen, these side effects stay unconfirmed: {unconfirmed.map((call) => call.may_have).join('; ')}.
        </p>
      )}
    </section>
  );
}

function Confirm({ preview, pending, operator, onOperator, onWrite, onClose }: { preview: ActionPreview; pending: boolean; operator: string; onOperator: (name: string) => void; onWrite: (reason: string) => void; onClose: () => void }) {
  const who = useRecordedWho();
  const [reason, setReason] = useState('');
  const box = useRef<HTMLDivElement>(null);
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    // The side pane is often taller than the window: the confirmation must not open out of sight.
    box.current?.scrollIntoView({ block: 'nearest' });
    (field.current ?? box.current)?.focus();
  }, [preview]);
  const refusal = preview.refusal;
  return (
    <div className="confirm" role="dialog" aria-modal="true" aria-label={`Confirm ${preview.kind}`} data-testid="confirm-dialog" ref={box} tabIndex={-1}
      onKeyDown={(event) => { if (event.key === 'Escape') { event.stopPropagation(); onClose(); } }}>
      <h4>{preview.kind}: {preview.plan.message}</h4>
      {refusal !== null ? (
        <p className="refusal" data-testid="refusal" data-reason={refusal.reason}>
          Refused: {refusal.message}
          {refusal.reason === 'lease_held' && refusal.holder !== null && ` (lease epoch ${refusal.holder.epoch})`}
        </p>
      ) : (
        <>
          {preview.contradicts !== null && <p className="warn-text" role="alert" data-testid="contradicts">{preview.contradicts}</p>}
          <p>Every write this action makes, in order, under a new lease epoch:</p>
          {preview.tail_repair !== null && (
            <p className="warn-text" data-testid="tail-repair">
              First, the torn tail is cut: {preview.tail_repair.bytes} byte(s) at offset {preview.tail_repair.offset} are truncated from the WAL,
              after a copy of them is kept at <span className="mono">{preview.tail_repair.copy_path}</span>.
            </p>
          )}
          <p className="mono" data-testid="confirm-audit">barrier 1 operator_action — action {preview.kind}, {who}, based on seq {preview.based_on_seq}</p>
          <RecordList records={preview.plan.records} testid="confirm-records" />
          <OperatorField name={operator} onChange={onOperator} />
          <label className="reason">
            Reason (recorded in the WAL with your name):
            <textarea ref={field} value={reason} onChange={(event) => setReason(event.target.value)} rows={2} maxLength={2000} required data-testid="confirm-reason" />
          </label>
        </>
      )}
      <div className="actions">
        {refusal === null && (
          <button type="button" className="danger" onClick={() => onWrite(reason)} disabled={pending || reason.trim() === '' || !isOperatorName(operator)} data-testid="confirm-write">
            Write {preview.plan.records.length + 1} record(s){preview.tail_repair === null ? '' : ' and cut the torn tail'}
          </button>
        )}
        <button type="button" onClick={onClose} data-testid="confirm-close">Close</button>
      </div>
    </div>
  );
}

/** Who recovered this session, when, why, and what each action wrote (operator_action records). */
export function RecoveryHistory({ entries }: { entries: RecoveryEntry[] }) {
  return (
    <section className="panel" aria-label="Recovery history" data-testid="recovery-history">
      <h3>Recovery history</h3>
      {entries.length === 0 ? (
        <p className="muted">No recovery action was recorded in this WAL.</p>
      ) : (
        <ol className="history">
          {[...entries].reverse().map((entry) => (
            <li key={entry.seq} data-testid="recovery-entry" data-action={entry.action}>
              <strong>{actionWords(entry)}</strong> by <span className="mono">{entry.operator}</span>{entry.os_user !== null && entry.os_user !== entry.operator && <span className="muted"> (as {entry.os_user})</span>} via {entry.via} · {entry.ts_ms === null ? 'no time recorded' : formatTime(entry.ts_ms)} · {entry.retired === null ? `seq ${entry.seq}` : 'its successor\'s lineage frame'} · epoch {entry.fence}
              <div>Reason: <q>{entry.reason}</q></div>
              <div className="muted mono" data-testid="recovery-wrote">wrote: {writtenWords(entry)}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function RecordList({ records, testid }: { records: PlannedRecord[]; testid: string }) {
  if (records.length === 0) return <p className="muted" data-testid={testid}>No records to append.</p>;
  return (
    <ol className="planned" data-testid={testid}>
      {records.map((record, index) => (
        <li key={index}>
          <span className="mono">barrier {record.barrier + 1}</span> <strong>{record.type}</strong> <span className="mono muted">{inline(record.payload, 240)}</span>
        </li>
      ))}
    </ol>
  );
}

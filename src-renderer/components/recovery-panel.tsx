// The recovery plan for the last episode, and Resume / Cancel / Seal behind a confirmation that lists the
// exact records each would append. Refused with the holder's pid and host while a live writer holds the
// lease; absent for exports. After an action it shows what was written.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ActionKind, ActionOutcome, ActionPreview, SessionDetail } from '../../src-shared/ipc.js';
import type { PlannedRecord } from '../../src-shared/replay.js';
import { api } from '../api/api.js';
import { keys } from '../queries.js';
import { inline } from './format.js';

const ACTIONS: { kind: ActionKind; label: string }[] = [
  { kind: 'resume', label: 'Resume' },
  { kind: 'cancel', label: 'Cancel run' },
  { kind: 'seal', label: 'Seal' },
];

export function RecoveryPanel({ detail }: { detail: SessionDetail }) {
  const key = detail.summary.key;
  const client = useQueryClient();
  const [preview, setPreview] = useState<ActionPreview | null>(null);
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);
  const ask = useMutation({ mutationFn: (kind: ActionKind) => api.previewAction(key, kind), onSuccess: (value) => { setOutcome(null); setPreview(value); } });
  const run = useMutation({
    mutationFn: (value: ActionPreview) => api.runAction(key, value.kind, value.based_on_seq),
    onSuccess: (value) => {
      setPreview(null);
      setOutcome(value);
      void client.invalidateQueries({ queryKey: keys.session(key) });
    },
  });
  const confirm = useRef<HTMLDivElement>(null);
  // The side pane is often taller than the window: the confirmation must not open out of sight.
  useEffect(() => {
    confirm.current?.scrollIntoView({ block: 'nearest' });
  }, [preview]);
  if (detail.read_only) return null;
  const plan = detail.resume;
  return (
    <section className="panel recovery" aria-label="Recovery" data-testid="recovery-panel">
      <h3>Recovery</h3>
      <p>
        Plan: <strong data-testid="plan-action">{plan.action}</strong> — {plan.message}
      </p>
      {plan.indeterminate.length > 0 && <p>Indeterminate (may have run): {plan.indeterminate.join(', ')}</p>}
      {/* While a confirmation is open it lists the records; twice would only push it out of sight. */}
      {preview === null && <RecordList records={plan.records} testid="plan-records" />}
      <div className="actions">
        {ACTIONS.map((action) => (
          <button key={action.kind} type="button" onClick={() => ask.mutate(action.kind)} data-testid={`action-${action.kind}`} disabled={ask.isPending || run.isPending}>
            {action.label}…
          </button>
        ))}
      </div>
      {ask.error && <p className="error">{ask.error.message}</p>}
      {preview !== null && (
        <div className="confirm" role="dialog" aria-label="Confirm action" data-testid="confirm-dialog" ref={confirm}>
          <h4>{preview.kind}: {preview.plan.message}</h4>
          {preview.refusal !== null ? (
            <p className="refusal" data-testid="refusal" data-reason={preview.refusal.reason}>
              Refused: {preview.refusal.message}
              {preview.refusal.reason === 'lease_held' && preview.refusal.holder !== null && ` (lease epoch ${preview.refusal.holder.epoch})`}
            </p>
          ) : (
            <>
              <p>These records will be appended under a new lease epoch:</p>
              <RecordList records={preview.plan.records} testid="confirm-records" />
            </>
          )}
          <div className="actions">
            {preview.refusal === null && (
              <button type="button" className="danger" onClick={() => run.mutate(preview)} disabled={run.isPending} data-testid="confirm-write">
                Write {preview.plan.records.length} record(s)
              </button>
            )}
            <button type="button" onClick={() => setPreview(null)} data-testid="confirm-close">Close</button>
          </div>
        </div>
      )}
      {run.error && <p className="error">{run.error.message}</p>}
      {outcome !== null && (
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

// What is wrong with the WAL, said once for the session: what kind, where, what is lost and what to do — with
// advice for an export (a copy a customer sent) apart from advice for a session of a state root. A refusal
// (not a WAL, a newer writer, damage, …) is an error; a torn tail, which loses nothing committed, a warning.
import type { SessionDetail } from '../../src-shared/ipc.js';
import { isRefusedStatus, STATUS_LABEL, WHAT_TO_DO } from '../../src-shared/status.js';

export function IntegrityBanner({ detail }: { detail: SessionDetail }) {
  const { torn_tail, in_progress_tail, error } = detail.integrity;
  const { status, run } = detail.summary;
  const where = detail.read_only ? 'export' : 'state_root';
  const durable = run?.last_durable ?? null;
  if (isRefusedStatus(status)) {
    const after_damage = error !== null && (error.kind === 'non_tail_corruption' || error.kind === 'sequence_error');
    return (
      <div className="banner banner-error" role="alert" data-testid="integrity-banner" data-kind={status} data-error={error?.kind}>
        <strong>{STATUS_LABEL[status]}{error?.offset == null ? '' : ` at offset ${error.offset}`}</strong>: <span data-testid="banner-message">{error?.message ?? detail.summary.status_detail}</span>
        {(durable !== null || after_damage) && (
          <div data-testid="banner-lost">
            What is known: {durable === null ? '' : `the last durable state is ${durable}. `}
            {after_damage && 'Nothing after the damage is used; the Records tab lists the frames found after it, unverified.'}
          </div>
        )}
        <div data-testid="banner-advice">What to do: {WHAT_TO_DO[status][where]}.</div>
      </div>
    );
  }
  if (torn_tail !== null) {
    return (
      <div className="banner banner-warn" role="status" data-testid="integrity-banner" data-kind="torn_tail">
        <strong>Torn tail at offset {torn_tail.offset}</strong>: {torn_tail.bytes} byte(s) ({torn_tail.reason.replaceAll('_', ' ')}) were never committed and are not shown.
        {run?.open_end === 'cut' && durable !== null && <div data-testid="banner-lost">What is known: what the run did after them is unknown; the last durable state is {durable}.</div>}
        <div data-testid="banner-advice">What to do: {WHAT_TO_DO.torn_tail[where]}.</div>
      </div>
    );
  }
  if (in_progress_tail !== null) {
    return <div className="banner banner-info" role="status" data-testid="integrity-banner" data-kind="in_progress">A live writer is appending ({in_progress_tail.bytes} bytes at offset {in_progress_tail.offset} not yet complete).</div>;
  }
  return null;
}

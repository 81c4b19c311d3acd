// One row of the session timeline. All WAL content goes through React text nodes.
import type { CallRow, TimelineRow } from '../../src-shared/ipc.js';
import type { JsonPayload } from '../../src-shared/replay.js';
import { noteLabel } from '../../src-shared/compaction.js';
import { ClassChip, ErrorChip } from './chips.js';
import { inline } from './format.js';
import { EpisodeTime, RowTime } from './row-time.js';
import { tokenText } from './waterfall.js';

export function TimelineRowView({ row }: { row: TimelineRow }) {
  switch (row.kind) {
    case 'episode':
      return (
        <div className="tl tl-episode" data-testid="episode-row" data-state={row.state_word}>
          <strong>{row.episode === 0 ? 'Last episode (its number comes with the read from the start)' : `Episode ${row.episode}`}</strong> <span className="mono">{row.run_id ?? '—'}</span>{' '}
          <span className={`badge${row.state_word === row.state ? '' : ' warn'}`} data-testid="episode-state">{row.state_word}</span>
          {row.finish_reason !== null && <span className="badge" data-testid="episode-finish">finished: {row.finish_reason}</span>}
          {row.last_durable !== null && <span className="muted" data-testid="last-durable"> last durable: {row.last_durable}</span>}
          {' '}<EpisodeTime first_ms={row.first_ms} last_ms={row.last_ms} />
        </div>
      );
    case 'input':
      return <div className="tl tl-input"><span className="role">{row.role}</span> <span className="text">{row.text}</span></div>;
    case 'steer':
      return <div className="tl tl-steer"><span className="role">steer</span> {row.title !== null && <strong>{row.title} </strong>}<span className="muted">{row.delivery ?? ''}</span> <span className="text">{row.text}</span></div>;
    case 'step':
      return (
        <div className="tl tl-step">
          <span className="role">step {row.step_id}</span>
          <RowTime at_ms={row.ts_ms} episode_first_ms={row.episode_first_ms} />{' '}
          {row.in_flight && <span className="badge">in flight</span>}
          <span className="text">{row.text}</span>
          <span className="muted"> {row.tool_calls} call(s) · {row.attempts.length} attempt(s){failedAttempts(row.attempts)}{row.usage !== null ? ` · ${usageText(row.usage)}` : ''}</span>
        </div>
      );
    case 'note':
      return <div className="tl tl-note" data-testid="note-row" data-type={row.type}><span className="badge label">{noteLabel(row.type)}</span>{row.step_id !== null && <span className="muted">step {row.step_id}</span>} <span className="text">{row.summary}</span></div>;
    case 'batch':
      return (
        <div className="tl tl-batch">
          <strong>batch {row.batch_id}</strong> <span className="muted">{row.sequential ? 'sequential' : 'parallel'} · step {row.step_id ?? '—'} · {row.finished ? 'finished' : 'open'}{row.committable ? '' : ' · not committable'}{row.mixed_crash ? ' · mixed crash' : ''}</span>
        </div>
      );
    case 'call': {
      const call = row.call;
      return (
        <div className="tl tl-call" data-testid="call-row" data-call={call.tool_call_id} data-class={call.class} data-error={call.is_error}>
          <ClassChip value={call.class} />
          {call.is_error && <ErrorChip />}
          <span className="mono">{call.tool_call_id}</span> <strong>{call.name}</strong>{' '}
          <RowTime at_ms={call.dispatched_at_ms} until_ms={call.finished_at_ms} episode_first_ms={row.episode_first_ms} open={callAnswered(call) ? 'no finish time recorded' : call.held !== null ? 'still held' : 'no result yet'} />
          {call.held !== null && <span className="badge held" data-testid="held-info">held by {call.held.module} · key {call.held.call_key}{call.successors.length > 0 ? ` · waiting: ${call.successors.join(', ')}` : ''}</span>}
          {call.behind !== null && <span className="badge" data-testid="behind-info">behind {call.behind}</span>}
          <span className="mono muted cell">{inline(call.args, 80)}</span>
          <span className="mono cell">{outcomeText(call)}</span>
        </div>
      );
    }
    case 'approval':
      return <div className="tl tl-approval"><span className="badge">approval</span> <span className="mono">{row.tool_call_id}</span> {row.decision ?? 'pending'}</div>;
    case 'event':
      return <div className="tl tl-event"><span className="badge">{row.type}</span> <span className="text">{row.summary}</span></div>;
    case 'anomaly':
      return <div className="tl tl-anomaly"><span className="badge warn">{row.anomaly}</span> <span className="text">{row.message}</span></div>;
  }
}

/** Outcome, error, reason and output, leaving out what is not there (a call without a result shows nothing). */
export function outcomeText(call: CallRow): string {
  const outcome = call.outcome === null ? null : call.is_error ? `${call.outcome}, is_error` : call.outcome;
  const reason = call.reason === null ? null : `(${call.reason})`;
  const output = call.output === null ? null : inline(call.output, 80);
  return [outcome, reason, output].filter((part) => part !== null).join(' ');
}

/** A terminal record is there (a result, an error, a no-dispatch), whether or not it carries a finish time. */
function callAnswered(call: CallRow): boolean {
  return call.outcome !== null || call.reason !== null || call.is_error || call.output !== null;
}

function failedAttempts(attempts: { outcome: string | null }[]): string {
  const failed = attempts.filter((attempt) => attempt.outcome !== null && attempt.outcome !== 'completed').length;
  return failed === 0 ? '' : ` (${failed} failed)`;
}

/** A step's usage as its token counts (the provider's numeric fields), the way the header and waterfall say them. */
function usageText(usage: JsonPayload): string {
  const counts = Object.fromEntries(Object.entries(usage).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
  return Object.keys(counts).length === 0 ? inline(usage, 60) : `tokens ${tokenText(counts)}`;
}

// One row of the session timeline. All WAL content goes through React text nodes.
import { compactCount } from '../../src-shared/blocks.js';
import type { CallRow, TimelineRow } from '../../src-shared/ipc.js';
import type { JsonPayload } from '../../src-shared/replay.js';
import { noteLabel } from '../../src-shared/compaction.js';
import { BlocksInline } from './blocks.js';
import { formatUsd } from '../../src-shared/format.js';
import { ClassChip, ErrorChip } from './chips.js';
import { EpisodeTime, RowTime } from './row-time.js';

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
      // The model's words first; its calls have rows of their own below.
      return (
        <div className="tl tl-step" data-testid="step-row" data-step={row.step_id}>
          <span className="role">step {row.step_id}</span>
          {row.in_flight && <span className="badge">in flight</span>}
          <BlocksInline blocks={row.blocks.filter((block) => block.type !== 'tool_use')} />
          <span className="muted tl-meta" data-testid="step-meta">{stepMeta(row)}</span>
          <RowTime at_ms={row.ts_ms} episode_first_ms={row.episode_first_ms} />
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
      const ended = endedText(call);
      // What it did, how it ended, how long it took, what it said first; its id is in the detail.
      return (
        <div className={`tl tl-call${row.batch === null ? '' : ' tl-call-alone'}`} data-testid="call-row" data-call={call.tool_call_id} data-class={call.class} data-error={call.is_error}>
          <ClassChip value={call.class} />
          {call.is_error && <ErrorChip />}
          <strong className="tool-name" title={call.tool_call_id}>{call.name}</strong>
          {call.args_gist !== null && <span className="mono call-gist" data-testid="call-gist" title={call.args_gist}>{call.args_gist}</span>}
          {ended !== '' && <span className="muted call-ended">{ended}</span>}
          <RowTime at_ms={call.dispatched_at_ms} until_ms={call.finished_at_ms} episode_first_ms={row.episode_first_ms} open={callAnswered(call) ? 'no finish time recorded' : call.held !== null ? 'still held' : 'no result yet'} duration_only />
          {call.held !== null && <span className="badge held" data-testid="held-info">held by {call.held.module} · key {call.held.call_key}{call.successors.length > 0 ? ` · waiting: ${call.successors.join(', ')}` : ''}</span>}
          {call.behind !== null && <span className="badge" data-testid="behind-info">behind {call.behind}</span>}
          {call.output_line !== null && <span className="mono muted call-output-line" data-testid="call-output-line">{call.output_line}</span>}
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

/** How a call ended, beyond its class chip: an outcome its class does not already say, and the reason. */
function endedText(call: CallRow): string {
  const outcome = call.outcome === null || call.outcome === call.class ? null : call.outcome;
  const reason = call.reason === null ? null : `(${call.reason})`;
  return [outcome, reason].filter((part) => part !== null).join(' ');
}

/** A terminal record is there (a result, an error, a no-dispatch), whether or not it carries a finish time. */
function callAnswered(call: CallRow): boolean {
  return call.outcome !== null || call.reason !== null || call.is_error || call.output !== null;
}

/** A step's calls, its retried or failed attempts and its tokens, leaving out what is not there. */
function stepMeta(row: Extract<TimelineRow, { kind: 'step' }>): string {
  const failed = row.attempts.filter((attempt) => attempt.outcome !== null && attempt.outcome !== 'completed').length;
  const parts = [
    row.tool_calls === 0 ? '' : `${row.tool_calls} call${row.tool_calls === 1 ? '' : 's'}`,
    row.attempts.length > 1 ? `${row.attempts.length} attempts` : '',
    failed === 0 ? '' : `${failed} failed`,
    row.usage === null ? '' : usageWords(row.usage),
    row.cost_usd === null ? '' : formatUsd(row.cost_usd),
  ];
  return parts.filter((part) => part !== '').join(' · ');
}

/** Input and output tokens, compact ("5.6k in · 101 out"); cache counts and the rest are in the detail. */
function usageWords(usage: JsonPayload): string {
  const count = (key: string) => (typeof usage[key] === 'number' ? compactCount(usage[key]) : null);
  const input = count('input_tokens');
  const output = count('output_tokens');
  return [input === null ? '' : `${input} in`, output === null ? '' : `${output} out`].filter((part) => part !== '').join(' · ');
}

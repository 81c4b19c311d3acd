// An episode's work on one time axis, as its records carry it: model steps (with failed attempts), batches
// and calls from dispatch to result, a held call's wait (open-ended while the provider owes its result). Times
// are the WAL's own; an episode whose records carry none says so instead of showing invented bars.
import type { EpisodeTiming } from '../../src-shared/replay.js';
import { costText } from '../../src-shared/format.js';
import { formatTime } from './format.js';

export function Waterfall({ timing }: { timing: EpisodeTiming }) {
  return (
    <section className="panel" aria-label={`Episode ${timing.episode} timing`} data-testid="waterfall" data-episode={timing.episode}>
      <h3>Episode {timing.episode}: time, tokens and cost</h3>
      <dl className="fields" data-testid="episode-totals">
        <dt>tokens</dt><dd>{tokenText(timing.tokens)}</dd>
        <dt>cost</dt><dd data-testid="episode-cost">{costText(timing.cost)}</dd>
        <dt>failed</dt><dd>{timing.failed_attempts} model attempt(s)</dd>
        <dt>time</dt><dd data-testid="episode-time">{timing.times_recorded ? `${formatTime(timing.first_ms)} → ${formatTime(timing.last_ms)} (${duration(timing.first_ms!, timing.last_ms)})` : 'This WAL records no times for this episode.'}</dd>
      </dl>
      {timing.times_recorded && <Bars timing={timing} />}
      {timing.spans_cut && <p className="muted">Only the first {timing.spans.length} bars are drawn.</p>}
    </section>
  );
}

function Bars({ timing }: { timing: EpisodeTiming }) {
  const first = timing.first_ms!;
  const span_ms = Math.max(1, timing.last_ms! - first);
  return (
    <table className="waterfall">
      <caption className="muted">0 = {formatTime(first)}; bars on one axis of {duration(first, timing.last_ms)}</caption>
      <thead><tr><th scope="col">What</th><th scope="col">Start</th><th scope="col">Took</th><th scope="col">On the axis</th></tr></thead>
      <tbody>
        {timing.spans.map((span, index) => {
          const end = span.end_ms ?? timing.last_ms!;
          const left = ((span.start_ms - first) / span_ms) * 100;
          const width = Math.max(0.5, ((end - span.start_ms) / span_ms) * 100);
          return (
            <tr key={index} data-testid="waterfall-bar" data-kind={span.kind} data-open={span.end_ms === null}>
              <th scope="row" className={`wf-label wf-${span.kind}`}>{span.label}{span.failed > 0 ? (span.kind === 'step' ? ` (${span.failed} retried)` : ' (error)') : ''}</th>
              <td className="mono">+{seconds(span.start_ms - first)}</td>
              <td className="mono">{span.end_ms === null ? 'still waiting' : seconds(span.end_ms - span.start_ms)}</td>
              <td className="wf-track"><span className={`wf-bar wf-${span.kind}${span.end_ms === null ? ' wf-open' : ''}${span.ended === 'error' ? ' wf-failed' : ''}`} style={{ marginLeft: `${left}%`, width: `${Math.min(width, 100 - left)}%` }} /></td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function tokenText(tokens: Record<string, number>): string {
  const entries = Object.entries(tokens);
  return entries.length === 0 ? 'no usage recorded' : entries.map(([key, value]) => `${key.replace(/_tokens$/, '')} ${value.toLocaleString()}`).join(' · ');
}

function duration(from_ms: number, to_ms: number | null): string {
  return to_ms === null ? '—' : seconds(to_ms - from_ms);
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

// When a timeline row happened, on the WAL's own clock: the absolute time and how far into its episode, or
// nothing on a row whose records carry none (nothing is invented; the episode row says once that the WAL records
// no times). The same clock as the waterfall.
import { formatTime } from './format.js';
import { seconds } from './waterfall.js';

/** An episode's span: first → last recorded time, or that the WAL records none for it. */
export function EpisodeTime({ first_ms, last_ms }: { first_ms: number | null; last_ms: number | null }) {
  if (first_ms === null || last_ms === null) return <span className="muted row-time" data-testid="row-time" data-recorded="false">no times recorded in this WAL</span>;
  const same_day = new Date(first_ms).toDateString() === new Date(last_ms).toDateString();
  return (
    <span className="muted mono row-time" data-testid="row-time" data-recorded="true" data-ms={first_ms} title={`${formatTime(first_ms)} → ${formatTime(last_ms)}`}>
      {formatTime(first_ms)} → {same_day ? new Date(last_ms).toLocaleTimeString() : formatTime(last_ms)} ({seconds(last_ms - first_ms)})
    </span>
  );
}

/** A step's or call's time: how far into the episode (first, so a narrow row keeps it), the clock time (the full
 *  date in its tooltip), and how long it took. */
export function RowTime({ at_ms, until_ms, episode_first_ms, open, duration_only = false }: { at_ms: number | null; until_ms?: number | null; episode_first_ms: number | null; open?: string; duration_only?: boolean }) {
  // No time recorded: nothing said (the episode row says once that the WAL records none).
  if (at_ms === null) return null;
  const into = episode_first_ms === null ? '' : `+${seconds(at_ms - episode_first_ms)} · `;
  const took = until_ms === undefined ? '' : until_ms === null ? (open ?? 'no end recorded') : `took ${seconds(until_ms - at_ms)}`;
  const when = `${into}${new Date(at_ms).toLocaleTimeString()}`;
  // A call's row says how long it took; when it started is in the tooltip (and on the waterfall).
  const shown = duration_only && took !== '' ? took : took === '' ? when : `${when} · ${took}`;
  return (
    <time className="muted mono row-time" dateTime={new Date(at_ms).toISOString()} title={`${formatTime(at_ms)} (${when})`} data-testid="row-time" data-recorded="true" data-ms={at_ms}>
      {shown}
    </time>
  );
}

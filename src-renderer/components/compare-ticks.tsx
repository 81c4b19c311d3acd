// Two sessions ticked in a list (the workspace's or a fleet's, any hosts) and compared: a tick box beside each row,
// at most two ticked (the others wait), and "Compare" once two are, which opens the comparison (location.ts).
import { useState, type ReactNode } from 'react';
import { openComparison } from '../location.js';

export interface Ticks {
  ticked: readonly string[];
  box(key: string, label?: string): ReactNode;
  clear(): void;
}

/** Sessions compared at once: A and B. */
const TICKS_MAX = 2;

/** The ticked sessions of a list whose keys are `listed` (null: not known whole, as a fleet's paged list: ticks
 *  are kept as they are). A ticked session that leaves the list is unticked. */
export function useTicks(listed: readonly string[] | null): Ticks {
  const [ticked, setTicked] = useState<readonly string[]>([]);
  const kept = listed === null ? ticked : ticked.filter((key) => listed.includes(key));
  const toggle = (key: string) => setTicked(kept.includes(key) ? kept.filter((other) => other !== key) : [...kept, key].slice(-TICKS_MAX));
  return {
    ticked: kept,
    box: (key, label = key) => (
      <input
        type="checkbox"
        className="compare-tick"
        checked={kept.includes(key)}
        disabled={!kept.includes(key) && kept.length >= TICKS_MAX}
        onChange={() => toggle(key)}
        aria-label={`Tick ${label} to compare`}
        title="Tick two sessions to compare them"
        // Not a tab stop of its own: the list stays one (its arrow keys), and the keyboard's way to a comparison
        // is "Compare with…" on the session's header.
        tabIndex={-1}
        data-testid="compare-tick"
        data-session={key}
      />
    ),
    clear: () => setTicked([]),
  };
}

/** What the ticks lead to: nothing until one is ticked, then a hint, then "Compare" with both named. */
export function CompareTicked({ ticks }: { ticks: Ticks }) {
  if (ticks.ticked.length === 0) return null;
  const [a, b] = ticks.ticked;
  return (
    <div className="compare-ticked" data-testid="compare-ticked">
      {b === undefined ? <span className="muted">Tick one more session to compare it with <span className="mono">{a}</span></span> : (
        <button type="button" onClick={() => { openComparison({ a: a!, b, episode: null }); ticks.clear(); }} data-testid="compare-ticked-open" title={`Compare ${a} (A) with ${b} (B)`}>Compare <span className="mono">{a}</span> with <span className="mono">{b}</span></button>
      )}
      <button type="button" onClick={ticks.clear} data-testid="compare-ticked-clear">Untick</button>
    </div>
  );
}

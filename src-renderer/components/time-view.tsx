// An episode's work on one time axis, across the session's full width: each step, its batch and its calls in
// rows of their own (parallel calls side by side in time), coloured by how each ended (a step retried after a
// failed attempt answered, so it is not drawn as failed), zoomable, with what a bar is said on hover and focus,
// and following the end of a live episode. The times are the WAL's own (replay/timing.ts): an episode whose
// records carry none says so, and nothing is drawn.
import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { SessionDetail } from '../../src-shared/ipc.js';
import type { EpisodeTiming, SpanEnd, TimedSpan } from '../../src-shared/replay.js';
import { SPAN_END_WORDS } from '../../src-shared/words.js';
import { queries } from '../queries.js';
import { formatTime } from './format.js';
import { seconds } from './waterfall.js';

const ROW_PX = 22;
const LABEL_PX = 220;
/** Ticks are at least this far apart on the axis. */
const TICK_GAP_PX_MIN = 90;
const TICK_STEPS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];
/** Zoom: a factor per step; in as far as a millisecond this wide or 64 times the fitted scale, out to a quarter. */
const ZOOM_STEP = 2;
const PX_PER_MS_MAX = 4;
const ZOOM_IN_OVER_FIT_MAX = 64;
/** Rows drawn beyond the visible ones. */
const OVERSCAN_ROWS = 12;

export function TimeView({ detail }: { detail: SessionDetail }) {
  const last = detail.timing.at(-1) ?? null;
  const [episode, setEpisode] = useState<number | null>(null);
  const shown = episode ?? last?.episode ?? null;
  const asked = useQuery(queries.timing(detail.summary.key, shown, last));
  if (last === null) return <p className="muted time-view" data-testid="time-view">This session has no episode yet.</p>;
  return (
    <section className="time-view" aria-label="Time" data-testid="time-view">
      <div className="tv-tools">
        <label>
          Episode{' '}
          <select value={shown ?? ''} onChange={(event) => setEpisode(Number(event.target.value))} data-testid="time-episode">
            {Array.from({ length: last.episode }, (_, index) => index + 1).map((number) => <option key={number} value={number}>{number}{number === last.episode ? ' (last)' : ''}</option>)}
          </select>
        </label>
        <Legend />
      </div>
      {asked.data === undefined ? <p className="muted">{asked.error?.message ?? 'reading…'}</p> : <TimeChart key={asked.data.episode} timing={asked.data} live={detail.summary.status === 'running'} />}
    </section>
  );
}

function Legend() {
  return (
    <ul className="tv-legend" aria-label="Colours">
      {(Object.keys(SPAN_END_WORDS) as SpanEnd[]).map((ended) => <li key={ended}><span className={`tv-swatch tv-ended-${ended}`} aria-hidden="true" /> {SPAN_END_WORDS[ended]}</li>)}
    </ul>
  );
}

/** The rows of the chart: a step, then its batch, then its calls and held waits, in the order the steps ran. */
export function chartRows(spans: readonly TimedSpan[]): TimedSpan[] {
  const order = { step: 0, batch: 1, call: 2, held: 2 } as const;
  const firsts = new Map<number | null, number>();
  spans.forEach((span, index) => firsts.has(span.step_id) || firsts.set(span.step_id, index));
  return spans
    .map((span, index) => ({ span, index }))
    .sort((a, b) => firsts.get(a.span.step_id)! - firsts.get(b.span.step_id)! || order[a.span.kind] - order[b.span.kind] || a.index - b.index)
    .map((entry) => entry.span);
}

function TimeChart({ timing, live }: { timing: EpisodeTiming; live: boolean }) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => chartRows(timing.spans), [timing.spans]);
  const { scale, fit, zoom } = useZoom(scroller, timing);
  const [hovered, setHovered] = useState<TimedSpan | null>(null);
  const [follow, setFollow] = useState(live);
  const [scroll_left, setScrollLeft] = useState(0);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: OVERSCAN_ROWS });
  const first = timing.first_ms;
  const width_px = first === null || timing.last_ms === null ? 0 : Math.ceil((timing.last_ms - first) * scale) + 24;
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element !== null && live && follow) element.scrollLeft = element.scrollWidth;
  }, [live, follow, width_px, timing.spans]);
  if (!timing.times_recorded || first === null) return <p className="muted" data-testid="time-none">This WAL records no times for episode {timing.episode}: there is nothing to draw.</p>;
  const onKey = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    const by = { '+': ZOOM_STEP, '=': ZOOM_STEP, '-': 1 / ZOOM_STEP }[event.key];
    if (by !== undefined) zoom(by);
    else if (event.key === '0') fit();
    else return;
    event.preventDefault();
  };
  return (
    <div className="tv-body">
      <div className="tv-tools">
        <span className="muted" data-testid="time-span">{formatTime(first)} → {formatTime(timing.last_ms)} ({seconds(timing.last_ms! - first)}), {rows.length} bars{timing.spans_cut ? ' (the first ones only)' : ''}</span>
        <span role="group" aria-label="Zoom">
          <button type="button" onClick={() => zoom(1 / ZOOM_STEP)} aria-label="Zoom out" data-testid="time-zoom-out">−</button>{' '}
          <button type="button" onClick={fit} data-testid="time-fit">Fit</button>{' '}
          <button type="button" onClick={() => zoom(ZOOM_STEP)} aria-label="Zoom in" data-testid="time-zoom-in">+</button>
        </span>
        {live && <label><input type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} data-testid="time-follow" /> follow the end</label>}
      </div>
      <p className="tv-hover mono" aria-live="polite" data-testid="time-hover">{hovered === null ? 'Hover or focus a bar to read it; + and − zoom, 0 fits, Ctrl+wheel zooms where the pointer is.' : spanWords(hovered, first)}</p>
      <div className="tv-scroll" ref={scroller} tabIndex={0} role="region" aria-label={`Episode ${timing.episode} on one time axis`} onKeyDown={onKey}
        onScroll={(event) => {
          const element = event.currentTarget;
          setScrollLeft(element.scrollLeft);
          if (element.scrollLeft + element.clientWidth < element.scrollWidth - 4) setFollow(false);
        }} data-testid="time-chart" data-scale={scale}>
        <div className="tv-canvas" style={{ width: LABEL_PX + width_px, height: virtual.getTotalSize() + ROW_PX }}>
          <Axis first_ms={first} scale={scale} width_px={width_px} scroll_left={scroll_left} view_px={scroller.current?.clientWidth ?? 1_000} />
          {virtual.getVirtualItems().map((item) => {
            const span = rows[item.index]!;
            return <BarRow key={item.index} span={span} first_ms={first} last_ms={timing.last_ms!} scale={scale} top_px={item.start + ROW_PX} onHover={setHovered} />;
          })}
        </div>
      </div>
    </div>
  );
}

function BarRow({ span, first_ms, last_ms, scale, top_px, onHover }: { span: TimedSpan; first_ms: number; last_ms: number; scale: number; top_px: number; onHover: (span: TimedSpan | null) => void }) {
  const end_ms = span.end_ms ?? last_ms;
  const left_px = (span.start_ms - first_ms) * scale;
  const width_px = Math.max(3, (end_ms - span.start_ms) * scale);
  const words = spanWords(span, first_ms);
  return (
    <div className={`tv-row tv-kind-${span.kind}`} style={{ top: top_px }} data-testid="time-row" data-kind={span.kind} data-ended={span.ended}>
      <span className="tv-label mono" title={span.label}>{span.label}{span.failed > 0 && span.kind === 'step' ? ` (${span.failed} retried)` : ''}</span>
      <button type="button" className={`tv-bar tv-ended-${span.ended}${span.failed > 0 && span.kind === 'step' ? ' tv-retried' : ''}`} style={{ left: LABEL_PX + left_px, width: width_px }}
        aria-label={words} title={words} onMouseEnter={() => onHover(span)} onFocus={() => onHover(span)} onMouseLeave={() => onHover(null)} data-testid="time-bar" />
    </div>
  );
}

/** A bar in words: what, when from the episode's first time, how long, how it ended, its record. */
export function spanWords(span: TimedSpan, first_ms: number): string {
  const took = span.end_ms === null ? 'still open' : `took ${seconds(span.end_ms - span.start_ms)}`;
  const retried = span.kind === 'step' && span.failed > 0 ? `, after ${span.failed} failed attempt${span.failed === 1 ? '' : 's'}` : '';
  return `${span.label}: from +${seconds(span.start_ms - first_ms)}, ${took}, ${SPAN_END_WORDS[span.ended]}${retried}${span.seq === null ? '' : ` (seq ${span.seq})`}`;
}

/** The axis's ticks in view only: zoomed in on an hour-long episode, the axis is millions of pixels long. */
function Axis({ first_ms, scale, width_px, scroll_left, view_px }: { first_ms: number; scale: number; width_px: number; scroll_left: number; view_px: number }) {
  const step_ms = TICK_STEPS_MS.find((step) => step * scale >= TICK_GAP_PX_MIN) ?? TICK_STEPS_MS.at(-1)!;
  const from = Math.max(0, Math.floor((scroll_left - LABEL_PX) / scale / step_ms) * step_ms);
  const to = Math.min(width_px / scale, (scroll_left + view_px) / scale);
  const ticks: number[] = [];
  for (let at = from; at <= to && ticks.length < 200; at += step_ms) ticks.push(at);
  return (
    <div className="tv-axis" aria-hidden="true">
      {ticks.map((at) => <span key={at} className="tv-tick mono" style={{ left: LABEL_PX + at * scale }}>+{seconds(at)}</span>)}
      <span className="tv-axis-zero mono">0 = {formatTime(first_ms)}</span>
    </div>
  );
}

/** Pixels per millisecond: fitted to the pane's width at first, then zoomed by buttons, keys or Ctrl+wheel
 *  (which keeps the time under the pointer where it is). */
function useZoom(scroller: React.RefObject<HTMLDivElement | null>, timing: EpisodeTiming) {
  const span_ms = Math.max(1, (timing.last_ms ?? 0) - (timing.first_ms ?? 0));
  const fitted = () => Math.max(1e-9, ((scroller.current?.clientWidth ?? 1_000) - LABEL_PX - 32) / span_ms);
  const [scale, setScale] = useState<number | null>(null);
  const [fitted_px_per_ms, setFitted] = useState(() => fitted());
  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => setFitted(fitted()));
    observer.observe(element);
    return () => observer.disconnect();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the fitted scale is remade when the episode's span changes
  }, [span_ms]);
  const current = scale ?? fitted_px_per_ms;
  const bounded = (next: number) => Math.min(Math.max(PX_PER_MS_MAX, fitted_px_per_ms * ZOOM_IN_OVER_FIT_MAX), Math.max(fitted_px_per_ms / 4, next));
  const zoom = (by: number, pointer_px?: number) => {
    const element = scroller.current;
    const next = bounded(current * by);
    if (element !== null) {
      const at_px = pointer_px ?? element.clientWidth / 2;
      const time_ms = (element.scrollLeft + at_px - LABEL_PX) / current;
      requestAnimationFrame(() => (element.scrollLeft = Math.max(0, time_ms * next + LABEL_PX - at_px)));
    }
    setScale(next);
  };
  // React's wheel listener is passive, so it cannot keep the page from zooming: Ctrl+wheel is listened to here.
  const zoom_now = useRef(zoom);
  zoom_now.current = zoom;
  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const onWheel = (event: WheelEvent) => {
      if (!event.ctrlKey) return;
      event.preventDefault();
      zoom_now.current(event.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, event.clientX - element.getBoundingClientRect().left);
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, [scroller]);
  return { scale: current, fit: () => setScale(null), zoom };
}

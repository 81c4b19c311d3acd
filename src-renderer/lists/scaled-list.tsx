// A windowed list of fixed-height rows that stays exact past the browser's ~33.5 million-pixel element
// limit: the scroll spacer is capped at SPACER_PX_MAX and the scroll position maps to a fractional first row
// (below the cap the mapping is the identity, so small lists scroll exactly as usual). Rows are drawn in a
// sticky layer, so the browser's own scrolling never moves them between frames; the wheel is taken over
// when scaled, so one notch moves the same distance at any size.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';

export const SPACER_PX_MAX = 8_000_000;
const OVERSCAN_ROWS = 6;

export interface ScaledListProps {
  total: number;
  row_height_px: number;
  renderRow: (index: number) => ReactNode;
  /** A row to bring into view; a new object each time it is asked for. */
  reveal: { index: number } | null;
  /** Stick to the bottom as the list grows. */
  follow: boolean;
  onScrolledAway?: () => void;
  /** Told the first visible row whenever it changes, so the owner fetches the pages around it. */
  onFirstRow?: (first: number) => void;
  label: string;
  testid?: string;
}

export function ScaledList(props: ScaledListProps) {
  const { total, row_height_px: h } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const viewport_px = useViewportHeight(scroller);
  // A list that mounts following its end (a session opened at its tail) draws its end from the first frame,
  // not its first rows until the scroll event comes.
  const [scroll_px, setScroll] = useState(() => (props.follow ? Number.MAX_SAFE_INTEGER : 0));
  const content_px = total * h;
  const spacer_px = Math.min(content_px, SPACER_PX_MAX);
  const range_px = Math.max(0, spacer_px - viewport_px);
  const rows_range = Math.max(0, total - viewport_px / h);
  const scaled = content_px > SPACER_PX_MAX;

  const firstExact = range_px === 0 ? 0 : (Math.min(scroll_px, range_px) / range_px) * rows_range;
  const toScroll = useCallback((first_row: number) => (rows_range === 0 ? 0 : (first_row / rows_range) * range_px), [rows_range, range_px]);

  useScaledWheel(scroller, scaled, h, rows_range, firstExact, toScroll);

  useEffect(() => {
    if (props.follow && scroller.current !== null) scroller.current.scrollTop = spacer_px;
  }, [props.follow, spacer_px, total]);

  useReveal(scroller, props.reveal, viewport_px / h, firstExact, toScroll);

  const first_visible = Math.floor(firstExact);
  const { onFirstRow } = props;
  useEffect(() => onFirstRow?.(first_visible), [first_visible, onFirstRow]);

  const first = Math.max(0, first_visible - OVERSCAN_ROWS);
  const last = Math.min(total, Math.ceil(firstExact + viewport_px / h) + OVERSCAN_ROWS);
  const rows: ReactNode[] = [];
  for (let index = first; index < last; index++) {
    rows.push(
      <div key={index} className="list-row" style={{ top: (index - firstExact) * h, height: h }} data-row={index}>
        {props.renderRow(index)}
      </div>,
    );
  }
  return (
    <div
      className="scaled-list"
      ref={scroller}
      // A listbox of options (the rows say aria-selected); focusable, so a keyboard reaches and scrolls it.
      role="listbox"
      tabIndex={0}
      aria-label={props.label}
      data-testid={props.testid}
      data-total={total}
      data-first={Math.floor(firstExact)}
      onScroll={(event) => {
        const element = event.currentTarget;
        setScroll(element.scrollTop);
        if (props.follow && element.scrollTop + element.clientHeight < spacer_px - h) props.onScrolledAway?.();
      }}
    >
      <div style={{ height: Math.max(spacer_px, 1), position: 'relative' }}>
        <div className="list-layer" style={{ height: viewport_px }}>{rows}</div>
      </div>
    </div>
  );
}

/** The scroller's height, kept as it resizes. */
function useViewportHeight(scroller: RefObject<HTMLDivElement | null>): number {
  const [viewport_px, setViewport] = useState(600);
  useLayoutEffect(() => {
    const element = scroller.current!;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    setViewport(element.clientHeight);
    return () => observer.disconnect();
  }, [scroller]);
  return viewport_px;
}

/** When scaled, one wheel notch moves the same rows as in a short list (the browser's would move by pixels of the
 *  capped spacer, hundreds of rows at a million). */
function useScaledWheel(scroller: RefObject<HTMLDivElement | null>, scaled: boolean, h: number, rows_range: number, firstExact: number, toScroll: (first_row: number) => number): void {
  useEffect(() => {
    const element = scroller.current!;
    if (!scaled) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const delta_rows = (event.deltaMode === 1 ? event.deltaY * h : event.deltaY) / h;
      element.scrollTop = toScroll(Math.min(rows_range, Math.max(0, firstExact + delta_rows)));
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, [scroller, scaled, h, rows_range, firstExact, toScroll]);
}

/** Brings a row asked for into view (a third down), unless it is in view already. */
function useReveal(scroller: RefObject<HTMLDivElement | null>, reveal: { index: number } | null, visible_rows: number, firstExact: number, toScroll: (first_row: number) => number): void {
  useEffect(() => {
    const element = scroller.current;
    if (reveal === null || element === null) return;
    const index = reveal.index;
    if (index < firstExact || index + 1 > firstExact + visible_rows) element.scrollTop = toScroll(Math.max(0, index - visible_rows / 3));
    // Only a new reveal request moves the list, not every scroll.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal]);
}

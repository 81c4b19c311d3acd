// A tool output as a terminal shows it (src-shared/terminal-text.ts): its colours as inline styles on React
// text spans (never markup), its rows virtualized so an output of 100,000 lines scrolls as one of ten, long lines
// wrapped or scrolled sideways, and a copy of its plain text. A recorded output is read from its record a page
// at a time (`getOutput`); a preview (a transcript's tool result) is laid out here.
import { useQueries, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import type { OutputPage } from '../../src-shared/ipc.js';
import type { JsonValue } from '../../src-shared/replay.js';
import { OUTPUT_COPY_CHARS_MAX, outputText, rowsText, terminalRows, type TerminalRow, type TerminalSpan } from '../../src-shared/terminal-text.js';
import { OUTPUT_VIEW_PAGE_ROWS, queries } from '../queries.js';

/** A row's height unwrapped (the CSS's line-height: .terminal-row). */
const ROW_PX = 18;

/** The output of the tool_result at `seq`, read a page at a time. */
export function RecordedOutput({ session_key, seq, preview, label = 'output', testid }: { session_key: string; seq: number; preview: JsonValue; label?: string; testid?: string }) {
  const client = useQueryClient();
  const first = useQuery(queries.outputPage(session_key, seq, 0));
  const [pages, setPages] = useState({ first: 0, last: 0 });
  const shown = useQueries({ queries: pageRange(pages).map((page) => queries.outputPage(session_key, seq, page)) });
  // Not readable now (a session still being read has not indexed it yet): the row's preview stands in.
  if (first.error !== null) return <><TerminalText text={outputText(preview)} label={label} testid={testid} /><p className="muted">The whole output does not read now: {first.error.message}</p></>;
  if (first.data === undefined) return <p className="muted">reading the output…</p>;
  const loaded = new Map<number, OutputPage>();
  for (const result of shown) if (result.data !== undefined) loaded.set(result.data.start, result.data);
  loaded.set(0, first.data);
  const rowAt = (index: number) => {
    const page = loaded.get(index - (index % OUTPUT_VIEW_PAGE_ROWS));
    return page?.rows[index - page.start];
  };
  const about = `${count(first.data.lines, 'line')} · ${count(first.data.chars, 'character')}`;
  return <TerminalBox label={label} testid={testid} about={about} total_rows={first.data.total_rows} rowAt={rowAt} onPages={setPages} copy={() => copyRecorded(client, session_key, seq, first.data)} />;
}

/** A text laid out here: a preview the row carries. */
export function TerminalText({ text, label = 'output', testid }: { text: string; label?: string; testid?: string }) {
  const rows = useMemo(() => terminalRows(text).rows, [text]);
  const about = `${count(rows.filter((row) => !row.continued).length, 'line')} · ${count(text.length, 'character')}`;
  return <TerminalBox label={label} testid={testid} about={about} total_rows={rows.length} rowAt={(index) => rows[index]} onPages={ignorePages} copy={async () => ({ text: rowsText(rows, false), note: 'Copied the output.' })} />;
}

function ignorePages(): void {}

function TerminalBox({ label, testid, about, total_rows, rowAt, onPages, copy }: {
  label: string;
  testid: string | undefined;
  about: string;
  total_rows: number;
  rowAt: (index: number) => TerminalRow | undefined;
  onPages: (pages: { first: number; last: number }) => void;
  copy: () => Promise<{ text: string; note: string }>;
}) {
  const [wrap, setWrap] = useState(false);
  /** Over the whole window rather than in the side pane: a long line needs the width. */
  const [full, setFull] = useState(false);
  const [copied, setCopied] = useState('');
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: total_rows, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 30 });
  const items = virtualizer.getVirtualItems();
  const first_page = Math.floor((items[0]?.index ?? 0) / OUTPUT_VIEW_PAGE_ROWS);
  const last_page = Math.floor((items.at(-1)?.index ?? 0) / OUTPUT_VIEW_PAGE_ROWS);
  useEffect(() => onPages({ first: first_page, last: last_page }), [onPages, first_page, last_page]);
  // Wrapped rows differ in height: measured as they are drawn, and again when the setting changes.
  useEffect(() => virtualizer.measure(), [virtualizer, wrap, full]);
  const onCopy = async () => {
    setCopied('copying…');
    try {
      const { text, note } = await copy();
      await navigator.clipboard.writeText(text);
      setCopied(note);
    } catch (error) {
      setCopied(`Not copied: ${(error as Error).message}`);
    }
  };
  return (
    <div className={`output-block terminal-output${full ? ' full' : ''}`} data-testid="output-box">
      <div className="terminal-bar">
        <span className="tree-key">{label}</span>
        <span className="muted" data-testid="output-about">{about}</span>
        <button type="button" aria-pressed={wrap} onClick={() => setWrap(!wrap)} data-testid="output-wrap">wrap lines</button>
        <button type="button" aria-pressed={full} onClick={() => {
          setFull(!full);
          scroller.current?.focus();
        }} data-testid="output-full">full size</button>
        <button type="button" onClick={() => void onCopy()} data-testid="output-copy">copy</button>
        <span className="muted" role="status" data-testid="output-copied">{copied}</span>
      </div>
      <div className={`terminal-scroll${wrap ? ' wrapped' : ''}`} ref={scroller} tabIndex={0} onKeyDown={(event) => onBoxKey(event, full, setFull)} role="region" aria-label={`${label}, ${about}`} data-testid={testid}>
        <div className="terminal-rows" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rowAt(item.index);
            return (
              <div key={item.key} data-index={item.index} ref={wrap ? virtualizer.measureElement : undefined} className={`terminal-row${row?.continued === true ? ' continued' : ''}`} style={{ transform: `translateY(${item.start}px)` }} data-testid="output-row">
                {row === undefined ? <span className="muted">…</span> : row.spans.map((span, index) => <Span key={index} span={span} />)}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** Home and End in the output go to its first and last line (the browser scrolls the box), not to the
 *  timeline's first and last row (session-keys.ts listens on the window); Escape leaves full size first. */
function onBoxKey(event: KeyboardEvent, full: boolean, setFull: (full: boolean) => void): void {
  if (event.key === 'Home' || event.key === 'End') event.stopPropagation();
  if (event.key !== 'Escape' || !full) return;
  event.stopPropagation();
  setFull(false);
}

function Span({ span }: { span: TerminalSpan }) {
  if (span.control === true) return <span className="terminal-control">{span.text}</span>;
  const style = spanStyle(span);
  return style === null ? <>{span.text}</> : <span style={style}>{span.text}</span>;
}

/** The pages from the first to the last shown. */
function pageRange({ first, last }: { first: number; last: number }): number[] {
  const pages: number[] = [];
  for (let page = first; page <= last; page++) pages.push(page);
  return pages;
}

/** A recorded output's plain text, read in the largest pages the API gives, up to OUTPUT_COPY_CHARS_MAX. */
async function copyRecorded(client: QueryClient, session_key: string, seq: number, first: OutputPage): Promise<{ text: string; note: string }> {
  const rows: TerminalRow[] = [];
  let chars = 0;
  for (let start = 0; start < first.total_rows && chars < OUTPUT_COPY_CHARS_MAX; ) {
    const page = await client.fetchQuery(queries.outputCopyPage(session_key, seq, start));
    if (page.rows.length === 0) break;
    for (const row of page.rows) {
      rows.push(row);
      chars += rowsText([row], false).length + 1;
    }
    start += page.rows.length;
  }
  const text = rowsText(rows, false).slice(0, OUTPUT_COPY_CHARS_MAX);
  if (rows.length >= first.total_rows && text.length < OUTPUT_COPY_CHARS_MAX) return { text, note: `Copied ${count(first.lines, 'line')}, without escape codes.` };
  const lines = text.split('\n').length;
  return { text, note: `Copied the first ${count(lines, 'line')} of ${count(first.lines, 'line')} (${count(text.length, 'character')}: a copy takes at most that many); the record has the rest.` };
}

function count(value: number, noun: string): string {
  return `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
}

// The box is a terminal's: dark in both themes. Colours are drawn as the output asks, made readable on what is
// behind them (WCAG's 4.5:1) where they are not: anser's yellow on the dark box, a blue on black.
const BOX_BACKGROUND: Rgb = [24, 24, 27];
const BOX_FOREGROUND: Rgb = [228, 228, 231];
const CONTRAST_MIN = 4.5;
const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
/** How much of the background a dim span's colour takes. */
const DIM_MIX = 0.35;

type Rgb = readonly [number, number, number];

/** A span's inline style, or null when it is drawn as plain text. */
export function spanStyle(span: TerminalSpan): CSSProperties | null {
  const decorations = span.decorations ?? [];
  if (span.fg === undefined && span.bg === undefined && decorations.length === 0) return null;
  let fg = parseRgb(span.fg) ?? BOX_FOREGROUND;
  let bg = parseRgb(span.bg);
  if (decorations.includes('reverse')) [fg, bg] = [bg ?? BOX_BACKGROUND, fg];
  const behind = bg ?? BOX_BACKGROUND;
  if (decorations.includes('dim')) fg = mix(fg, behind, DIM_MIX);
  const style: CSSProperties = { color: css(readable(fg, behind)) };
  if (bg !== null) style.backgroundColor = css(bg);
  if (decorations.includes('bold')) style.fontWeight = 700;
  if (decorations.includes('italic')) style.fontStyle = 'italic';
  const lines = [decorations.includes('underline') ? 'underline' : '', decorations.includes('strikethrough') ? 'line-through' : ''].filter((line) => line !== '');
  if (lines.length > 0) style.textDecorationLine = lines.join(' ');
  return style;
}

function parseRgb(value: string | undefined): Rgb | null {
  if (value === undefined) return null;
  const parts = value.split(',').map((part) => Number(part.trim()));
  return parts.length === 3 && parts.every((part) => Number.isInteger(part) && part >= 0 && part <= 255) ? [parts[0]!, parts[1]!, parts[2]!] : null;
}

function css([r, g, b]: Rgb): string {
  return `rgb(${r}, ${g}, ${b})`;
}

function mix(from: Rgb, to: Rgb, share: number): Rgb {
  return [0, 1, 2].map((at) => Math.round(from[at]! * (1 - share) + to[at]! * share)) as unknown as Rgb;
}

/** `fg`, moved towards white or black (whichever `bg` is further from) until it reads on `bg`. */
export function readable(fg: Rgb, bg: Rgb): Rgb {
  const towards: Rgb = contrast(WHITE, bg) >= contrast(BLACK, bg) ? WHITE : BLACK;
  let shown = fg;
  for (let share = 0.1; contrast(shown, bg) < CONTRAST_MIN && share <= 1; share += 0.1) shown = mix(fg, towards, share);
  return contrast(shown, bg) < CONTRAST_MIN ? towards : shown;
}

function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((channel) => {
    const value = channel / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: Rgb, b: Rgb): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

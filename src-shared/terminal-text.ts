// A tool output as a terminal shows it: rows of text spans with the colours and weights its SGR escape codes
// (ECMA-48 "select graphic rendition") set, as anser parses them; every other escape sequence (cursor moves,
// erases, OSC 8 hyperlinks and window titles, character sets) dropped, and any other control character shown as
// a visible escape (␛, ␇, \u202e), never raw. WAL text is untrusted: this is text for a React text node, never
// markup. Rows are lines cut at OUTPUT_ROW_CHARS_MAX characters, so a 16 MiB output of one line still reads a
// row at a time; the colours in force carry from row to row as a terminal carries them (`TerminalState`).
import Anser from 'anser';
import type { JsonValue } from './replay.js';

/** A row holds at most this many characters of the output's text (escape codes included); a longer line
 *  goes on in the rows after it (`continued`). */
export const OUTPUT_ROW_CHARS_MAX = 2_000;
/** A copy of an output takes at most this many characters of its plain text (16 MiB is past what a clipboard
 *  takes well, and past what a person pastes). */
export const OUTPUT_COPY_CHARS_MAX = 4 * 1024 * 1024;
/** An escape sequence longer than this many characters is not one: it is shown as its text. */
export const ESCAPE_CHARS_MAX = 512;

export type Decoration = 'bold' | 'dim' | 'italic' | 'underline' | 'blink' | 'reverse' | 'hidden' | 'strikethrough';

/** A run of text in one style. Colours are anser's "r, g, b" (16-colour, 256-colour and truecolour alike). */
export interface TerminalSpan {
  text: string;
  fg?: string;
  bg?: string;
  decorations?: Decoration[];
  /** A control character shown as a visible escape (not the output's text: a copy leaves it out). */
  control?: true;
}

export interface TerminalRow {
  spans: TerminalSpan[];
  /** This row goes on with the line of the row before it (a line longer than OUTPUT_ROW_CHARS_MAX). */
  continued: boolean;
}

/** The colours and decorations in force, as anser keeps them between sequences. */
export interface TerminalState {
  fg: string | null;
  bg: string | null;
  decorations: Decoration[];
}

export const PLAIN_STATE: TerminalState = { fg: null, bg: null, decorations: [] };

/** Anser's parser state is its instance's fields (not in its typings): set before and read after each SGR. */
interface AnserFields {
  fg: string | null;
  bg: string | null;
  decorations: Decoration[];
}

const ESC = '\u001b';
const BEL = '\u0007';

/** The rows of `text` from `state` on, and the state after them. */
export function terminalRows(text: string, state: TerminalState = PLAIN_STATE): { rows: TerminalRow[]; state: TerminalState } {
  const reader = new TerminalReader(state);
  const rows: TerminalRow[] = [];
  for (const range of rowRanges(text)) rows.push({ spans: reader.row(text, range.start, range.end), continued: range.continued });
  return { rows, state: reader.state };
}

/** A row's range of a text: [start, end) without its line's newline and trailing carriage returns. */
export interface RowRange {
  start: number;
  end: number;
  continued: boolean;
}

/** The rows of `text`: its lines (LF or CRLF), each cut into pieces of at most OUTPUT_ROW_CHARS_MAX characters,
 *  never inside an escape sequence or a surrogate pair. */
export function* rowRanges(text: string): Generator<RowRange> {
  let line_start = 0;
  for (;;) {
    const newline = text.indexOf('\n', line_start);
    const line_end = newline < 0 ? text.length : newline;
    let start = line_start;
    let continued = false;
    while (line_end - start > OUTPUT_ROW_CHARS_MAX) {
      const end = cutBefore(text, start, start + OUTPUT_ROW_CHARS_MAX);
      yield { start, end, continued };
      start = end;
      continued = true;
    }
    let end = line_end;
    while (end > start && text[end - 1] === '\r') end--;
    yield { start, end, continued };
    if (newline < 0) return;
    line_start = newline + 1;
  }
}

/** Where to end a row that may end at `end_max`: before an escape sequence that would run past it, and
 *  between the halves of no surrogate pair. */
function cutBefore(text: string, start: number, end_max: number): number {
  const escape = text.lastIndexOf(ESC, end_max - 1);
  if (escape > start && escape >= end_max - ESCAPE_CHARS_MAX && sequenceEnd(text, escape, end_max) === null) return escape;
  const code = text.charCodeAt(end_max - 1);
  return code >= 0xd800 && code <= 0xdbff ? end_max - 1 : end_max;
}

/** Where the escape sequence at `at` (an ESC) ends, looking no further than `end`; null when it has not ended
 *  by then, is longer than ESCAPE_CHARS_MAX, or is no sequence (a lone ESC). */
export function sequenceEnd(text: string, at: number, end: number): number | null {
  const limit = Math.min(end, at + ESCAPE_CHARS_MAX);
  const kind = text[at + 1];
  if (kind === undefined || at + 1 >= limit) return null;
  if (kind === '[') return csiEnd(text, at + 2, limit);
  // OSC (a title, an OSC 8 hyperlink), DCS, SOS, PM, APC: up to BEL or ST (ESC \). Another ESC first ends the
  // search, so hostile text of many opened strings is read once, not once per string.
  if (kind === ']' || kind === 'P' || kind === 'X' || kind === '^' || kind === '_') {
    for (let index = at + 2; index < limit; index++) {
      const char = text[index];
      if (char === BEL) return index + 1;
      if (char === ESC) return text[index + 1] === '\\' && index + 1 < limit ? index + 2 : null;
    }
    return null;
  }
  // A two-character escape (ESC 7, ESC =, ESC ( B): intermediates 0x20–0x2f, then a final byte 0x30–0x7e.
  let index = at + 1;
  while (index < limit && inRange(text, index, 0x20, 0x2f)) index++;
  return index < limit && inRange(text, index, 0x30, 0x7e) ? index + 1 : null;
}

/** A CSI's end: parameters 0x30–0x3f, intermediates 0x20–0x2f, a final byte 0x40–0x7e. */
function csiEnd(text: string, from: number, limit: number): number | null {
  let index = from;
  while (index < limit && inRange(text, index, 0x30, 0x3f)) index++;
  while (index < limit && inRange(text, index, 0x20, 0x2f)) index++;
  return index < limit && inRange(text, index, 0x40, 0x7e) ? index + 1 : null;
}

function inRange(text: string, index: number, low: number, high: number): boolean {
  const code = text.charCodeAt(index);
  return code >= low && code <= high;
}

// Characters that steer a terminal or reorder a page, besides the escapes above: C0 and C1 controls but tab,
// line and paragraph separators, bidi overrides and isolates (the CLI escapes the same: cli/format.ts).
// eslint-disable-next-line no-control-regex
const SPECIAL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A control character as it is shown: C0 and DEL as their control pictures (␛ ␇ ␡), others as \uXXXX. */
export function visibleEscape(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Reads rows one after another, keeping the colours in force from row to row. */
export class TerminalReader {
  private readonly anser = new Anser();
  private spans: TerminalSpan[] = [];
  /** A carriage return was met: the next text writes the row afresh (a progress bar's last state shows). */
  private returned = false;

  constructor(state: TerminalState = PLAIN_STATE) {
    const fields = this.anser as unknown as AnserFields;
    fields.fg = state.fg;
    fields.bg = state.bg;
    fields.decorations = [...state.decorations];
  }

  get state(): TerminalState {
    const fields = this.anser as unknown as AnserFields;
    return { fg: fields.fg, bg: fields.bg, decorations: [...fields.decorations] };
  }

  /** The spans of text[start, end): one row, no newline in it. */
  row(text: string, start: number, end: number): TerminalSpan[] {
    const row = text.slice(start, end);
    this.spans = [];
    this.returned = false;
    const special = SPECIAL;
    special.lastIndex = 0;
    let plain = 0;
    for (let found = special.exec(row); found !== null; found = special.exec(row)) {
      const at = found.index;
      const char = found[0];
      this.text(row.slice(plain, at));
      const after = char === ESC ? sequenceEnd(row, at, row.length) : null;
      if (char === '\r') this.returned = true;
      else if (after === null) this.add({ text: visibleEscape(char), control: true });
      else if (row[at + 1] === '[' && row[after - 1] === 'm') this.sgr(row.slice(at + 2, after));
      plain = after ?? at + 1;
      special.lastIndex = plain;
    }
    this.text(row.slice(plain));
    return this.spans;
  }

  /** Reads text[start, end) for its colours only, as `row` would leave them (a page far down starts from the
   *  state its rows before leave: making their spans to reach the end of a 16 MiB output took 3.7 s, this 0.9 s). */
  skip(text: string, start: number, end: number): void {
    const row = text.slice(start, end);
    for (let at = row.indexOf(ESC); at >= 0; ) {
      const after = sequenceEnd(row, at, row.length);
      if (after !== null && row[at + 1] === '[' && row[after - 1] === 'm') this.sgr(row.slice(at + 2, after));
      at = row.indexOf(ESC, after ?? at + 1);
    }
  }

  /** Applies an SGR's parameters (`1;38;5;21m`) through anser; a form anser does not read (colon-separated
   *  sub-parameters, private markers) changes nothing. */
  private sgr(parameters_and_final: string): void {
    if (!/^[\d;]*m$/.test(parameters_and_final)) return;
    this.anser.processChunkJson(parameters_and_final, { json: true }, true);
    // Anser appends a decoration each time it is set: 1,000,000 bolds would be a list of a million.
    const fields = this.anser as unknown as AnserFields;
    fields.decorations = [...new Set(fields.decorations)];
  }

  private text(text: string): void {
    if (text.length === 0) return;
    if (this.returned) {
      this.spans = [];
      this.returned = false;
    }
    const fields = this.anser as unknown as AnserFields;
    const span: TerminalSpan = { text };
    if (fields.fg !== null) span.fg = fields.fg;
    if (fields.bg !== null) span.bg = fields.bg;
    if (fields.decorations.length > 0) span.decorations = [...fields.decorations];
    this.add(span);
  }

  /** Adds a span, joined to the one before it when they look the same. */
  private add(span: TerminalSpan): void {
    const last = this.spans.at(-1);
    if (last !== undefined && sameStyle(last, span)) last.text += span.text;
    else this.spans.push(span);
  }
}

function sameStyle(a: TerminalSpan, b: TerminalSpan): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.control === b.control && (a.decorations ?? []).join() === (b.decorations ?? []).join();
}

/** `text` as a terminal shows it, unstyled: its escape sequences dropped, other controls as visible escapes. */
export function terminalPlain(text: string): string {
  return rowsText(terminalRows(text).rows, true);
}

/** Rows as text, a row that continues a line joined to it: with the controls shown as escapes, or as a copy
 *  takes them (the output's own characters only). */
export function rowsText(rows: readonly TerminalRow[], controls: boolean): string {
  const parts: string[] = [];
  rows.forEach((row, index) => {
    if (index > 0 && !row.continued) parts.push('\n');
    for (const span of row.spans) if (controls || span.control !== true) parts.push(span.text);
  });
  return parts.join('');
}

/** The text a tool output reads as: a string as it is, a list of text blocks as their texts, else indented JSON. */
export function outputText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0 && value.every(isTextBlock)) return value.map((block) => (block as { text: string }).text).join('\n');
  return JSON.stringify(value, null, 2);
}

function isTextBlock(value: JsonValue): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && value['type'] === 'text' && typeof value['text'] === 'string';
}


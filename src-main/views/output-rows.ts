// A tool output read whole from its record and laid out in rows as a terminal shows them
// (src-shared/terminal-text.ts), for the pages the output view asks one after another while it scrolls. A page
// is never the whole output (up to 16 MiB): at most OUTPUT_PAGE_ROWS_MAX rows of at most OUTPUT_ROW_CHARS_MAX
// characters. The colours in force at a row depend on every row before it; they are kept every
// STATE_EVERY_ROWS rows as the pages reach them, so a page far down reads at most that many rows before it.
import { OUTPUT_PAGE_ROWS_MAX, type OutputPage, type RecordRow } from '../../src-shared/ipc.js';
import type { JsonValue } from '../../src-shared/replay.js';
import { outputText, PLAIN_STATE, rowRanges, TerminalReader, type TerminalRow, type TerminalState } from '../../src-shared/terminal-text.js';
import { WHOLE } from '../engine/index.js';
import type { PayloadProjection } from '../replay/payloads.js';

/** What a tool_result's record is read for here: its output, whole. */
export const OUTPUT_WHOLE: PayloadProjection = { output: WHOLE };

/** The colours in force are kept at every this many rows (a few bytes each). */
const STATE_EVERY_ROWS = 1_000;
/** The `continued` bit of a row's end in `ends` (a text is at most 2^31 characters). */
const CONTINUED_BIT = 0x8000_0000;

export class OutputRows {
  readonly text: string;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  readonly total_rows: number;
  readonly lines: number;
  /** The state at the start of row `index * STATE_EVERY_ROWS`, as far as pages have reached. */
  private readonly states: TerminalState[] = [PLAIN_STATE];

  constructor(
    readonly record: Pick<RecordRow, 'seq' | 'offset' | 'size_bytes'>,
    output: JsonValue,
  ) {
    this.text = outputText(output);
    let starts = new Uint32Array(1_024);
    let ends = new Uint32Array(1_024);
    let rows = 0;
    let lines = 0;
    for (const range of rowRanges(this.text)) {
      if (rows === starts.length) [starts, ends] = [grown(starts), grown(ends)];
      starts[rows] = range.start;
      ends[rows] = range.end | (range.continued ? CONTINUED_BIT : 0);
      if (!range.continued) lines++;
      rows++;
    }
    this.starts = starts;
    this.ends = ends;
    this.total_rows = rows;
    this.lines = lines;
  }

  /** Whether this is the output of `record` as the index has it now (a WAL replaced since holds another). */
  isOf(record: Pick<RecordRow, 'seq' | 'offset' | 'size_bytes'>): boolean {
    return record.seq === this.record.seq && record.offset === this.record.offset && record.size_bytes === this.record.size_bytes;
  }

  /** Rows [start, start + count), at most OUTPUT_PAGE_ROWS_MAX of them; `start` and `count` are counts (the
   *  API checks them). */
  page(start: number, count: number): OutputPage {
    const first = Math.min(start, this.total_rows);
    const end = Math.min(this.total_rows, first + Math.min(count, OUTPUT_PAGE_ROWS_MAX));
    const kept = Math.floor(first / STATE_EVERY_ROWS);
    const reader = new TerminalReader(this.stateAt(kept));
    for (let row = kept * STATE_EVERY_ROWS; row < first; row++) this.skip(reader, row);
    const rows: TerminalRow[] = [];
    for (let row = first; row < end; row++) rows.push({ spans: this.read(reader, row), continued: (this.ends[row]! & CONTINUED_BIT) !== 0 });
    return { seq: this.record.seq, start: first, rows, total_rows: this.total_rows, lines: this.lines, chars: this.text.length };
  }

  /** The state kept at row `kept * STATE_EVERY_ROWS`, reading the rows up to it that no page read yet. */
  private stateAt(kept: number): TerminalState {
    while (this.states.length <= kept) {
      const from = (this.states.length - 1) * STATE_EVERY_ROWS;
      const reader = new TerminalReader(this.states.at(-1));
      for (let row = from; row < from + STATE_EVERY_ROWS; row++) this.skip(reader, row);
      this.states.push(reader.state);
    }
    return this.states[kept]!;
  }

  private read(reader: TerminalReader, row: number) {
    return reader.row(this.text, this.starts[row]!, this.endOf(row));
  }

  private skip(reader: TerminalReader, row: number): void {
    reader.skip(this.text, this.starts[row]!, this.endOf(row));
  }

  private endOf(row: number): number {
    return (this.ends[row]! & ~CONTINUED_BIT) >>> 0;
  }
}

function grown(array: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

// A tool output as a terminal shows it (src-shared/terminal-text.ts): SGR colours and weights as spans through
// anser, every other escape dropped, other controls shown as visible escapes, colours carried from line to line,
// long lines cut into rows, and hostile text (a megabyte of escapes, unterminated sequences) read in linear time.
import { describe, expect, it } from 'vitest';
import { ESCAPE_CHARS_MAX, OUTPUT_ROW_CHARS_MAX, rowRanges, rowsText, TerminalReader, terminalPlain, terminalRows, type TerminalSpan } from '../../src-shared/terminal-text.js';

const E = '\u001b';

function spans(text: string): TerminalSpan[][] {
  return terminalRows(text).rows.map((row) => row.spans);
}

/** Every character a page would show: no ESC, no raw control but tab. */
function shownText(text: string): string {
  return terminalRows(text).rows.map((row) => row.spans.map((span) => span.text).join('')).join('\n');
}

describe('terminal text', () => {
  it('reads the 16 colours, bold, dim and a reset into spans', () => {
    expect(spans(`${E}[31mred${E}[39m plain ${E}[1;32mbold green${E}[0m ${E}[2mdim${E}[22m`)).toEqual([[
      { text: 'red', fg: '187, 0, 0' },
      { text: ' plain ' },
      { text: 'bold green', fg: '0, 187, 0', decorations: ['bold'] },
      { text: ' ' },
      { text: 'dim', decorations: ['dim'] },
    ]]);
  });

  it('reads 256-colour and truecolour foregrounds and backgrounds', () => {
    expect(spans(`${E}[38;5;196mpalette${E}[48;2;10;20;30mtrue bg${E}[38;2;1;2;3mtrue fg${E}[m`)).toEqual([[
      { text: 'palette', fg: '255, 0, 0' },
      { text: 'true bg', fg: '255, 0, 0', bg: '10, 20, 30' },
      { text: 'true fg', fg: '1, 2, 3', bg: '10, 20, 30' },
    ]]);
  });

  it('carries the colours in force from one line to the next, as a terminal does', () => {
    const { rows, state } = terminalRows(`${E}[31mTraceback\n  line 2\n${E}[0mafter`);
    expect(rows.map((row) => row.spans)).toEqual([[{ text: 'Traceback', fg: '187, 0, 0' }], [{ text: '  line 2', fg: '187, 0, 0' }], [{ text: 'after' }]]);
    expect(state).toEqual({ fg: null, bg: null, decorations: [] });
    expect(terminalRows('still red', { fg: '187, 0, 0', bg: null, decorations: [] }).rows[0]!.spans).toEqual([{ text: 'still red', fg: '187, 0, 0' }]);
  });

  it('drops OSC 8 hyperlinks and titles (BEL or ST), keeping their text', () => {
    expect(shownText(`${E}]8;;https://example.com${E}\\link${E}]8;;${E}\\ and ${E}]0;window title\u0007done`)).toBe('link and done');
  });

  it('drops cursor moves, erases and character sets', () => {
    expect(shownText(`a${E}[2K${E}[1A${E}[10;20Hb${E}[K${E}(Bc${E}7d${E}[?25l${E}[?1049h`)).toBe('abcd');
  });

  it('shows a line rewritten after carriage returns as it was written last (a progress bar)', () => {
    expect(shownText(`downloading  10%\rdownloading  55%\rdownloading 100%${E}[K\r\ndone\r`)).toBe('downloading 100%\ndone');
    expect(spans(`${E}[32m 10%\r 99%`)).toEqual([[{ text: ' 99%', fg: '0, 187, 0' }]]);
  });

  it('shows other controls as visible escapes, never raw', () => {
    expect(spans('bell\u0007 back\b nul\u0000 del\u007f csi\u009b bidi\u202eevil')).toEqual([[
      { text: 'bell' }, { text: '␇', control: true },
      { text: ' back' }, { text: '␈', control: true },
      { text: ' nul' }, { text: '␀', control: true },
      { text: ' del' }, { text: '␡', control: true },
      { text: ' csi' }, { text: '\\u009b', control: true },
      { text: ' bidi' }, { text: '\\u202e', control: true },
      { text: 'evil' },
    ]]);
    expect(shownText('a\tb')).toBe('a\tb');
  });

  it('shows an unterminated sequence as text, its ESC as ␛', () => {
    expect(shownText(`ok${E}[38;`)).toBe('ok␛[38;');
    expect(shownText(`ok${E}]8;;https://example.com no end`)).toBe('ok␛]8;;https://example.com no end');
    expect(shownText(`lone ${E}`)).toBe('lone ␛');
    expect(shownText(`${E}[${'1;'.repeat(ESCAPE_CHARS_MAX)}mtoo long`)).toMatch(/^␛\[1;1;/);
  });

  it('ignores SGR forms anser does not read (colon sub-parameters) without showing them', () => {
    expect(spans(`${E}[38:2::255:0:0mtext${E}[0m`)).toEqual([[{ text: 'text' }]]);
  });

  it('cuts a long line into rows of at most OUTPUT_ROW_CHARS_MAX characters, never inside an escape', () => {
    const line = `${'x'.repeat(OUTPUT_ROW_CHARS_MAX - 3)}${E}[31m${'y'.repeat(OUTPUT_ROW_CHARS_MAX)}`;
    const { rows } = terminalRows(`${line}\nnext`);
    expect(rows.map((row) => row.continued)).toEqual([false, true, true, false]);
    expect(rows[0]!.spans).toEqual([{ text: 'x'.repeat(OUTPUT_ROW_CHARS_MAX - 3) }]);
    expect(rows[1]!.spans[0]!.fg).toBe('187, 0, 0');
    expect(rowsText(rows, false)).toBe(`${'x'.repeat(OUTPUT_ROW_CHARS_MAX - 3)}${'y'.repeat(OUTPUT_ROW_CHARS_MAX)}\nnext`);
  });

  it('reads a megabyte of escapes with no ESC left, and no list grown by their repetition', () => {
    const hostile = `${E}[1m`.repeat(200_000) + `${E}]`.repeat(100_000) + `${E}[`.repeat(100_000) + '\u0007'.repeat(100_000);
    expect(hostile.length).toBeGreaterThan(1_000_000);
    const { rows, state } = terminalRows(hostile);
    expect(state.decorations).toEqual(['bold']);
    const shown = rows.map((row) => row.spans.map((span) => span.text).join('')).join('');
    expect(shown).not.toContain(E);
    expect(shown).not.toContain('\u0007');
  });

  it('leaves the same colours in force when rows are skipped as when they are read (a page far down)', () => {
    const text = `${E}[1;31mred${E}]8;;x${E}\\${E}[38;5;21m\r${E}[48;2;1;2;3mbg\n${E}[22m${E}[4mu${E}[38;\n${'z'.repeat(OUTPUT_ROW_CHARS_MAX + 5)}${E}[7m`;
    const read = new TerminalReader();
    const skipped = new TerminalReader();
    for (const range of rowRanges(text)) {
      read.row(text, range.start, range.end);
      skipped.skip(text, range.start, range.end);
      expect(skipped.state).toEqual(read.state);
    }
    expect(read.state).toEqual({ fg: '0, 0, 255', bg: '1, 2, 3', decorations: ['underline', 'reverse'] });
  });

  it('shows a one-line cell without escape codes (the timeline row and transcript previews)', () => {
    expect(terminalPlain(`${E}[31m×${E}[39m failed\u0007`)).toBe('× failed␇');
  });
});

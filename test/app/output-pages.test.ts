// The whole of a tool output, read in place a page at a time (getOutput): bounded pages of rows from the
// record on disk, the colours in force carried into a page that starts far down, the last line reachable, and
// a seq that is not a tool_result refused by name.
import { describe, expect, it } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { OUTPUT_PAGE_ROWS_MAX } from '../../src-shared/ipc.js';
import { OUTPUT_ROW_CHARS_MAX, rowsText } from '../../src-shared/terminal-text.js';
import { useTempDirs } from '../helpers/temp.js';
import { colouredTestOutput, writeOutputSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-output-pages-');
const LINES = 10_000;

function openModel(root: string, key: string): SessionModel {
  const model = new SessionModel(key, sessionTarget(sessionDir(root, key)));
  model.refresh();
  return model;
}

describe('a tool output read a page at a time', () => {
  it('answers bounded pages of the whole output, the last line included, with no escape code left', () => {
    const root = tempDir();
    const output = colouredTestOutput(LINES);
    const seq = writeOutputSession(root, 'long', output);
    const model = openModel(root, 'long');
    const first = model.output(seq, 0, 10_000)!;
    expect(first).toMatchObject({ seq, start: 0, total_rows: LINES, lines: LINES, chars: output.length });
    expect(first.rows).toHaveLength(OUTPUT_PAGE_ROWS_MAX);
    expect(first.rows[0]!.spans).toEqual([{ text: '✓', fg: '0, 187, 0' }, { text: ' test 1 passes ' }, { text: '1ms', decorations: ['dim'] }]);

    const last = model.output(seq, LINES - 3, 100)!;
    expect(last.start).toBe(LINES - 3);
    expect(last.rows).toHaveLength(3);
    expect(last.rows.at(-1)!.spans).toEqual([{ text: 'last line of the output', decorations: ['bold'] }]);
    expect(model.output(seq, LINES + 50, 10)!.rows).toEqual([]);

    // Every page together is the output's text, escape codes dropped.
    const rows = [];
    for (let start = 0; start < LINES; start += OUTPUT_PAGE_ROWS_MAX) rows.push(...model.output(seq, start, OUTPUT_PAGE_ROWS_MAX)!.rows);
    const text = rowsText(rows, false);
    expect(text).not.toContain('\u001b');
    expect(text.split('\n')).toHaveLength(LINES);
  });

  it('carries a colour set many lines above into a page that starts far down', () => {
    const root = tempDir();
    const seq = writeOutputSession(root, 'carry', colouredTestOutput(LINES));
    const model = openModel(root, 'carry');
    // Rows 999 to 1,002 (lines 1,000 to 1,003) are red: set at line 999, reset at the end of line 1,003; the
    // colours are kept every 1,000 rows, so this page starts from what row 1,000's state was read as.
    for (const start of [999, 1_001]) {
      const page = model.output(seq, start, 1_004 - start)!;
      expect(page.rows.map((row) => row.spans)).toEqual([
        [{ text: '  at frame 1000', fg: '187, 0, 0' }],
        [{ text: '  at frame 1001', fg: '187, 0, 0' }],
        [{ text: '  at frame 1002', fg: '187, 0, 0' }],
        [{ text: 'still red at 1003', fg: '187, 0, 0' }],
        [{ text: '✓', fg: '0, 187, 0' }, { text: ' test 1004 passes ' }, { text: '34ms', decorations: ['dim'] }],
      ].slice(start - 999));
    }
  });

  it('cuts a line of a megabyte into rows that read it whole', () => {
    const root = tempDir();
    const line = 'x'.repeat(1_048_576);
    const seq = writeOutputSession(root, 'one-line', line);
    const model = openModel(root, 'one-line');
    const page = model.output(seq, 0, 1)!;
    expect(page.total_rows).toBe(Math.ceil(line.length / OUTPUT_ROW_CHARS_MAX));
    expect(page.lines).toBe(1);
    const end = model.output(seq, page.total_rows - 1, 1)!.rows[0]!;
    expect(end.continued).toBe(true);
  });

  it('refuses a seq that is no tool_result, and one that is no record, by name', async () => {
    const root = tempDir();
    const seq = writeOutputSession(root, 'refused', 'ok');
    const service = await SessionService.open(root);
    try {
      await expect(service.getOutput('refused', seq - 1, 0, 10)).rejects.toThrow(/record seq \d+ is a tool_dispatch_intent, not a tool_result: it has no output/);
      await expect(service.getOutput('refused', 999, 0, 10)).rejects.toThrow('no record with seq 999');
      expect((await service.getOutput('refused', seq, 0, 10)).rows).toEqual([{ spans: [{ text: 'ok' }], continued: false }]);
    } finally {
      await service.close();
    }
  });
});

// The support report: the file's size and SHA-256 as received, integrity with how much is lost (intact records
// after a non-tail damage, counted read-only), a cut file's advice, outcomes and the recovery history; and the
// HTML form, whose every WAL text is escaped (a hostile WAL's markup never becomes live markup).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeHtml, reportHtml } from '../../src-shared/report-html.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { resumeSession } from '../../src-main/recovery/actions.js';
import { supportReport } from '../../src-main/recovery/support-report.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { writeFinished, writeIndeterminate } from '../app/wal-fixture.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-report-');
const REPO = path.resolve(import.meta.dirname, '../..');
const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="alert(1)">&amp;"\'';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-report-root-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const root = path.join(work, 'root');
buildDemoRoot(root, steppedClock(1_750_000_000_000));

const reportOf = (target: string) => supportReport(resolveTargets(target)[0]!, 1_800_000_000_000);

describe('the support report', () => {
  it('names the file as received: size and SHA-256 of its bytes', () => {
    const wal = walPath(sessionDir(root, 'finished'));
    const report = reportOf(wal);
    const bytes = fs.readFileSync(wal);
    expect(report.file).toEqual({ name: 'wal', size_bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(report.integrity).toMatchObject({ verdict: 'intact', damage: null, lost: 'Nothing.' });
    expect(report.lineage).toHaveLength(1);
    expect(report.totals.tokens['input_tokens']).toBeGreaterThan(0);
    expect(report.totals.times_recorded).toBe(true);
  });

  it('counts what lies after a non-tail damage, read-only, and says it is unused', () => {
    const wal = walPath(sessionDir(root, 'corrupt-middle'));
    const before = fs.readFileSync(wal);
    const report = reportOf(wal);
    expect(report.integrity.verdict).toBe('damaged');
    const after = report.integrity.after_damage!;
    expect(after.records).toBeGreaterThan(0);
    expect(after.seq_first).toBeGreaterThan(report.integrity.intact.last_seq);
    expect(after.seq_last).toBeGreaterThanOrEqual(after.seq_first!);
    expect(report.integrity.lost).toContain(`${after.records} intact record(s), seq ${after.seq_first}–${after.seq_last}`);
    expect(fs.readFileSync(wal).equals(before)).toBe(true);
  });

  it('says a cut file may have been cut in transfer and what to ask the customer for', () => {
    const cut = path.join(tempDir(), 'cut.wal');
    const bytes = fs.readFileSync(walPath(sessionDir(root, 'finished')));
    fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 9));
    const report = reportOf(cut);
    expect(report.integrity.verdict).toBe('cut');
    expect(report.integrity.ask_customer).toMatch(/cut in transfer.*SHA-256/);
    expect(report.run).toMatchObject({ status: 'needs_operator', open_end: 'cut' });
    expect(report.episodes[0]!.state).toBe('cut short');
  });

  it('gives every call its class with why, and an unconfirmed side effect what to check', () => {
    const report = reportOf(walPath(sessionDir(root, 'parallel-unknown')));
    expect(report.run.status).toBe('finished_unconfirmed');
    const calls = report.episodes[0]!.calls;
    expect(calls.map((call) => call.class)).toEqual(['indeterminate', 'interrupted', 'completed']);
    expect(calls.every((call) => call.why.length > 0)).toBe(true);
    expect(calls[1]!.is_error).toBe(true);
  });

  it('escapes every WAL text in the HTML: a hostile tool name, operator and reason stay text', () => {
    const hostile_root = tempDir();
    writeIndeterminate(hostile_root, 'hostile', HOSTILE);
    expect(resumeSession(hostile_root, 'hostile', { audit: { operator: HOSTILE, reason: HOSTILE, via: 'cli' } }).kind).toBe('done');
    const report = reportOf(walPath(sessionDir(hostile_root, 'hostile')));
    expect(report.episodes[0]!.calls[0]!.name).toBe(HOSTILE);
    expect(report.recoveries[0]).toMatchObject({ operator: HOSTILE, reason: HOSTILE });
    const html = reportHtml(report);
    expect(html).not.toMatch(/<script|<img|onerror="/i);
    expect(html).toContain(escapeHtml(HOSTILE));
    // The only tags are the report's own.
    const tags = new Set([...html.matchAll(/<\/?([a-z0-9!]+)/gi)].map((match) => match[1]!.toLowerCase()));
    expect([...tags].sort()).toEqual(['!doctype', 'body', 'dd', 'div', 'dl', 'dt', 'h1', 'h2', 'head', 'html', 'li', 'meta', 'ol', 'p', 'section', 'span', 'strong', 'style', 'table', 'tbody', 'td', 'th', 'thead', 'title', 'tr', 'ul'].filter((tag) => tags.has(tag)));
    expect(html).toContain("default-src 'none'");
  });
});

describe('walscope report', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/walscope.js', 'report', ...args], { cwd: REPO, encoding: 'utf8' });

  it('writes the HTML only to the file named, never over an existing file or the WAL, and leaves the export folder as it was', () => {
    const exports = tempDir();
    const wal = path.join(exports, 'customer.wal');
    fs.copyFileSync(walPath(sessionDir(root, 'parallel-unknown')), wal);
    const out = path.join(tempDir(), 'report.html');
    expect(cli(wal, '--html', out).status).toBe(0);
    expect(fs.readdirSync(exports)).toEqual(['customer.wal']);
    expect(fs.readFileSync(out, 'utf8')).toContain('finished, unconfirmed');
    const again = cli(wal, '--html', out);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('exists');
    const over = cli(wal, '--html', wal);
    expect(over.status).toBe(2);
    expect(fs.readFileSync(wal).equals(fs.readFileSync(walPath(sessionDir(root, 'parallel-unknown'))))).toBe(true);
  });

  /** Every path under `dir` with its size: what a refused report must leave as it was. */
  const tree = (dir: string): string[] => (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => `${path.relative(dir, file)} ${fs.lstatSync(file).size}`)
    .sort();

  it('refuses, writing nothing, a target inside a state root, a session folder or beside the WAL it reads', () => {
    const state = tempDir();
    writeFinished(state, 's1');
    writeFinished(state, 's2');
    fs.mkdirSync(path.join(state, 'notes'));
    const floor_only = tempDir();
    fs.writeFileSync(path.join(floor_only, 'wal-feature-floor'), '');
    const exports = tempDir();
    fs.copyFileSync(walPath(sessionDir(state, 's1')), path.join(exports, 'customer.wal'));
    const link = path.join(tempDir(), 'root-link');
    fs.symlinkSync(state, link);
    const session = sessionDir(state, 's1');
    const cases: [string, string][] = [
      [session, path.join(session, 'archive')],
      [session, path.join(state, 'wal-feature-floor')],
      [session, path.join(state, 'report.html')],
      [session, path.join(state, 'sessions', 'report.html')],
      [session, path.join(sessionDir(state, 's2'), 'report.html')],
      [session, path.join(state, 'notes', 'report.html')],
      [session, path.join(link, 'report.html')],
      [session, path.join(floor_only, 'report.html')],
      [path.join(exports, 'customer.wal'), path.join(exports, 'report.html')],
      [path.join(exports, 'customer.wal'), path.join(state, 'report.html')],
    ];
    const before = [state, floor_only, exports].map(tree);
    for (const [target, out] of cases) {
      const run = cli(target, '--html', out);
      expect({ out, status: run.status, stdout: run.stdout }).toEqual({ out, status: 2, stdout: '' });
      expect(run.stderr).toMatch(/^walscope report: [^\n]+: name a file outside it\n$/);
      expect(fs.existsSync(out)).toBe(false);
    }
    expect([state, floor_only, exports].map(tree)).toEqual(before);
    expect(spawnSync(process.execPath, ['bin/walscope.js', 'verify', state], { cwd: REPO, encoding: 'utf8' }).status).toBe(0);
  });

  it('--json prints the same facts', () => {
    const result = cli(walPath(sessionDir(root, 'corrupt-middle')), '--json');
    expect(result.status).toBe(0);
    const json = JSON.parse(result.stdout) as { format: string; integrity: { verdict: string; after_damage: { records: number } } };
    expect(json.format).toBe('walscope-report/1');
    expect(json.integrity.verdict).toBe('damaged');
    expect(json.integrity.after_damage.records).toBeGreaterThan(0);
  });
});

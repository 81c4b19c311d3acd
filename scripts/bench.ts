// `npm run bench`: walscope measured side by side with references in the same run, reported as ratios.
//   1. verify and the fold (`replay --json`) of a ~1 GiB realistic session (~66k records) against
//      `openssl dgst -sha256` (the machine's hashing limit) and `sha256sum` of the same file: time, peak RSS;
//   2. the same on a session of 1,000,000 small records;
//   3. durable appends (one barrier per record, and per group of 10) vs SQLite inserts with synchronous=FULL.
// Sessions come from scripts/bench-data.ts (written once, cached in bench-data/ by generator version).
// Every figure is printed beside its aim (issue 9). Results and where the time goes: docs/performance.md.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSessionForWrite } from '../src-main/engine/session.js';
import { sessionDir, walPath } from '../src-main/engine/state-root.js';
import { BIG_SESSION_ID, bigChangedRoot, bigSessionRoot, CHANGED_SESSION_ID, MILLION_SESSION_ID, millionSessionRoot } from './bench-data.js';
import { benchService } from './bench-service.js';
import { benchFleet } from './bench-fleet.js';

const REPO = path.resolve(import.meta.dirname, '..');
const WALSCOPE = path.join(REPO, 'bin/walscope.js');
/** Rounds per measure (median taken); BENCH_ROUNDS overrides. */
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const APPEND_RECORDS = 2_000;

interface Timed {
  seconds: number;
  /** User and system CPU time: on a shared machine the wall time grows with the load, this much less. */
  cpu_seconds: number;
  peak_rss_bytes: number;
}

/** Runs a command under GNU time with its output discarded: wall and CPU seconds, peak resident set size. */
function timed(command: string, args: string[], exit_expected = 0): Timed {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', command, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const last = result.stderr.trim().split('\n').at(-1) ?? '';
  // walscope exits 1 when it refuses a WAL; a bench WAL must read cleanly, so any other exit is a failure (but
  // `diff`'s 1, "they differ", where that is what is measured).
  if (result.status !== exit_expected) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const [seconds, user_seconds, system_seconds, rss_kib] = last.split(' ').map(Number);
  return { seconds: seconds!, cpu_seconds: user_seconds! + system_seconds!, peak_rss_bytes: rss_kib! * 1_024 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface SessionFigures {
  size_bytes: number;
  records: number;
  openssl: Timed;
  sha256sum: Timed;
  verify: Timed;
  replay: Timed;
}

/** Alternates the references and walscope ROUNDS times on one warm file; medians of time, maxima of RSS. */
function benchSession(wal: string): SessionFigures {
  const report = JSON.parse(execFileSync(process.execPath, [WALSCOPE, 'verify', wal, '--json'], { encoding: 'utf8', maxBuffer: 1_048_576 })) as { records: number; error: unknown };
  if (report.error !== null) throw new Error(`${wal} does not verify: ${JSON.stringify(report.error)}`);
  timed('openssl', ['dgst', '-sha256', wal]); // warm the page cache: every side reads from memory
  const runs: Record<'openssl' | 'sha256sum' | 'verify' | 'replay', Timed[]> = { openssl: [], sha256sum: [], verify: [], replay: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.openssl.push(timed('openssl', ['dgst', '-sha256', wal]));
    runs.sha256sum.push(timed('sha256sum', [wal]));
    runs.verify.push(timed(process.execPath, [WALSCOPE, 'verify', wal, '--json']));
    runs.replay.push(timed(process.execPath, [WALSCOPE, 'replay', wal, '--json']));
  }
  const summary = (list: Timed[]): Timed => ({
    seconds: median(list.map((run) => run.seconds)),
    cpu_seconds: median(list.map((run) => run.cpu_seconds)),
    peak_rss_bytes: Math.max(...list.map((run) => run.peak_rss_bytes)),
  });
  return {
    size_bytes: fs.statSync(wal).size,
    records: report.records,
    openssl: summary(runs.openssl),
    sha256sum: summary(runs.sha256sum),
    verify: summary(runs.verify),
    replay: summary(runs.replay),
  };
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
const mbps = (bytes: number, run: Timed) => (bytes / run.seconds / 1e6).toFixed(0);
const seconds = (run: Timed) => `${run.seconds.toFixed(2)} s (${run.cpu_seconds.toFixed(2)} s)`;
/** `top / bottom` in wall time, and in CPU time in brackets. */
const ratios = (top: Timed, bottom: Timed) => `${(top.seconds / bottom.seconds).toFixed(2)} (${(top.cpu_seconds / bottom.cpu_seconds).toFixed(2)})`;

function printSession(title: string, figures: SessionFigures, aims: { verify_vs_openssl?: number; verify_seconds?: number; replay_rss_mb?: number }): void {
  const { size_bytes, openssl, sha256sum, verify, replay } = figures;
  console.log(`\n${title}: ${(size_bytes / 1_048_576).toFixed(0)} MiB, ${figures.records.toLocaleString('en-US')} records (page cache warm, median of ${ROUNDS}; wall, then CPU in brackets)`);
  console.log(`  openssl dgst -sha256   ${seconds(openssl)}  ${mbps(size_bytes, openssl)} MB/s`);
  console.log(`  sha256sum              ${seconds(sha256sum)}  ${mbps(size_bytes, sha256sum)} MB/s`);
  const verify_aim = aims.verify_vs_openssl === undefined ? '' : `   aim ≥ ${aims.verify_vs_openssl.toFixed(2)} × openssl`;
  console.log(`  walscope verify        ${seconds(verify)}  ${mbps(size_bytes, verify)} MB/s = ${ratios(openssl, verify)} × openssl, ${ratios(sha256sum, verify)} × sha256sum${verify_aim}`);
  if (aims.verify_seconds !== undefined) console.log(`    ${(figures.records / verify.seconds).toFixed(0)} records/s   aim: < ${aims.verify_seconds} s`);
  console.log(`    peak RSS ${mb(verify.peak_rss_bytes)} MB`);
  console.log(`  walscope replay --json ${seconds(replay)} = ${ratios(replay, verify)} × verify   aim ≤ 2.00 × verify`);
  console.log(`    peak RSS ${mb(replay.peak_rss_bytes)} MB${aims.replay_rss_mb === undefined ? '' : `   aim < ${aims.replay_rss_mb} MB`}`);
}

function benchAppends(group_records: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-append-'));
  try {
    const payload = { batch_id: 'batch-1', tool_call_id: 'call-1', outcome: 'completed', output: 'x'.repeat(240), is_error: false };
    fs.mkdirSync(path.join(dir, 'root'));
    const session = openSessionForWrite(path.join(dir, 'root'), 'append', { writer_name: 'walscope-bench' });
    let started = process.hrtime.bigint();
    for (let index = 1; index <= APPEND_RECORDS; index++) {
      session.writer.append('tool_result', payload);
      if (index % group_records === 0) session.writer.barrier();
    }
    const wal_seconds = Number(process.hrtime.bigint() - started) / 1e9;
    session.close();

    const db = new Database(path.join(dir, 'reference.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE records (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, payload TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO records (type, payload) VALUES (?, ?)');
    const group = db.transaction((count: number) => {
      for (let index = 0; index < count; index++) insert.run('tool_result', JSON.stringify(payload));
    });
    started = process.hrtime.bigint();
    for (let index = 0; index < APPEND_RECORDS / group_records; index++) group(group_records);
    const sqlite_seconds = Number(process.hrtime.bigint() - started) / 1e9;
    db.close();
    const wal_per_s = APPEND_RECORDS / wal_seconds;
    const sqlite_per_s = APPEND_RECORDS / sqlite_seconds;
    return { group_records, wal_per_s, sqlite_per_s, ratio: wal_per_s / sqlite_per_s };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Two 1 GiB sessions compared (issue 31): the session against itself (read and compared whole) and against a
 *  run of it that parts at run 1, step 3 (`--first`), beside `verify` of both. One round: the whole comparison
 *  takes a minute. */
function benchDiff(): void {
  const [a, b] = [walPath(sessionDir(bigSessionRoot(), BIG_SESSION_ID)), walPath(sessionDir(bigChangedRoot(), CHANGED_SESSION_ID))];
  timed('openssl', ['dgst', '-sha256', a]);
  timed('openssl', ['dgst', '-sha256', b]);
  const verify = [timed(process.execPath, [WALSCOPE, 'verify', a]), timed(process.execPath, [WALSCOPE, 'verify', b])];
  const both: Timed = { seconds: verify[0]!.seconds + verify[1]!.seconds, cpu_seconds: verify[0]!.cpu_seconds + verify[1]!.cpu_seconds, peak_rss_bytes: Math.max(verify[0]!.peak_rss_bytes, verify[1]!.peak_rss_bytes) };
  const same = timed(process.execPath, [WALSCOPE, 'diff', a, a, '--json']);
  const whole_changed = timed(process.execPath, [WALSCOPE, 'diff', a, b, '--json'], 1);
  const first = timed(process.execPath, [WALSCOPE, 'diff', a, b, '--first', '--json'], 1);
  console.log(`\ntwo 1 GiB sessions compared (page cache warm, one round; wall, then CPU in brackets)`);
  console.log(`  walscope verify, both       ${seconds(both)}   peak RSS ${mb(both.peak_rss_bytes)} MB`);
  console.log(`  diff A A (whole)            ${seconds(same)} = ${ratios(same, both)} × verify of both   peak RSS ${mb(same.peak_rss_bytes)} MB   aim < 500 MB`);
  console.log(`  diff A B, parting at step 3 ${seconds(whole_changed)} = ${ratios(whole_changed, both)} × verify of both   peak RSS ${mb(whole_changed.peak_rss_bytes)} MB   aim < 500 MB`);
  console.log(`  diff A B --first            ${seconds(first)} = ${ratios(first, both)} × verify of both   peak RSS ${mb(first.peak_rss_bytes)} MB   aim < 2 s`);
}

function main(): void {
  console.log(`walscope bench — ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, node ${process.version}, load average ${os.loadavg().map((load) => load.toFixed(1)).join(' ')}`);
  const big = benchSession(walPath(sessionDir(bigSessionRoot(), BIG_SESSION_ID)));
  printSession('one 1 GiB session', big, { verify_vs_openssl: 0.7, replay_rss_mb: 400 });
  const million = benchSession(walPath(sessionDir(millionSessionRoot(), MILLION_SESSION_ID)));
  printSession('1,000,000 small records', million, { verify_seconds: 3, replay_rss_mb: 400 });
  console.log(`\ndurable appends vs SQLite (synchronous=FULL, WAL journal), ${APPEND_RECORDS} records of ~300 B`);
  for (const group of [1, 10]) {
    const appends = benchAppends(group);
    console.log(`  ${String(group).padStart(2)} per barrier/commit: walscope ${appends.wal_per_s.toFixed(0)}/s, SQLite ${appends.sqlite_per_s.toFixed(0)}/s, ratio ${appends.ratio.toFixed(2)}`);
  }
  console.log(`\nload average at the end ${os.loadavg().map((load) => load.toFixed(1)).join(' ')} (the machine is shared: compare ratios, not seconds)`);
}

// `npm run bench -- SECTION…` runs only the named sections (cli, diff, service, fleet); all of them by default.
const sections = process.argv.slice(2);
const wanted = (section: string) => sections.length === 0 || sections.includes(section);
if (wanted('cli') || wanted('diff')) execFileSync(process.execPath, [path.join(REPO, 'scripts/build.mjs')], { stdio: 'inherit' });
if (wanted('cli')) main();
// Two 1 GiB sessions compared, whole and to their first divergence.
if (wanted('diff')) benchDiff();
// The app's figures (walscope serve on the big session, the 2,000-session root, the live tail).
if (wanted('service')) await benchService();
// The fleet section lives in its own file (scripts/bench-fleet.ts).
if (wanted('fleet')) await benchFleet();

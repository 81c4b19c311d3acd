// `npm run bench`: walscope measured side by side with a reference in the same run, reported as ratios.
//   1. verify of a ~1 GiB WAL of realistic records vs `sha256sum` of the same file (throughput, peak RSS);
//   2. durable appends (one barrier per record, and per group of 10) vs SQLite inserts with synchronous=FULL.
// The WAL is written once into bench-data/ and reused while it verifies. Results: docs/performance.md.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Payload } from '../src-shared/wal.js';
import { openSessionForWrite } from '../src-main/engine/session.js';
import { sessionDir, walPath } from '../src-main/engine/state-root.js';

const REPO = path.resolve(import.meta.dirname, '..');
const DATA = path.join(REPO, 'bench-data');
const VERIFY_ROOT = path.join(DATA, 'verify-root');
const VERIFY_WAL = walPath(sessionDir(VERIFY_ROOT, 'bench'));
const WAL_BYTES_TARGET = 1_000 * 1_048_576;
const ROUNDS = 3;
const APPEND_RECORDS = 2_000;

/** A deterministic PRNG (mulberry32), so every run writes the same WAL. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Log-like text that tool outputs are sliced from. */
function corpus(random: () => number, size_bytes: number): string {
  const words = ['src/', 'index.ts', 'error', 'OK', 'PASS', 'test', 'build', 'warning:', 'line', '42', 'const', 'return', '{', '}', 'README.md', 'npm', 'node_modules', '→'];
  const parts: string[] = [];
  let length = 0;
  while (length < size_bytes) {
    const line = Array.from({ length: 4 + Math.floor(random() * 10) }, () => words[Math.floor(random() * words.length)]).join(' ');
    parts.push(line);
    length += line.length + 1;
  }
  return parts.join('\n');
}

/** Tool output sizes: mostly a few KiB, some tens of KiB, a few up to 1 MiB. */
function outputSize(random: () => number): number {
  const draw = random();
  if (draw < 0.7) return 2_048 + Math.floor(random() * 6_144);
  if (draw < 0.95) return 16_384 + Math.floor(random() * 114_688);
  return 262_144 + Math.floor(random() * 786_432);
}

function writeVerifyWal(): void {
  fs.rmSync(VERIFY_ROOT, { recursive: true, force: true });
  fs.mkdirSync(VERIFY_ROOT, { recursive: true });
  const random = prng(20261129);
  const text = corpus(random, 2 * 1_048_576);
  const session = openSessionForWrite(VERIFY_ROOT, 'bench', { writer_name: 'walscope-bench' });
  const { writer } = session;
  const append = (type: string, payload: Payload) => writer.append(type, payload);
  for (let run = 1; writer.size_bytes < WAL_BYTES_TARGET; run++) {
    const run_id = `run-${run}`;
    append('run_started', { run_id, session: 'bench', config: { model: 'bench-model', max_steps: 50 }, input: [{ role: 'user', content: [{ type: 'text', text: text.slice(0, 400) }] }] });
    for (let step = 1; step <= 20 && writer.size_bytes < WAL_BYTES_TARGET; step++) {
      const calls = 1 + Math.floor(random() * 3);
      const ids = Array.from({ length: calls }, (_, index) => `call-${run}-${step}-${index}`);
      append('model_attempt_finished', { step_id: step, attempt: 1, request_len: 4_000, request_sha256: new Uint8Array(32), response_len: 900, response_sha256: new Uint8Array(32), outcome: 'ok', ts_ms: Date.now() });
      append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'text', text: text.slice(step * 100, step * 100 + 300) }, ...ids.map((id) => ({ type: 'tool_use', id, name: 'bash', input: { command: 'npm test' } }))] }, usage: { input_tokens: 4_000, output_tokens: 300 } });
      const batch_id = `batch-${run}-${step}`;
      append('tool_batch_started', { batch_id, step_id: step, sequential: false, planned_calls: ids.map((id) => ({ tool_call_id: id, name: 'bash', plan: 'dispatch' })) });
      for (const id of ids) append('tool_dispatch_intent', { batch_id, tool_call_id: id, args: { command: 'npm test' } });
      writer.barrier();
      for (const id of ids) {
        const size = outputSize(random);
        const start = Math.floor(random() * (text.length - size));
        append('tool_result', { batch_id, tool_call_id: id, outcome: 'completed', output: text.slice(start, start + size), is_error: false });
      }
      append('tool_batch_finished', { batch_id });
      append('turn_finished', { step_id: step });
      writer.barrier();
    }
    append('run_finished', { reason: 'completed', usage: { input_tokens: 80_000, output_tokens: 6_000 } });
    writer.barrier();
  }
  session.close();
}

function verifyIsUsable(): boolean {
  if (!fs.existsSync(VERIFY_WAL) || fs.statSync(VERIFY_WAL).size < WAL_BYTES_TARGET) return false;
  const result = spawnSync(process.execPath, [path.join(REPO, 'bin/walscope.js'), 'verify', VERIFY_WAL, '--json'], { encoding: 'utf8' });
  return result.status === 0;
}

interface Timed {
  seconds: number;
  peak_rss_bytes: number;
}

/** Runs a command under GNU time: wall seconds and peak resident set size. */
function timed(command: string, args: string[]): Timed {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8', maxBuffer: 64 * 1_048_576 });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const [seconds, rss_kib] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, peak_rss_bytes: rss_kib! * 1_024 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function benchVerify() {
  if (!verifyIsUsable()) {
    console.log(`writing a ~${WAL_BYTES_TARGET / 1_048_576} MiB WAL of realistic records to ${VERIFY_WAL} (once)…`);
    const started_ms = Date.now();
    writeVerifyWal();
    console.log(`  written in ${((Date.now() - started_ms) / 1_000).toFixed(1)} s`);
  }
  const size_bytes = fs.statSync(VERIFY_WAL).size;
  const sha: Timed[] = [];
  const verify: Timed[] = [];
  timed('sha256sum', [VERIFY_WAL]); // warm the page cache so both sides read from memory
  for (let round = 0; round < ROUNDS; round++) {
    sha.push(timed('sha256sum', [VERIFY_WAL]));
    verify.push(timed(process.execPath, [path.join(REPO, 'bin/walscope.js'), 'verify', VERIFY_WAL, '--json']));
  }
  const sha_mb_s = size_bytes / median(sha.map((run) => run.seconds)) / 1e6;
  const verify_mb_s = size_bytes / median(verify.map((run) => run.seconds)) / 1e6;
  return { size_bytes, sha_mb_s, verify_mb_s, ratio: verify_mb_s / sha_mb_s, verify_peak_rss_mb: Math.max(...verify.map((run) => run.peak_rss_bytes)) / 1e6 };
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

function main(): void {
  execFileSync(process.execPath, [path.join(REPO, 'scripts/build.mjs')], { stdio: 'inherit' });
  console.log(`walscope bench — ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, node ${process.version}`);
  const verify = benchVerify();
  console.log('\nverify vs sha256sum (same file, page cache warm, median of 3)');
  console.log(`  WAL size            ${(verify.size_bytes / 1_048_576).toFixed(0)} MiB`);
  console.log(`  sha256sum           ${verify.sha_mb_s.toFixed(0)} MB/s`);
  console.log(`  walscope verify     ${verify.verify_mb_s.toFixed(0)} MB/s`);
  console.log(`  ratio verify/sha    ${verify.ratio.toFixed(2)}  (aim: ≥ 0.50)`);
  console.log(`  verify peak RSS     ${verify.verify_peak_rss_mb.toFixed(0)} MB  (aim: < 200 MB)`);
  console.log(`\ndurable appends vs SQLite (synchronous=FULL, WAL journal), ${APPEND_RECORDS} records of ~300 B`);
  for (const group of [1, 10]) {
    const appends = benchAppends(group);
    console.log(`  ${String(group).padStart(2)} per barrier/commit: walscope ${appends.wal_per_s.toFixed(0)}/s, SQLite ${appends.sqlite_per_s.toFixed(0)}/s, ratio ${appends.ratio.toFixed(2)}`);
  }
}

main();

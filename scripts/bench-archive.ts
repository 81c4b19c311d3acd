// `npx tsx scripts/bench-archive.ts` (after `node scripts/build-cli.mjs`): the archive (wal-format §11) measured
// side by side with `sha256sum` of the same archive file, in the same run, as ratios:
//   1. `walscope verify SESSION --json` — every member header walked, every sealed member hashed and read as a
//      WAL — as throughput against sha256sum's;
//   2. `walscope lineages SESSION --find ABSENT --json` — a covering read: every header, no content — as time
//      against sha256sum reading the whole file, with the index valid and with it missing.
// The session is written once into bench-data/ and reused. Results: docs/performance.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { archiveIndexPath, archivePath } from '../src-main/engine/archive-format.js';
import { retireLineage } from '../src-main/engine/retire.js';
import { openSessionForWrite } from '../src-main/engine/session.js';
import { sessionDir } from '../src-main/engine/state-root.js';

const REPO = path.resolve(import.meta.dirname, '..');
const ROOT = path.join(REPO, 'bench-data', 'archive-root');
const SESSION = 'bench';
const DIR = sessionDir(ROOT, SESSION);
const MEMBERS = 64;
const RECORDS_PER_MEMBER = 64;
const RECORD_TEXT_BYTES = 16_384;
const ROUNDS = 3;

function writeSession(): void {
  fs.rmSync(ROOT, { recursive: true, force: true });
  fs.mkdirSync(ROOT, { recursive: true });
  const text = 'x'.repeat(RECORD_TEXT_BYTES);
  for (let member = 0; member <= MEMBERS; member++) {
    const session = openSessionForWrite(ROOT, SESSION, { writer_name: 'walscope-bench' });
    for (let step = 1; step <= RECORDS_PER_MEMBER; step++) {
      session.writer.append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'text', text }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    }
    session.close();
    if (member < MEMBERS) retireLineage(ROOT, SESSION, { writer_name: 'walscope-bench', reason: 'sealed' });
  }
}

function timed(command: string, args: string[]): number {
  const result = spawnSync('/usr/bin/time', ['-f', '%e', command, ...args], { encoding: 'utf8', maxBuffer: 64 * 1_048_576 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return Number(result.stderr.trim().split('\n').at(-1));
}

function median(values: number[]): number {
  return [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;
}

function main(): void {
  if (!fs.existsSync(archivePath(DIR))) writeSession();
  const walscope = path.join(REPO, 'bin/walscope.js');
  const archive_bytes = fs.statSync(archivePath(DIR)).size;
  const index = fs.readFileSync(archiveIndexPath(DIR));
  timed('sha256sum', [archivePath(DIR)]); // warm the page cache so every side reads from memory
  const sha: number[] = [];
  const verify: number[] = [];
  const find_indexed: number[] = [];
  const find_unindexed: number[] = [];
  const startup: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    startup.push(timed(process.execPath, [walscope, '--help']));
    sha.push(timed('sha256sum', [archivePath(DIR)]));
    verify.push(timed(process.execPath, [walscope, 'verify', DIR, '--json']));
    find_indexed.push(timed(process.execPath, [walscope, 'lineages', DIR, '--find', '0'.repeat(32), '--json']));
    fs.rmSync(archiveIndexPath(DIR));
    find_unindexed.push(timed(process.execPath, [walscope, 'lineages', DIR, '--find', '0'.repeat(32), '--json']));
    fs.writeFileSync(archiveIndexPath(DIR), index);
  }
  const mb_s = (seconds: number) => archive_bytes / seconds / 1e6;
  const result = {
    archive_mb: archive_bytes / 1e6,
    members: MEMBERS,
    sha256sum_mb_s: mb_s(median(sha)),
    verify_mb_s: mb_s(median(verify)),
    verify_ratio: median(sha) / median(verify),
    find_indexed_s: median(find_indexed),
    find_unindexed_s: median(find_unindexed),
    find_vs_sha256sum: median(find_unindexed) / median(sha),
    /** What any walscope command costs before it reads a byte: node starting and loading the bundle. */
    startup_s: median(startup),
  };
  console.log(JSON.stringify(result, null, 2));
}

main();

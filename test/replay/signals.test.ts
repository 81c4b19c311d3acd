// The run's status as the list, header, `replay` and `verify --json` say it, over the real demo root and
// copies of its WALs: a finished run holding an unknown-outcome call is not "finished", a cut or damaged
// WAL is not "running", and error results are counted.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { replayTarget } from '../../src-main/replay/report.js';
import { episodeWord } from '../../src-main/replay/signals.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-signals-');
const REPO = path.resolve(import.meta.dirname, '../..');

/** One demo root for the file (building it is the slow part); the tests only read it. */
function demoRoot(): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-signals-root-'));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
  const root = path.join(work, 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  return root;
}

const runOf = (target: string) => replayTarget(resolveTargets(target)[0]!).run;

describe('the run signal', () => {
  const root = demoRoot();

  it('a finished run holding an unknown-outcome call is finished_unconfirmed, naming the call and what to check', () => {
    const run = runOf(sessionDir(root, 'parallel-unknown'));
    expect(run.status).toBe('finished_unconfirmed');
    expect(run.unconfirmed).toEqual([expect.objectContaining({ episode: 1, tool_call_id: 'u1', name: 'charge_card', closed_out_seq: 8 })]);
    expect(run.unconfirmed[0]!.may_have).toMatch(/^charge_card \S+ may have been applied — check \S+$/);
    expect(run.detail).toContain('owner must decide');
  });

  it('clean finished runs stay finished; error results are counted', () => {
    expect(runOf(sessionDir(root, 'finished')).status).toBe('finished');
    const approvals = runOf(sessionDir(root, 'approvals'));
    expect(approvals.status).toBe('finished');
    expect(approvals.error_results).toBe(2);
    expect(runOf(sessionDir(root, 'finished')).error_results).toBe(0);
  });

  it('a torn tail is cut, with the last durable state before it (here: the final answer)', () => {
    const replay = replayTarget(resolveTargets(sessionDir(root, 'torn-tail'))[0]!);
    expect(replay.run.status).toBe('cut');
    expect(replay.run.last_durable).toContain('natural end');
    expect(replay.run.last_durable).toContain('no run_finished');
    const episode = replay.fold.episodes[0]!;
    expect(episode.state).toBe('running');
    expect(episodeWord(episode, replay.run, 1)).toBe('cut short');
  });

  it('non-tail damage is cut at the damage offset, and the dispatched call without a result is unconfirmed', () => {
    const run = runOf(sessionDir(root, 'corrupt-middle'));
    expect(run.status).toBe('cut');
    expect(run.detail).toMatch(/damaged at offset \d+/);
    expect(run.unconfirmed.map((call) => call.tool_call_id)).toEqual(['c1']);
  });

  it('an export cut in transfer (a copy missing its last bytes) is cut; an intact export of an open run is "open in this copy"', () => {
    const exports = tempDir();
    const cut = path.join(exports, 'cut.wal');
    const whole = fs.readFileSync(walPath(sessionDir(root, 'finished')));
    fs.writeFileSync(cut, whole.subarray(0, whole.length - 7));
    const cutReplay = replayTarget(resolveTargets(cut)[0]!);
    expect(cutReplay.run.status).toBe('cut');
    expect(episodeWord(cutReplay.fold.episodes[0]!, cutReplay.run, 1)).toBe('cut short');

    const open = path.join(exports, 'open.wal');
    fs.copyFileSync(walPath(sessionDir(root, 'indeterminate')), open);
    const openReplay = replayTarget(resolveTargets(open)[0]!);
    expect(openReplay.run.status).toBe('open');
    expect(openReplay.run.last_durable).toMatch(/batch \S+ open/);
    expect(episodeWord(openReplay.fold.episodes[0]!, openReplay.run, 1)).toBe('open in this copy');
  });

  it('verify --json and replay --json carry the status as a new field, run', () => {
    const cli = (...args: string[]) => JSON.parse(spawnSync(process.execPath, ['bin/walscope.js', ...args], { cwd: REPO, encoding: 'utf8' }).stdout) as { run: { status: string } };
    expect(cli('verify', sessionDir(root, 'parallel-unknown'), '--json').run.status).toBe('finished_unconfirmed');
    expect(cli('replay', sessionDir(root, 'parallel-unknown'), '--json').run.status).toBe('finished_unconfirmed');
    expect(cli('verify', sessionDir(root, 'torn-tail'), '--json').run.status).toBe('cut');
  });

  it('a flipped byte in the middle is cut, never running', () => {
    const flipped = path.join(tempDir(), 'flipped.wal');
    const bytes = Buffer.from(fs.readFileSync(walPath(sessionDir(root, 'finished'))));
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    fs.writeFileSync(flipped, bytes);
    const replay = replayTarget(resolveTargets(flipped)[0]!);
    expect(replay.read.error).not.toBeNull();
    expect(replay.run.status).toBe('cut');
  });
});

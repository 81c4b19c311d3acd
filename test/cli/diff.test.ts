// `walscope diff` on the demo state root, as real child processes of the built CLI: a resumed session against
// the crashed original (the close-out is the first divergence), a sealed lineage against its session's live one
// (the member read is named), a lineage that cannot be opened, usage errors, and neither side ever written.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompareJson } from '../../src-shared/compare.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { useTempDirs } from '../helpers/temp.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'bin/walscope.js');
const tempDir = useTempDirs('walscope-diff-');

function walscope(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8' });
}

function diffJson(...args: string[]): { code: number | null; json: CompareJson } {
  const run = walscope('diff', ...args, '--json');
  return { code: run.status, json: JSON.parse(run.stdout) as CompareJson };
}

/** Every file's SHA-256 under `dir`, by relative path. */
function digests(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const file = path.join(dir, entry);
    if (fs.statSync(file).isFile()) found[entry] = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  }
  return found;
}

describe('walscope diff on the demo', () => {
  let demo = '';
  beforeAll(() => {
    demo = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-diff-demo-')), 'root');
    buildDemoRoot(demo);
    return () => fs.rmSync(path.dirname(demo), { recursive: true, force: true });
  });
  const session = (root: string, id: string) => path.join(root, 'sessions', id);

  it('a resumed session against its crashed original: the close-out is the first divergence, then how the run ended', () => {
    const resumed = path.join(tempDir(), 'root');
    fs.cpSync(demo, resumed, { recursive: true });
    const resume = walscope('resume', session(resumed, 'indeterminate'), '--yes', '--reason', 'diff test');
    expect(resume.status, resume.stderr).toBe(0);
    const { code, json } = diffJson(session(demo, 'indeterminate'), session(resumed, 'indeterminate'));
    expect(code).toBe(1);
    expect(json.first_divergence).toEqual({ episode: 1, step_id: 1, kind: 'call_outcome', sentence: 'episode 1, step 1: `edit_file` call 2 has a result recorded in B only (tool_result, outcome unknown)' });
    expect(json.steps[0]!.calls.map((call) => [call.a!.class, call.b!.class, call.b!.outcome])).toEqual([['completed', 'completed', 'completed'], ['indeterminate', 'indeterminate', 'unknown']]);
    expect(json.episode_differences).toEqual([{ episode: 1, difference: { kind: 'episode_end', sentence: 'the run has no run_finished (running) in A, finished (interrupted) in B', words: null } }]);
  });

  it('a sealed lineage against its session\'s live lineage: the archive member read is named, and nothing is written', () => {
    const history = session(demo, 'history');
    const lineages = JSON.parse(walscope('lineages', history, '--json').stdout) as { lineages: { wal_id: string; where: string }[] };
    const sealed = lineages.lineages.find((lineage) => lineage.where === 'sealed')!.wal_id;
    const before = digests(history);
    const { code, json } = diffJson(`${history}@${sealed}`, history);
    expect(digests(history)).toEqual(before);
    expect(json.a).toMatchObject({ member: sealed, wal_id: sealed, session: `history@${sealed}`, trust: 'whole' });
    expect(json.b).toMatchObject({ member: null, session: 'history', trust: 'whole' });
    // The lineages ran the same script: their runner tags and notice numbers differ, which no step shows.
    expect(json.identical).toBe(true);
    expect(code).toBe(0);
    const text = walscope('diff', `${history}@${sealed}`, history).stdout.split('\n');
    expect(text[0]).toBe(`A: ${history}@${sealed} (session history@${sealed}), wal_id ${sealed}, archive member ${sealed}: read whole`);
    expect(text[2]).toBe(`no difference: ${json.steps_compared} steps of 3 episodes compared, all the same`);
  });

  it('a session against a damaged one: compared up to the damage, which the divergence names', () => {
    const { json } = diffJson(session(demo, 'finished'), session(demo, 'corrupt-middle'));
    expect(json.b.trust).toBe('refused');
    expect(json.first_divergence!.sentence).toContain(`— B's records end here: it is refused (damaged) at offset ${json.b.error!.offset!.toLocaleString('en-US')}`);
  });

  it('--episode compares that episode of each side only', () => {
    const history = session(demo, 'history');
    const { json } = diffJson(history, history, '--episode', '2');
    expect(json.episodes).toEqual([2]);
    expect(new Set(json.steps.map((step) => step.episode))).toEqual(new Set([2]));
  });

  it('a lineage that is not a sealed member, and usage errors: one line each, exit 1 and 2', () => {
    const history = session(demo, 'history');
    const deleted = walscope('diff', `${history}@${'0'.repeat(32)}`, history);
    expect(deleted.status).toBe(1);
    expect(deleted.stderr).toMatch(/^walscope diff: .*history@0{32}: lineage 0{32} is not a sealed member/);
    expect(walscope('diff', history).status).toBe(2);
    expect(walscope('diff', history, history, '--episode', 'x').status).toBe(2);
    expect(walscope('diff', demo, history).stderr).toContain('is a state root: diff takes one session folder');
  });
});

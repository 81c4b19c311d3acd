// `walscope diff` on the real sessions (issue 31), as real child processes of the built CLI over real files: a
// session against itself, against its copy cut where a process killed mid-batch leaves it, against its copy
// with one byte flipped, and two different agents' sessions.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompareJson } from '../../src-shared/compare.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { realdataMissing, useRealSessions } from '../fixtures/realdata/fixtures.js';
import type { RealSessionId } from '../fixtures/realdata/sources.js';
import { useTempDirs } from '../helpers/temp.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'bin/walscope.js');
const missing = realdataMissing();
if (missing !== null) console.warn(missing);

const MINI: RealSessionId = 'real-mini-swe-agent-astroid-1333';
const SWE: RealSessionId = 'real-swe-agent-pydicom-1458';
/** The step whose batch the cut copies lose their result in: far enough in that many steps before are equal. */
const CUT_STEP = 40;

function diff(...args: string[]): { code: number | null; json: CompareJson; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'diff', ...args, '--json'], { cwd: REPO, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { code: run.status, json: JSON.parse(run.stdout) as CompareJson, stderr: run.stderr };
}

describe.skipIf(missing !== null)('walscope diff on the real sessions', () => {
  const real = useRealSessions();
  const tempDir = useTempDirs('walscope-compare-');
  const dir = (id: RealSessionId) => sessionDir(real().root, id);
  /** Where step CUT_STEP's first call's tool_result frame starts, and that call's name and step count. */
  const cutPoint = (id: RealSessionId) => {
    const fold = replayTarget(resolveTargets(dir(id))[0]!).fold;
    const episode = fold.episodes[0]!;
    const step = episode.steps.find((candidate) => candidate.step_id === CUT_STEP)!;
    const call = episode.batches.find((batch) => batch.batch_id === step.batch_id)!.calls[0]!;
    return { offset: call.terminals[0]!.offset, name: call.name, steps: episode.steps.length };
  };
  const copyOfWal = (id: RealSessionId, change: (bytes: Buffer) => Buffer) => {
    const file = path.join(tempDir(), 'wal');
    fs.writeFileSync(file, change(fs.readFileSync(walPath(dir(id)))));
    return file;
  };

  it('a session against itself: no difference, every step compared, exit 0', () => {
    const { code, json } = diff(dir(MINI), dir(MINI));
    expect(code).toBe(0);
    expect(json.identical).toBe(true);
    expect(json.first_divergence).toBeNull();
    expect(json.steps_compared).toBe(cutPoint(MINI).steps);
    expect(json.steps.every((step) => step.identical && step.differences.length === 0)).toBe(true);
    expect(json.a.trust).toBe('whole');
  });

  it('against its copy killed mid-batch (cut at a frame boundary before a result): the first divergence is the call left indeterminate', () => {
    const cut = cutPoint(MINI);
    const killed = copyOfWal(MINI, (bytes) => bytes.subarray(0, cut.offset));
    const { code, json } = diff(dir(MINI), killed);
    expect(code).toBe(1);
    expect(json.first_divergence).toEqual({ episode: 1, step_id: CUT_STEP, kind: 'call_class', sentence: `episode 1, step ${CUT_STEP}: \`${cut.name}\` call 1 is completed in A, outcome unknown in B` });
    const step = json.steps.find((entry) => entry.step_id === CUT_STEP)!;
    expect(step.calls[0]).toMatchObject({ matched_by: 'tool_call_id', a: { class: 'completed' }, b: { class: 'indeterminate', outcome: null } });
    expect(step.calls[0]!.differences[0]!.kind).toBe('call_class');
    // Every step before is the same; every step after is A's alone.
    expect(json.steps.filter((entry) => entry.step_id < CUT_STEP).every((entry) => entry.identical)).toBe(true);
    expect(json.steps.filter((entry) => entry.step_id > CUT_STEP).map((entry) => entry.differences[0]!.kind)).toEqual(Array(cut.steps - CUT_STEP).fill('step_missing'));
    expect(json.b.trust).toBe('whole');
    // --first says the same first divergence (the real sessions are smaller than its first prefix: read whole).
    const first = diff(dir(MINI), killed, '--first');
    expect(first.code).toBe(1);
    expect(first.json.first_divergence).toEqual(json.first_divergence);
    expect(first.json.steps.at(-1)!.step_id).toBe(CUT_STEP);
  });

  it('against its copy with a flipped byte: compared up to the damage, and the divergence says where B stops being trusted', () => {
    const cut = cutPoint(MINI);
    const flipped = copyOfWal(MINI, (bytes) => {
      const copy = Buffer.from(bytes);
      copy[cut.offset + 40]! ^= 0x01;
      return copy;
    });
    const { code, json } = diff(dir(MINI), flipped);
    expect(code).toBe(1);
    expect(json.b.trust).toBe('refused');
    expect(json.b.error).toMatchObject({ kind: 'non_tail_corruption', offset: cut.offset });
    expect(json.b.valid_bytes).toBe(cut.offset);
    expect(json.first_divergence).toMatchObject({ episode: 1, step_id: CUT_STEP, kind: 'call_class' });
    expect(json.first_divergence!.sentence).toContain(`— B's records end here: it is refused (damaged) at offset ${cut.offset.toLocaleString('en-US')}`);
    expect(json.steps.filter((entry) => entry.step_id < CUT_STEP).every((entry) => entry.identical)).toBe(true);
  });

  it('two different agents\' sessions: the first divergence is at step 1, in the request', () => {
    const { code, json } = diff(dir(SWE), dir(MINI));
    expect(code).toBe(1);
    expect(json.first_divergence).toMatchObject({ episode: 1, step_id: 1, kind: 'request' });
    expect(json.first_divergence!.sentence).toMatch(/^episode 1, step 1: the request differs at message 1 \(/);
    expect(json.steps[0]!.differences[0]!.words).not.toBeNull();
    const first = diff(dir(SWE), dir(MINI), '--first');
    expect(first.json.first_divergence).toEqual(json.first_divergence);
    expect(first.json.steps).toHaveLength(1);
  });

  it('human output: the first divergence first, then the steps, identical runs folded', () => {
    const cut = cutPoint(MINI);
    const killed = copyOfWal(MINI, (bytes) => bytes.subarray(0, cut.offset));
    const run = spawnSync(process.execPath, [CLI, 'diff', dir(MINI), killed], { cwd: REPO, encoding: 'utf8' });
    const lines = run.stdout.split('\n');
    expect(lines[2]).toBe(`first divergence: episode 1, step ${CUT_STEP}: \`${cut.name}\` call 1 is completed in A, outcome unknown in B`);
    expect(lines).toContain(`  steps 1–${CUT_STEP - 1}: identical`);
    // Each side's class and outcome, A's with its recorded duration.
    expect(lines.filter((line) => new RegExp(`^    call 1 \`${cut.name}\`: completed \\(\\d+ ms\\) in A, outcome unknown in B$`).test(line))).toHaveLength(1);
  });
});

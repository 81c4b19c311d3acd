// `diff --first` (recovery/compare-target.ts firstDivergenceOf): both sides read in growing prefixes, stopping
// at the first divergence no later record can change. Its divergence is always the whole comparison's, and a
// run that parts early is read only in part.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetsOf } from '../../src-main/cli/targets.js';
import { compareTargets, firstDivergenceOf, type CompareTarget } from '../../src-main/recovery/compare-target.js';
import { longTailOutputBytes, writeSessionWal, type SessionShape } from '../../scripts/bench-data.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-compare-first-');
const MIB = 1_048_576;

function sideOf(file: string): CompareTarget {
  return { name: file, target: targetsOf(file)[0]!, member: null };
}

function written(dir: string, name: string, shape: Partial<SessionShape>): string {
  const file = path.join(dir, `${name}.wal`);
  writeSessionWal(file, { seed: 3, size_bytes_target: 24 * MIB, outputBytes: longTailOutputBytes, steps_per_run: 10, ...shape });
  return file;
}

describe('diff --first', () => {
  it('finds the whole comparison\'s first divergence, reading a run that parts early only in part', () => {
    const dir = tempDir();
    const a = written(dir, 'a', {});
    const early = written(dir, 'early', { changed_output: { run: 1, step: 3 } });
    const late = written(dir, 'late', { changed_output: { run: 12, step: 4 } });
    for (const other of [early, late]) {
      const whole = compareTargets(sideOf(a), sideOf(other), { episode: null });
      const first = firstDivergenceOf(sideOf(a), sideOf(other), { episode: null });
      expect(first.first_divergence).toEqual(whole.first_divergence);
      expect(first.first_divergence).not.toBeNull();
      expect(first.steps.at(-1)).toEqual(whole.steps.find((step) => !step.identical));
      expect(first.steps_differing).toBe(1);
    }
    const first = firstDivergenceOf(sideOf(a), sideOf(early), { episode: null });
    expect(first.first_divergence?.sentence).toMatch(/^episode 1, step 3: the output of `bash` call 1 differs/);
    expect(first.a.trust).toBe('stopped');
    expect(first.b.valid_bytes).toBeLessThan(fs.statSync(early).size / 2);
    expect(first.b.trust_words).toMatch(/^only its first [\d,]+ of [\d,]+ bytes \(up to seq \d+\) were read: reading stopped at the first divergence/);
  });

  it('reads two sessions that are the same whole, and says so as the whole comparison does', () => {
    const dir = tempDir();
    const [a, b] = [written(dir, 'a', { size_bytes_target: 9 * MIB }), written(dir, 'b', { size_bytes_target: 9 * MIB })];
    const first = firstDivergenceOf(sideOf(a), sideOf(b), { episode: null });
    expect(first).toEqual(compareTargets(sideOf(a), sideOf(b), { episode: null }));
    expect(first.identical).toBe(true);
    expect(first.a.trust).toBe('whole');
  });

  it('waits for a side whose run was cut mid-batch: the call left without a result is its first divergence', () => {
    const dir = tempDir();
    const a = written(dir, 'a', {});
    const cut = path.join(dir, 'cut.wal');
    // The copy ends inside a batch: a runtime killed there (a torn tail is never compared).
    const bytes = fs.readFileSync(a);
    const whole = compareTargets(sideOf(a), sideOf(a), { episode: null });
    expect(whole.identical).toBe(true);
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const expected = compareTargets(sideOf(a), sideOf(cut), { episode: null });
    const first = firstDivergenceOf(sideOf(a), sideOf(cut), { episode: null });
    expect(first.first_divergence).toEqual(expected.first_divergence);
    expect(first.b.trust).toBe(expected.b.trust);
  });
});

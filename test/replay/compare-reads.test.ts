// A comparison reads each payload of a side once, however many later requests carry the message it is in: a
// step's request holds every earlier step's messages, and reading them again at every step made two 1 GiB
// sessions' comparison quadratic (over 300 s; docs/compare.md "Streaming and limits").
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { withPayloadPass } from '../../src-main/recovery/payloads.js';
import { compareSessions, type CompareInput } from '../../src-main/replay/compare.js';
import { compareSide } from '../../src-main/replay/compare-side.js';
import type { PayloadReader } from '../../src-main/replay/payloads.js';
import { longTailOutputBytes, writeSessionWal } from '../../scripts/bench-data.js';
import { targetsOf } from '../../src-main/cli/targets.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-compare-reads-');

/** Compares `a` with `b`, counting each side's payload reads by record offset and projection (a message is
 *  measured where it lies, and read whole once if it is shown: two reads of one offset, each once). */
function compareCounting(a: string, b: string): { identical: boolean; first: string | null; reads: Map<number, number>[] } {
  const reads = [new Map<number, number>(), new Map<number, number>()];
  const input = (file: string, side: number, payloads: PayloadReader): CompareInput => {
    const target = targetsOf(file)[0]!;
    const replay = replayTarget(target);
    const projections = new Map<unknown, number>();
    const counted: PayloadReader = (offset, projection) => {
      if (!projections.has(projection)) projections.set(projection, projections.size);
      const key = offset * 16 + projections.get(projection)!;
      reads[side]!.set(key, (reads[side]!.get(key) ?? 0) + 1);
      return payloads(offset, projection);
    };
    return { side: compareSide(file, null, null, replay), fold: replay.fold, payloads: counted, sums: replay.sums };
  };
  const result = withPayloadPass(a, (pa) => withPayloadPass(b, (pb) => compareSessions(input(a, 0, pa), input(b, 1, pb), { episode: null })));
  return { identical: result.identical, first: result.first_divergence?.sentence ?? null, reads };
}

describe('a comparison reads each payload once', () => {
  it('over sessions of many episodes and steps, identical or not', () => {
    const dir = tempDir();
    const [a, b] = [path.join(dir, 'a.wal'), path.join(dir, 'b.wal')];
    writeSessionWal(a, { seed: 7, records_target: 3_000, outputBytes: longTailOutputBytes, steps_per_run: 12 });
    writeSessionWal(b, { seed: 7, records_target: 3_000, outputBytes: longTailOutputBytes, steps_per_run: 12 });
    const same = compareCounting(a, b);
    expect(same.identical).toBe(true);
    for (const reads of same.reads) {
      expect(reads.size).toBeGreaterThan(1_000);
      expect(Math.max(...reads.values())).toBe(1);
    }
    // Two different sessions differ at every output, each word-diffed: fewer records keep the test short.
    const [c, other] = [path.join(dir, 'c.wal'), path.join(dir, 'other.wal')];
    writeSessionWal(c, { seed: 7, records_target: 300, outputBytes: longTailOutputBytes, steps_per_run: 12 });
    writeSessionWal(other, { seed: 8, records_target: 300, outputBytes: longTailOutputBytes, steps_per_run: 12 });
    const differing = compareCounting(c, other);
    expect(differing.first).toMatch(/^episode 1, step 1: /);
    for (const reads of differing.reads) expect(Math.max(...reads.values())).toBe(1);
  });
});

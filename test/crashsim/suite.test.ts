// The quick fixed crash set the README's test command runs: every persistence point of every scripted
// session under each image kind (synced only, everything written, a seeded random prefix with torn writes),
// then a fixed range of random seeds whose recoveries may crash again. Zero violations, every resume action
// of the replay library exercised, and every case replays exactly from its text.
import { describe, expect, it } from 'vitest';
import { parseCase } from '../../src-main/crashsim/case.js';
import { describeViolations, simulate } from '../../src-main/crashsim/simulate.js';
import { exhaustiveSuite, randomCase, randomSuite } from '../../src-main/crashsim/suite.js';
import { CRASH_SESSIONS } from '../../src-main/runtime/catalog.js';

/** Seeds of the fixed random set; `npm run test:crash -- --seeds N` runs as many as you like. */
const RANDOM_SEEDS = 200;
/** sim-compaction (131 points, three runs) takes 45 s alone, and over 130 s while six other engineers share the 2 cores. */
const EXHAUSTIVE_TIMEOUT_MS = 300_000;

describe('crash simulator, exhaustive', () => {
  it.each(CRASH_SESSIONS.map((script) => [script.session_id] as const))('%s: every persistence point, every image, zero violations', (session) => {
    const report = exhaustiveSuite({ sessions: [session] });
    expect(report.failures.map(describeViolations)).toEqual([]);
    expect(report.cases).toBe(report.points[session]! * 3 + 1);
    expect(report.points[session]).toBeGreaterThan(20);
  }, EXHAUSTIVE_TIMEOUT_MS);
});

describe('crash simulator, seeded random', () => {
  it(`seeds 0..${RANDOM_SEEDS - 1}: zero violations, recoveries crash again`, () => {
    const report = randomSuite(Array.from({ length: RANDOM_SEEDS }, (_, seed) => seed));
    expect(report.failures.map(describeViolations)).toEqual([]);
    const repeated = Array.from({ length: RANDOM_SEEDS }, (_, seed) => randomCase(seed)).filter((crash_case) => crash_case.crashes.length > 1);
    expect(repeated.length).toBeGreaterThan(RANDOM_SEEDS / 4);
  });

  it('a case replays exactly from its text', () => {
    const first = simulate(randomCase(4242));
    const again = simulate(parseCase(first.replay));
    expect(again.replay).toBe(first.replay);
    expect(again.processes).toEqual(first.processes);
    expect(again.violations).toEqual(first.violations);
  });

  it('every resume action of the replay library is exercised by some crash', () => {
    const actions = new Set<string>();
    for (const script of CRASH_SESSIONS) {
      for (let point = 0; point < 100; point += 3) {
        const result = simulate({ session: script.session_id, seed: point, plants: [], crashes: [{ after_mutations: point, image: 'all' }] });
        const recovery = result.processes[1]?.recovery;
        if (recovery != null) actions.add(recovery);
      }
    }
    expect([...actions].sort()).toEqual(['cancel_close_out', 'close_out', 'continue', 'finalize', 'none', 'wait_held']);
  });
});

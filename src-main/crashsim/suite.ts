// The two ways the simulator crashes sessions: exhaustively (every persistence point of every scripted
// session, each with every image kind) and at random (a seed picks the session, the points — recoveries that
// crash again included — and the images). Both return every result that broke an invariant, each with the
// text that replays it.
import { CRASH_SESSIONS } from '../runtime/catalog.js';
import type { PlantName } from '../runtime/plants.js';
import { CRASHES_PER_CASE_MAX, type CrashCase, type CrashPoint } from './case.js';
import { IMAGE_KINDS, type ImageKind } from './disk.js';
import { Prng } from './prng.js';
import { dryRun, simulate, type SimResult } from './simulate.js';

export interface SuiteOptions {
  sessions?: readonly string[];
  images?: readonly ImageKind[];
  plants?: readonly PlantName[];
  /** Stop at the first violation (a planted-bug test needs one, not all). */
  stop_at_first?: boolean;
}

export interface SuiteReport {
  cases: number;
  /** Persistence points of each session crashed (exhaustive) or sampled from (random). */
  points: Record<string, number>;
  failures: SimResult[];
  elapsed_ms: number;
}

const dryRuns = new Map<string, SimResult>();

/** The session's run without a crash (cached): its persistence points, and any violation it has already. */
function dry(session: string, plants: readonly PlantName[]): SimResult {
  const key = `${session}/${[...plants].sort().join('+')}`;
  let result = dryRuns.get(key);
  if (result === undefined) {
    result = dryRun(session, [...plants]);
    dryRuns.set(key, result);
  }
  return result;
}

function pointsOf(session: string, plants: readonly PlantName[]): number {
  return dry(session, plants).processes[0]!.mutations;
}

/** The span of mutations at a recovery's start (lease, truncation, lineage, resume records) that random cases
 *  favour for crashes during recovery. */
const RECOVERY_EARLY_MUTATIONS = 16;

function sessionIds(options: SuiteOptions): readonly string[] {
  return options.sessions ?? CRASH_SESSIONS.map((script) => script.session_id);
}

/** Every persistence point of every session, under every image kind: a crash just before each mutation. */
export function exhaustiveSuite(options: SuiteOptions = {}): SuiteReport {
  const started_ms = performance.now();
  const plants = [...(options.plants ?? [])];
  const images = options.images ?? IMAGE_KINDS;
  const report: SuiteReport = { cases: 0, points: {}, failures: [], elapsed_ms: 0 };
  for (const [session_index, session] of sessionIds(options).entries()) {
    const uncrashed = dry(session, plants);
    const points = uncrashed.processes[0]!.mutations;
    report.points[session] = points;
    report.cases += 1;
    if (uncrashed.violations.length > 0) {
      report.failures.push(uncrashed);
      if (options.stop_at_first) return finish(report, started_ms);
    }
    for (let point = 0; point < points; point++) {
      for (const [image_index, image] of images.entries()) {
        const seed = session_index * 1_000_000 + point * IMAGE_KINDS.length + image_index;
        const result = simulate({ session, seed, plants, crashes: [{ after_mutations: point, image }] });
        report.cases += 1;
        if (result.violations.length === 0) continue;
        report.failures.push(result);
        if (options.stop_at_first) return finish(report, started_ms);
      }
    }
  }
  return finish(report, started_ms);
}

/** The case a seed stands for: a session, a first crash anywhere in it, and maybe recoveries that crash. */
export function randomCase(seed: number, options: SuiteOptions = {}): CrashCase {
  const prng = new Prng(seed, 0xc0ffee);
  const plants = [...(options.plants ?? [])];
  const session = prng.pick(sessionIds(options));
  const images = options.images ?? IMAGE_KINDS;
  const points = pointsOf(session, plants);
  const crashes: CrashPoint[] = [{ after_mutations: prng.int(points), image: prng.pick(images) }];
  // Recoveries often make far fewer mutations than the whole session (a close-out is a dozen): half the
  // repeat crashes fall in the first few, so recoveries really do die during recovery.
  while (crashes.length < CRASHES_PER_CASE_MAX - 1 && prng.chance(0.5)) {
    const after_mutations = prng.chance(0.5) ? prng.int(RECOVERY_EARLY_MUTATIONS) : prng.int(points);
    crashes.push({ after_mutations, image: prng.pick(images) });
  }
  return { session, seed, plants, crashes };
}

export function randomSuite(seeds: readonly number[], options: SuiteOptions = {}): SuiteReport {
  const started_ms = performance.now();
  const report: SuiteReport = { cases: 0, points: {}, failures: [], elapsed_ms: 0 };
  for (const seed of seeds) {
    const crash_case = randomCase(seed, options);
    report.points[crash_case.session] = pointsOf(crash_case.session, crash_case.plants);
    const result = simulate(crash_case);
    report.cases += 1;
    if (result.violations.length === 0) continue;
    report.failures.push(result);
    if (options.stop_at_first) break;
  }
  return finish(report, started_ms);
}

function finish(report: SuiteReport, started_ms: number): SuiteReport {
  report.elapsed_ms = Math.round(performance.now() - started_ms);
  return report;
}

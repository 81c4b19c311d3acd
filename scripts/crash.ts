// `npm run test:crash -- [--seeds N] [--from S] [--exhaustive] [--plant NAME] [--replay CASE]`
//
// Runs the crash simulator at scale: every persistence point of every scripted session under every image kind
// (--exhaustive, also what runs when --seeds is absent or 0), then N seeded random cases (recoveries that
// crash again included). Each violation prints its seed, crash points and the exact --replay text. With
// --plant, a planted bug is switched on and the run succeeds only if the simulator catches it.
import { parseArgs } from 'node:util';
import { parseCase } from '../src-main/crashsim/case.js';
import { describeViolations, simulate } from '../src-main/crashsim/simulate.js';
import { exhaustiveSuite, randomSuite, type SuiteReport } from '../src-main/crashsim/suite.js';
import { PLANT_NAMES, type PlantName } from '../src-main/runtime/plants.js';

/** Seeds one invocation may run: bounds the run, not the search (use --from to continue). */
const SEEDS_MAX = 10_000_000;
const FAILURES_SHOWN_MAX = 20;

function main(): number {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string' },
      from: { type: 'string' },
      exhaustive: { type: 'boolean' },
      plant: { type: 'string', multiple: true },
      replay: { type: 'string' },
    },
    strict: true,
  });
  if (values.replay !== undefined) return replay(values.replay);
  const plants = (values.plant ?? []) as PlantName[];
  for (const plant of plants) if (!PLANT_NAMES.includes(plant)) throw new Error(`unknown plant ${plant}; known: ${PLANT_NAMES.join(', ')}`);
  const seeds = values.seeds === undefined ? 0 : Number(values.seeds);
  const from = values.from === undefined ? 0 : Number(values.from);
  if (!Number.isSafeInteger(seeds) || seeds < 0 || seeds > SEEDS_MAX) throw new Error(`--seeds takes 0..${SEEDS_MAX}`);
  if (!Number.isSafeInteger(from) || from < 0) throw new Error('--from takes a non-negative integer');
  const reports: SuiteReport[] = [];
  const stop_at_first = plants.length > 0;
  if (values.exhaustive === true || seeds === 0) {
    const report = exhaustiveSuite({ plants, stop_at_first });
    print('exhaustive', report);
    reports.push(report);
  }
  if (seeds > 0) {
    const report = randomSuite(Array.from({ length: seeds }, (_, index) => from + index), { plants, stop_at_first });
    print(`random seeds ${from}..${from + seeds - 1}`, report);
    reports.push(report);
  }
  const failures = reports.flatMap((report) => report.failures);
  for (const failure of failures.slice(0, FAILURES_SHOWN_MAX)) process.stdout.write(`\n${describeViolations(failure)}\n`);
  if (plants.length > 0) {
    process.stdout.write(failures.length > 0 ? `\nplanted ${plants.join('+')}: caught\n` : `\nplanted ${plants.join('+')}: NOT caught\n`);
    return failures.length > 0 ? 0 : 1;
  }
  return failures.length === 0 ? 0 : 1;
}

function print(label: string, report: SuiteReport): void {
  const points = Object.entries(report.points).map(([session, count]) => `${session} ${count}`).join(', ');
  process.stdout.write(`${label}: ${report.cases} cases, ${report.failures.length} with violations, ${report.elapsed_ms} ms\n  persistence points: ${points}\n`);
}

function replay(text: string): number {
  const result = simulate(parseCase(text));
  const processes = result.processes.map((report, index) => `  process ${index}: ${report.mutations} mutations, epoch ${report.epoch ?? '-'}, recovery ${report.recovery ?? '-'}, ${report.end}`);
  process.stdout.write(`case ${result.replay}\n${processes.join('\n')}\n`);
  if (result.violations.length === 0) {
    process.stdout.write('no violations\n');
    return 0;
  }
  process.stdout.write(`${describeViolations(result)}\n`);
  return 1;
}

process.exitCode = main();

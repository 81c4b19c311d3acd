// One crash case, start to end: the scripted session runs on a simulated disk through the engine's file-I/O
// seam; at its crash point the process dies and the disk is rebuilt as the case's image says; a new process
// (a new lease, a higher epoch) recovers through the runtime and the replay library, and may die again; once a
// process runs to its end, the settled session is checked, and one more process must find nothing to do.
// The world — the tool plane's ledger, the late results providers owe, the clock — outlives every process.
import assert from 'node:assert/strict';
import type { ResumeAction } from '../../src-shared/replay.js';
import { describe } from '../engine/index.js';
import { CRASH_SESSIONS } from '../runtime/catalog.js';
import { steppedClock, type Clock } from '../runtime/clock.js';
import { driveSession, type DriveEnd } from '../runtime/driver.js';
import type { RuntimeObserver, VisibleUnit } from '../runtime/journal.js';
import { MemoryLedger } from '../runtime/ledger.js';
import type { Plants } from '../runtime/plants.js';
import { AgentRuntime } from '../runtime/runtime.js';
import { scriptedWorld, type ScriptedWorld } from '../runtime/scripted.js';
import type { SessionScript } from '../runtime/script.js';
import { CRASHES_PER_CASE_MAX, formatCase, type CrashCase, type CrashPoint } from './case.js';
import { SimDisk } from './disk.js';
import {
  checkEpoch,
  checkIdempotent,
  checkImage,
  checkLedger,
  checkNoRedispatch,
  checkRequest,
  checkSettled,
  checkStopRule,
  indeterminateKeys,
  checkViewsNotAskedAgain,
  recordedViewKeys,
  type Violation,
} from './invariants.js';
import { Prng } from './prng.js';
import { SimProcess } from './sim-io.js';
import { SIM_ROOT, viewDisk } from './view.js';

export interface ProcessReport {
  mutations: number;
  epoch: number | null;
  end: DriveEnd | 'crashed' | 'error';
  /** The resume action the process recovered with; null when it died before planning. */
  recovery: ResumeAction | null;
}

export interface SimResult {
  case: CrashCase;
  /** The text that replays this case exactly. */
  replay: string;
  violations: Violation[];
  processes: ProcessReport[];
}

/** The clock every simulated world starts from: timestamps are a function of the case alone. */
export const SIM_CLOCK_START_MS = 1_750_000_000_000;

export function sessionScript(session_id: string): SessionScript {
  const script = CRASH_SESSIONS.find((candidate) => candidate.session_id === session_id);
  if (script === undefined) throw new Error(`no scripted session ${session_id} (known: ${CRASH_SESSIONS.map((entry) => entry.session_id).join(', ')})`);
  return script;
}

export function simulate(crash_case: CrashCase): SimResult {
  assert.ok(crash_case.crashes.length <= CRASHES_PER_CASE_MAX, 'crashes per case');
  const script = sessionScript(crash_case.session);
  const plants: Plants = Object.fromEntries(crash_case.plants.map((plant) => [plant, true]));
  const clock = steppedClock(SIM_CLOCK_START_MS);
  const world = scriptedWorld(script, new MemoryLedger(), clock);
  const sim = new Simulation(crash_case, script, world, plants, clock);
  return sim.run();
}

class Simulation {
  private disk = SimDisk.withFolder(SIM_ROOT);
  private acked = Buffer.alloc(0);
  private readonly visible: VisibleUnit[] = [];
  private readonly violations: Violation[] = [];
  private readonly processes: ProcessReport[] = [];

  constructor(
    private readonly crash_case: CrashCase,
    private readonly script: SessionScript,
    private readonly world: ScriptedWorld,
    private readonly plants: Plants,
    private readonly clock: Clock,
  ) {}

  run(): SimResult {
    const crash_case = this.crash_case;
    for (let index = 0; index <= crash_case.crashes.length; index++) {
      const point = crash_case.crashes[index] ?? null;
      const report = this.process(index, point);
      if (this.violations.length > 0) break;
      if (report.end === 'crashed') {
        this.disk = this.disk.crashImage(point!.image, new Prng(crash_case.seed, index));
        this.note(index, checkImage(viewDisk(this.disk, this.script.session_id), this.acked, this.visible));
        if (this.violations.length > 0) break;
        continue;
      }
      if (report.end === 'error') break;
      // A process ran to its end: the session is settled; check it, then prove a further recovery is a no-op.
      this.settled(index + 1, report.end);
      break;
    }
    return { case: crash_case, replay: formatCase(crash_case), violations: this.violations, processes: this.processes };
  }

  private settled(next: number, end: DriveEnd): void {
    const view = viewDisk(this.disk, this.script.session_id);
    this.note(next - 1, checkSettled(view, end === 'paused'));
    this.note(next - 1, checkLedger(this.world.plane.ledger.entries()));
    this.note(next - 1, checkStopRule(this.script.session_id, view.fold, this.world.plane.dispatch_log));
    if (this.violations.length > 0) return;
    const dispatched_before = this.world.plane.dispatch_log.length;
    const report = this.process(next, null);
    if (report.end === 'error') return;
    const after = viewDisk(this.disk, this.script.session_id);
    const dispatched = this.world.plane.dispatch_log.slice(dispatched_before).map((entry) => entry.key);
    this.note(next, checkIdempotent(view, after, dispatched));
  }

  /** Runs one process on the current disk; it dies at `point` if it gets that far. */
  private process(index: number, point: CrashPoint | null): ProcessReport {
    const before = viewDisk(this.disk, this.script.session_id);
    const indeterminate = indeterminateKeys(this.script.session_id, before.fold);
    const dispatch_mark = this.world.plane.dispatch_log.length;
    const recorded_views = recordedViewKeys(before.fold);
    const asked_mark = this.world.compactor.asked.length;
    const proc = new SimProcess(this.disk, point?.after_mutations ?? null);
    const report: ProcessReport = { mutations: 0, epoch: null, end: 'error', recovery: null };
    this.processes.push(report);
    let runtime: AgentRuntime | null = null;
    try {
      runtime = AgentRuntime.open({
        root: proc.at(SIM_ROOT),
        session_id: this.script.session_id,
        io: proc.io,
        clock: this.clock,
        ports: this.world,
        observer: this.observer(index, proc),
        plants: this.plants,
      });
      report.epoch = runtime.epoch;
      this.note(index, checkEpoch(runtime.epoch, before));
      const drive = driveSession(runtime, this.script, (action) => (report.recovery = action));
      report.end = drive.end;
      runtime.close();
    } catch (error) {
      if (proc.crashed) report.end = 'crashed';
      else this.note(index, [{ invariant: 'runtime_error', message: `process ${index} failed: ${error instanceof Error ? (error.stack ?? error.message) : describe(error)}` }]);
      closeQuietly(runtime);
    }
    report.mutations = proc.mutations;
    const dispatched = this.world.plane.dispatch_log.slice(dispatch_mark).map((entry) => entry.key);
    this.note(index, checkNoRedispatch(indeterminate, dispatched));
    this.note(index, checkViewsNotAskedAgain(recorded_views, this.world.compactor.asked.slice(asked_mark)));
    return report;
  }

  private observer(index: number, proc: SimProcess): RuntimeObserver {
    return {
      barrier: (wal_path, _durable_seq, size_bytes) => {
        const bytes = proc.currentBytes(wal_path)?.subarray(0, size_bytes) ?? Buffer.alloc(0);
        const kept = bytes.subarray(0, this.acked.length);
        if (kept.length < this.acked.length || Buffer.compare(kept, this.acked) !== 0) {
          this.note(index, [{ invariant: 'no_loss', message: `a barrier returned over a WAL that no longer starts with the ${this.acked.length} bytes acknowledged before` }]);
        }
        this.acked = Buffer.from(bytes);
      },
      visible: (unit) => this.visible.push(unit),
      request: (run_id, step_id, messages) => this.note(index, checkRequest(run_id, step_id, messages)),
    };
  }

  private note(process: number, found: readonly Omit<Violation, 'process'>[]): void {
    for (const violation of found) this.violations.push({ ...violation, process });
  }
}

/** After a crash the writer's close fails (the process is dead): the lease and fds go with the process. */
function closeQuietly(runtime: AgentRuntime | null): void {
  try {
    runtime?.close();
  } catch {
    // A dead process cannot sync; its disk is what the crash image says.
  }
}

/** The session run once with nothing crashing: its mutation count is its number of persistence points. */
export function dryRun(session_id: string, plants: CrashCase['plants'] = []): SimResult {
  return simulate({ session: session_id, seed: 0, plants, crashes: [] });
}

export function describeViolations(result: SimResult): string {
  const lines = result.violations.map((violation) => `  [${violation.invariant}] process ${violation.process}: ${violation.message}`);
  return `case ${result.replay} (seed ${result.case.seed}; replay: npm run test:crash -- --replay ${result.replay})\n${lines.join('\n')}`;
}

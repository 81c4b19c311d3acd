// `walscope demo`: writes (or refreshes) a state root holding every state a user meets, each session made by
// the reference runtime. A refresh rebuilds each session from nothing, except one a live process is writing
// (its lease is held), which it leaves alone. It refuses a folder that is neither empty nor a demo root, so
// it never deletes someone's sessions.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { probeLease, nodeFileIO, sessionDir, sessionsDir, walPath } from '../engine/index.js';
import { acknowledgeCall } from '../recovery/acknowledge.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import { driveSession } from '../runtime/driver.js';
import { haltingIO, type HaltRule } from '../runtime/halt-io.js';
import { FileLedger, type LedgerEntry } from '../runtime/ledger.js';
import { AgentRuntime } from '../runtime/runtime.js';
import { scriptedWorld } from '../runtime/scripted.js';
import type { SessionScript } from '../runtime/script.js';
import { appendNewerWriterFrame, corruptMiddleFrame } from './damage.js';
import { makeHistory } from './history.js';
import { appendLiveSteps } from './live.js';
import { DEMO_MARKER_FILE, ledgerPathFor } from './paths.js';
import { RECIPES, type Recipe } from './recipes.js';
import { DEMO_SESSION_IDS, DEMO_SESSIONS, type DemoSessionId } from './sessions.js';

/** Who records the demo's acknowledgement. */
const DEMO_OWNER = 'demo-owner';

export class DemoRootError extends Error {
  override name = 'DemoRootError';
  readonly code = 'not_a_demo_root';
}

export interface DemoBuild {
  root: string;
  ledger_path: string;
  built: DemoSessionId[];
  /** Sessions left as they were because a live process holds their lease. */
  kept_live: DemoSessionId[];
}

export function buildDemoRoot(root_arg: string, clock: Clock = systemClock): DemoBuild {
  const root = path.resolve(root_arg);
  claimRoot(root);
  const ledger_path = ledgerPathFor(root);
  const build: DemoBuild = { root, ledger_path, built: [], kept_live: [] };
  for (const id of DEMO_SESSION_IDS) {
    const dir = sessionDir(root, id);
    if (probeLease(dir).state === 'live') {
      build.kept_live.push(id);
      continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    build.built.push(id);
  }
  dropLedgerEntries(ledger_path, new Set(build.built));
  for (const id of build.built) makeSession(root, id, RECIPES[id], clock);
  return build;
}

/** A folder `walscope demo` wrote (and may rewrite). */
export function isDemoRoot(root: string): boolean {
  return fs.existsSync(path.join(root, DEMO_MARKER_FILE));
}

/** Makes `root` a demo root: created when missing, accepted when empty or already marked, refused otherwise. */
function claimRoot(root: string): void {
  fs.mkdirSync(root, { recursive: true });
  if (!isDemoRoot(root)) {
    const entries = fs.readdirSync(root);
    if (entries.length > 0) throw new DemoRootError(`${root} is not empty and was not made by walscope demo (no ${DEMO_MARKER_FILE}); pick an empty or new folder`);
    fs.writeFileSync(path.join(root, DEMO_MARKER_FILE), `${JSON.stringify({ made_by: 'walscope demo', sessions: DEMO_SESSIONS }, null, 2)}\n`);
  }
  fs.mkdirSync(sessionsDir(root), { recursive: true });
}

function makeSession(root: string, id: DemoSessionId, recipe: Recipe, clock: Clock): void {
  const ledger = new FileLedger(ledgerPathFor(root));
  switch (recipe.kind) {
    case 'live':
      appendLiveSteps(root, recipe.steps, clock);
      return;
    case 'damaged':
      runScript(root, recipe.script, ledger, clock, null);
      if (recipe.damage === 'newer_writer') appendNewerWriterFrame(walPath(sessionDir(root, id)));
      else corruptMiddleFrame(walPath(sessionDir(root, id)));
      return;
    case 'script':
      runScript(root, recipe.script, ledger, clock, recipe.halt ?? null);
      return;
    case 'history':
      makeHistory(root, id, recipe.retired, recipe.archive, clock, (lineage) => runScript(root, lineageScript(recipe.script, lineage), ledger, clock, null));
      return;
    case 'acknowledged': {
      runScript(root, recipe.script, ledger, clock, null);
      const audit = { operator: DEMO_OWNER, reason: recipe.reason, via: 'cli' as const };
      const outcome = acknowledgeCall(root, id, { tool_call_id: recipe.tool_call_id, batch_id: null }, recipe.finding, audit, { now_ms: () => clock.now_ms() });
      assert.equal(outcome.kind, 'done', `demo acknowledgement of ${id}: ${outcome.kind === 'done' ? '' : outcome.message}`);
      return;
    }
    case 'not_a_wal':
      fs.mkdirSync(sessionDir(root, id), { recursive: true });
      fs.writeFileSync(walPath(sessionDir(root, id)), recipe.text);
      return;
  }
}

function runScript(root: string, script: SessionScript, ledger: FileLedger, clock: Clock, halt: HaltRule | null): void {
  const halting = halt === null ? null : haltingIO(nodeFileIO, halt);
  const runtime = AgentRuntime.open({ root, session_id: script.session_id, io: halting?.io ?? nodeFileIO, clock, ports: scriptedWorld(script, ledger, clock) });
  try {
    driveSession(runtime, script);
  } catch (error) {
    // The halt surfaces as the writer's failure to append (it is poisoned, as after any failed write).
    if (halting?.halted() !== true) throw error;
  } finally {
    // Drains and syncs a healthy writer; a halted one just closes. Either way the lease is released.
    runtime.close();
  }
  if (halting !== null && !halting.halted()) throw new Error(`demo session ${script.session_id} ran to its end without reaching its halt point`);
}

/** Each lineage runs runs of its own: run ids suffixed by the lineage's number, so side effects stay distinct. */
function lineageScript(script: SessionScript, lineage: number): SessionScript {
  return { ...script, runs: script.runs.map((run) => ({ ...run, run_id: `${run.run_id}-l${lineage + 1}` })) };
}

/** The ledger keeps the world's record of sessions that survive the refresh, and forgets rebuilt ones. */
function dropLedgerEntries(ledger_path: string, rebuilt: ReadonlySet<string>): void {
  const kept = new FileLedger(ledger_path).entries().filter((entry: LedgerEntry) => !rebuilt.has(entry.session));
  fs.writeFileSync(ledger_path, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
}

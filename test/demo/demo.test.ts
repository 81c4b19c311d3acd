// The demo state root: every session shows the state DEMO_SESSIONS promises, as the replay library (the code
// `walscope replay` runs) reports it; a refresh rebuilds it; a folder that is not a demo root is refused; the
// live session appends through the real lease until stopped, and the CLI stops it cleanly on SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { buildDemoRoot, DemoRootError } from '../../src-main/demo/build.js';
import { DEMO_FUTURE_FEATURE } from '../../src-main/demo/damage.js';
import { livePorts, startLiveSession } from '../../src-main/demo/live.js';
import { defaultDemoRoot, LEDGER_FILE_NAME, ledgerPathFor } from '../../src-main/demo/paths.js';
import { DEMO_SESSION_IDS, DEMO_SESSIONS, LIVE_SESSION_ID, type DemoExpectation, type DemoSessionId } from '../../src-main/demo/sessions.js';
import { verifyArchive } from '../../src-main/engine/archive-verify.js';
import { readHistory } from '../../src-main/engine/lineage-chain.js';
import { readWal } from '../../src-main/engine/reader.js';
import { LeaseHeldError } from '../../src-main/engine/errors.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { probeLease } from '../../src-main/engine/lease.js';
import { listSessions, sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { replayJson } from '../../src-main/replay/report.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { REPORT_SCREENSHOT_PNG_BASE64 } from '../../src-main/runtime/catalog-agents.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { duplicateKeys, FileLedger, MemoryLedger } from '../../src-main/runtime/ledger.js';
import { AgentRuntime } from '../../src-main/runtime/runtime.js';
import { useTempDirs } from '../helpers/temp.js';
import { refusedStatus } from '../../src-shared/status.js';
import type { Payload } from '../../src-shared/wal.js';

const tempDir = useTempDirs('walscope-demo-');
const REPO = path.resolve(import.meta.dirname, '../..');

function replayOf(root: string, id: string) {
  const [target] = resolveTargets(sessionDir(root, id));
  const replay = replayTarget(target!);
  return { replay, json: replayJson(id, replay) };
}

function observed(root: string, id: DemoSessionId) {
  const { json } = replayOf(root, id);
  const refused = json.integrity.error !== null;
  const last = json.episodes.at(-1);
  // verify refuses a session whose archive it refuses, though its live WAL reads (the list says the same).
  const archive_error = verifyArchive(sessionDir(root, id), [])?.error ?? null;
  return {
    integrity: refused ? json.integrity.error!.kind : json.integrity.torn_tail !== null ? 'torn_tail' : 'ok',
    resume: json.resume.action,
    state: refused ? null : (last?.state ?? null),
    finished: refused ? null : (last?.finished?.reason ?? null),
    status: archive_error === null ? json.run.status : refusedStatus(archive_error.kind),
  };
}

/** The payloads of a session's records of one type, read back from its WAL. */
function payloadsOf(root: string, id: DemoSessionId, type: string): Payload[] {
  const found: Payload[] = [];
  const read = readWal(walPath(sessionDir(root, id)), { on_frame: (frame) => frame.type === type && found.push(frame.payload!) });
  expect(read.error).toBeNull();
  return found;
}

/** What the sessions shaped like real agents' hold: thinking, parallel reads, long coloured commands, an
 *  image in a tool result, and a run of hundreds of steps. */
function expectAgentShapes(root: string): void {
  const blocks = payloadsOf(root, 'coding-agent', 'model_step_finished').flatMap((step) => (step['assistant_message'] as { content: Payload[] }).content);
  expect(blocks.filter((block) => block['type'] === 'reasoning').every((block) => String(block['signature']).length > 100)).toBe(true);
  expect(blocks.map((block) => block['type'])).toEqual(expect.arrayContaining(['reasoning', 'redacted_reasoning', 'text', 'tool_use']));
  const batches = payloadsOf(root, 'coding-agent', 'tool_batch_started').map((batch) => (batch['planned_calls'] as Payload[]).map((call) => call['name']));
  expect(batches[0]).toEqual(['read_file', 'read_file', 'shell']);
  const commands = payloadsOf(root, 'coding-agent', 'tool_dispatch_intent').map((intent) => (intent['args'] as Payload)['command']).filter((command) => typeof command === 'string');
  expect(commands.some((command) => (command as string).length > 200)).toBe(true);
  const results = payloadsOf(root, 'coding-agent', 'tool_result');
  expect(results.some((result) => String(result['output']).includes('\u001b[31m'))).toBe(true);
  expect(results.map((result) => result['output'])).toContainEqual({ parts: [expect.objectContaining({ type: 'text' }), { type: 'media', media_type: 'image/png', data: REPORT_SCREENSHOT_PNG_BASE64 }] });
  expect(payloadsOf(root, 'long-run', 'model_step_finished')).toHaveLength(300);
}

const expected = (id: DemoSessionId) => {
  const { shows: _shows, history: _history, ...state } = DEMO_SESSIONS[id] as DemoExpectation;
  return state;
};

/** What `verify` and `lineages` (the engine under them) say of a session's history. */
function observedHistory(root: string, id: DemoSessionId) {
  const dir = sessionDir(root, id);
  const archive = verifyArchive(dir, [])!;
  return {
    lineages: readHistory(dir).lineages.map((entry) => entry.where),
    index: archive.index,
    torn_tail: archive.torn_tail !== null,
    archive_error: archive.error?.kind ?? null,
  };
}

describe('walscope demo', () => {
  it('builds every state, each confirmed by the replay library', () => {
    const root = path.join(tempDir(), 'demo');
    const build = buildDemoRoot(root, steppedClock(1_750_000_000_000));
    expect(build.built).toEqual(DEMO_SESSION_IDS);
    for (const id of DEMO_SESSION_IDS) expect({ id, ...observed(root, id) }).toEqual({ id, ...expected(id) });
    for (const id of DEMO_SESSION_IDS) {
      const history = (DEMO_SESSIONS[id] as DemoExpectation).history;
      if (history !== undefined) expect({ id, ...observedHistory(root, id) }).toEqual({ id, ...history });
    }
    // Counters carry on across lineages: each successor starts where its parent left off, nothing repeats.
    const chain = readHistory(sessionDir(root, 'history'));
    expect(chain.problems).toEqual([]);
    for (const counter of ['next_tag', 'next_notice_seq'] as const) {
      const values = chain.lineages.map((entry) => entry[counter]!);
      expect({ counter, values }).toEqual({ counter, values: [...values].sort((left, right) => right - left) });
      expect(new Set(values).size).toBe(values.length);
    }

    const classes = (id: string) => replayOf(root, id).json.episodes.at(-1)!.batches.at(-1)!.calls.map((call) => call.class);
    expect(classes('indeterminate')).toEqual(['completed', 'indeterminate']);
    expect(classes('parallel-unknown')).toEqual(['indeterminate', 'interrupted', 'completed']);
    expect(classes('held-sequential')).toEqual(['completed', 'provider_held', 'held_successor']);
    expect(classes('approvals')).toEqual(['completed', 'no_dispatch', 'no_dispatch']);
    expect(classes('cancelled')).toEqual(['completed', 'interrupted', 'interrupted']);

    const steered = replayOf(root, 'steered-queued').replay.fold;
    expect(steered.episodes.map((episode) => episode.finished?.reason)).toEqual(['cancelled', 'completed', 'completed']);
    expect(steered.episodes[0]!.steers).toHaveLength(1);
    expect(steered.queue.map((entry) => entry.delivery)).toContain('interrupt');
    const compaction = replayOf(root, 'compaction-ceiling').replay.fold;
    expect(compaction.episodes[0]!.steps.flatMap((step) => step.notes.map((note) => note.type))).toEqual(
      expect.arrayContaining(['compaction_view_applied', 'compaction_notice', 'context_ceiling_wait', 'context_ceiling_decided']),
    );
    expect(replayOf(root, 'newer-writer').json.integrity.error?.features).toEqual([DEMO_FUTURE_FEATURE]);
    expect(replayOf(root, 'torn-tail').json.integrity.torn_tail?.bytes).toBe(29);
    expectAgentShapes(root);
    expect(duplicateKeys(new FileLedger(ledgerPathFor(root)).entries())).toEqual([]);
  });

  it('refreshes a demo root in place and refuses a folder that is not one', () => {
    const root = tempDir();
    buildDemoRoot(root);
    const again = buildDemoRoot(root);
    expect(again.built).toEqual(DEMO_SESSION_IDS);
    for (const id of DEMO_SESSION_IDS) expect(observed(root, id)).toEqual(expected(id));
    expect(duplicateKeys(new FileLedger(ledgerPathFor(root)).entries())).toEqual([]);

    const foreign = tempDir();
    fs.writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
    expect(() => buildDemoRoot(foreign)).toThrow(DemoRootError);
  });

  it('`walscope demo DIR` writes only inside DIR, its ledger where the scanner sees no session', () => {
    const parent = tempDir();
    const root = path.join(parent, 'demo');
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts'), 'demo', root], { cwd: REPO, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(fs.readdirSync(parent)).toEqual(['demo']);
    expect(ledgerPathFor(root)).toBe(path.join(root, LEDGER_FILE_NAME));
    expect(new FileLedger(ledgerPathFor(root)).entries().length).toBeGreaterThan(0);
    expect(listSessions(root)).toEqual({ sessions: [...DEMO_SESSION_IDS].sort(), not_sessions: [], unreadable: [] });
  }, 30_000);

  it('`walscope demo DIR --if-missing` leaves an existing demo root as it is', () => {
    const root = tempDir();
    buildDemoRoot(root);
    const wal = walPath(sessionDir(root, 'indeterminate'));
    const before = fs.readFileSync(wal);
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts'), 'demo', root, '--if-missing'], { cwd: REPO, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(`demo state root: ${root}`);
    expect(fs.readFileSync(wal).equals(before)).toBe(true);
  }, 30_000);

  it('defaults to a per-user folder', () => {
    expect(defaultDemoRoot({ XDG_DATA_HOME: '/data' })).toBe('/data/walscope/demo');
    expect(defaultDemoRoot({})).toMatch(/\.local\/share\/walscope\/demo$/);
  });

  it('the live session appends through the real lease until stopped; a refresh leaves it alone', async () => {
    const root = tempDir();
    buildDemoRoot(root);
    const before = replayOf(root, LIVE_SESSION_ID).json.last_seq;
    const live = startLiveSession(root, { interval_ms: 20 });
    try {
      await waitFor(() => live.steps_appended >= 3);
      expect(probeLease(sessionDir(root, LIVE_SESSION_ID)).state).toBe('live');
      expect(() => AgentRuntime.open({ root, session_id: LIVE_SESSION_ID, clock: steppedClock(1), ports: livePorts(new MemoryLedger(), steppedClock(1)) })).toThrow(LeaseHeldError);
      expect(buildDemoRoot(root).kept_live).toEqual([LIVE_SESSION_ID]);
    } finally {
      live.stop();
    }
    expect(probeLease(sessionDir(root, LIVE_SESSION_ID)).state).toBe('free');
    const after = observed(root, LIVE_SESSION_ID);
    expect(after).toEqual(expected(LIVE_SESSION_ID));
    expect(replayOf(root, LIVE_SESSION_ID).json.last_seq).toBeGreaterThan(before + 10);
  });

  it('`walscope demo DIR --live` stops on SIGTERM: drained, synced, closed, lease released', async () => {
    const root = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts'), 'demo', root, '--live', '--interval-ms', '30'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const steps = new Promise<void>((resolve) => {
      readline.createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (lines.filter((entry) => entry.includes('appended a step')).length === 3) resolve();
      });
    });
    await Promise.race([steps, exited.then(() => Promise.reject(new Error(`demo exited early: ${errors}`)))]);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines[0]).toBe(`demo state root: ${root}`);
    expect(lines.at(-1)).toMatch(/stopped after \d+ steps; writer synced and closed, lease released/);
    expect(probeLease(sessionDir(root, LIVE_SESSION_ID)).state).toBe('free');
    expect(observed(root, LIVE_SESSION_ID)).toEqual(expected(LIVE_SESSION_ID));
  }, 30_000);
});

async function waitFor(condition: () => boolean, timeout_ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeout_ms) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

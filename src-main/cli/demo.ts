// `walscope demo [DIR] [--if-missing] [--live] [--interval-ms N]`: writes or refreshes the demo state root
// (default: a per-user folder) and prints what each session shows; --if-missing leaves an existing demo root
// as it is (`npm start` uses it, so an operator's close-out survives the next start). With --live it then
// keeps the live session appending a step every interval through the real lease until SIGINT or SIGTERM, and
// on either it drains, syncs, closes the writer and releases the lease before exiting.
import path from 'node:path';
import { LeaseHeldError, sessionsDir } from '../engine/index.js';
import { buildDemoRoot, DemoRootError, isDemoRoot } from '../demo/build.js';
import { LIVE_INTERVAL_MS_DEFAULT, LIVE_INTERVAL_MS_MIN, startLiveSession } from '../demo/live.js';
import { defaultDemoRoot } from '../demo/paths.js';
import { DEMO_SESSIONS, LIVE_SESSION_ID } from '../demo/sessions.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';

export const demoCommand: Command = {
  summary: 'write (or refresh) a demo state root with every session state; --live keeps one session appending',
  usage: 'walscope demo [DIR] [--if-missing] [--live] [--interval-ms N]',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { 'if-missing': { type: 'boolean' }, live: { type: 'boolean' }, 'interval-ms': { type: 'string' } });
    if (positionals.length > 1) throw new UsageError('expected at most one DIR');
    const interval_ms = values['interval-ms'] === undefined ? LIVE_INTERVAL_MS_DEFAULT : Number(values['interval-ms']);
    if (!Number.isSafeInteger(interval_ms) || interval_ms < LIVE_INTERVAL_MS_MIN) throw new UsageError(`--interval-ms takes a whole number of milliseconds, at least ${LIVE_INTERVAL_MS_MIN}`);
    const root = path.resolve(positionals[0] ?? defaultDemoRoot());
    if (values['if-missing'] === true && isDemoRoot(root)) {
      await writeOut(`demo state root: ${root}\nkept as it was (--if-missing); \`walscope demo\` without it rewrites every session\n`);
    } else if (!(await writeRoot(root))) {
      return EXIT_REFUSED;
    }
    if (!values.live) return EXIT_OK;
    return runLive(root, interval_ms);
  },
};

/** Builds the demo root and prints what each session shows; false when the folder is someone else's. */
async function writeRoot(root: string): Promise<boolean> {
  let build;
  try {
    build = buildDemoRoot(root);
  } catch (error) {
    if (!(error instanceof DemoRootError)) throw error;
    process.stderr.write(`walscope demo: ${error.message}\n`);
    return false;
  }
  const lines = Object.entries(DEMO_SESSIONS).map(([id, expected]) => {
    const kept = build.kept_live.includes(id as never) ? ' (kept: a live process holds it)' : '';
    return `  ${id.padEnd(24)} ${expected.shows}${kept}`;
  });
  const example = path.join(sessionsDir(build.root), 'indeterminate');
  await writeOut(`demo state root: ${build.root}\nside-effect ledger: ${build.ledger_path}\n\n${lines.join('\n')}\n\ntry: walscope verify ${build.root}\n     walscope replay ${example}\n`);
  return true;
}

function runLive(root: string, interval_ms: number): Promise<number> {
  return new Promise((resolve) => {
    let live;
    try {
      live = startLiveSession(root, {
        interval_ms,
        on_step: (last_seq) => process.stdout.write(`${LIVE_SESSION_ID}: appended a step (last seq ${last_seq})\n`),
        on_error: (error) => {
          process.stderr.write(`walscope demo: the live session stopped: ${error instanceof Error ? error.message : String(error)}\n`);
          finish(EXIT_REFUSED);
        },
      });
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) throw error;
      process.stderr.write(`walscope demo: ${error.message}\n`);
      resolve(EXIT_REFUSED);
      return;
    }
    const session = live;
    process.stdout.write(`${LIVE_SESSION_ID}: appending a step every ${interval_ms} ms; stop with Ctrl-C\n`);
    const onSignal = () => finish(EXIT_OK);
    function finish(code: number): void {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      session.stop();
      process.stdout.write(`${LIVE_SESSION_ID}: stopped after ${session.steps_appended} steps; writer synced and closed, lease released\n`);
      resolve(code);
    }
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

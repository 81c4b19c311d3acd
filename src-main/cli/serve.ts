// `walscope serve [ROOT] [--port N]`: the app's UI in a browser, over HTTP on 127.0.0.1 only. The printed link
// opens one tab, which trades it for the random token every request must present; each time one is spent the
// next is printed (server/guard.ts). The session service runs in a worker thread.
// `walscope serve --fleet --nats URL`: the same UI over every host of a fleet (src-main/fleet/fleet-api.ts).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../server/http-server.js';
import type { WalscopeApi } from '../../src-shared/ipc.js';
import type { WorkspacePaths } from '../services/session-service.js';
import { WorkerApi } from '../services/worker-client.js';
import { exportTargets, TargetError, classifyPath } from '../engine/index.js';
import { buildDemoRoot } from '../demo/build.js';
import { defaultDemoRoot } from '../demo/paths.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { sealedLineageCopy } from './targets.js';
import { FleetApi } from '../fleet/fleet-api.js';
import { BUS_FLAGS, BUS_USAGE, busOptions, type BusOptions } from '../fleet/connection.js';
import { TopologyMissingError } from '../fleet/topology.js';
import { DEFAULT_ALERT_THRESHOLDS, type AlertThresholds } from '../../src-shared/alerts.js';
import { THRESHOLD_FLAGS, thresholdsOf } from './alerts.js';

/** The built renderer and the worker bundle, beside this bundle in out/. */
const RENDERER_DIR = fileURLToPath(new URL('../renderer/', import.meta.url));
const WORKER_FILE = new URL('./session-worker.js', import.meta.url);
/** Where `serve --fleet` compares two hosts' sessions (services/compare-worker.ts). */
const COMPARE_WORKER_FILE = new URL('./compare-worker.js', import.meta.url);

export const serveCommand: Command = {
  summary: 'serve the inspector UI for a state root, a session, one or more exports, or a fleet on 127.0.0.1',
  usage: `walscope serve [ROOT | EXPORT... | EXPORTS_FOLDER] [--port N] [--held-after-ms N] [--silent-after-ms N]   (the Alerts panel's thresholds, docs/alerts.md; no ROOT: the demo state root, written on first use; SESSION_DIR@WAL_ID: a sealed lineage, read-only; several WAL files, or a folder of them that is not a state root: each a read-only session)\n       walscope serve --fleet [--port N] ${BUS_USAGE}`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { port: { type: 'string' }, fleet: { type: 'boolean' }, ...BUS_FLAGS, ...THRESHOLD_FLAGS });
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port ${values.port}: not a port number`);
    if (values.fleet === true) {
      if (positionals.length > 0) throw new UsageError('--fleet serves every host of the fleet: give no ROOT');
      if (values['held-after-ms'] !== undefined || values['silent-after-ms'] !== undefined) throw new UsageError('a fleet\'s alerts are raised by each host\'s agent: give the thresholds to `walscope agent`');
      const bus = busOptions(values, 'walscope serve --fleet');
      if (typeof bus === 'string') throw new UsageError(bus);
      return serveUntilStopped(() => serveFleet(bus, port), port);
    }
    if (values.nats !== undefined) throw new UsageError('--nats goes with --fleet');
    const sealed = positionals.length !== 1 ? null : sealedLineageCopy(positionals[0]!);
    if (typeof sealed === 'string') {
      process.stderr.write(`walscope serve: ${sealed}\n`);
      return EXIT_REFUSED;
    }
    if (sealed !== null) process.once('exit', () => sealed.dispose());
    const one = sealed?.file ?? positionals[0] ?? defaultDemoRoot();
    if (positionals[0] === undefined && classifyPath(one) === 'missing') buildDemoRoot(one);
    const kind = classifyPath(one);
    if (kind === 'missing') throw new UsageError(`${one}: no such file or folder`);
    // Several files, or a folder that is neither a state root nor a session folder: a set of exports.
    const target: WorkspacePaths = positionals.length > 1 ? exportsOf(positionals) : kind === 'unrecognized' ? exportsOf([one]) : one;
    const thresholds = thresholdsOf(values);
    return serveUntilStopped(() => serve(target, port, thresholds), port);
  },
};

/** Several exports as a set, checked here so a typo is a usage error before anything starts. */
function exportsOf(paths: readonly string[]): readonly string[] {
  try {
    exportTargets(paths);
  } catch (error) {
    if (error instanceof TargetError) throw new UsageError(error.message);
    throw error;
  }
  return paths;
}

/** Starts what `start` serves, prints its URL and waits for SIGINT or SIGTERM. */
async function serveUntilStopped(start: () => Promise<string>, port: number): Promise<number> {
  if (!fs.existsSync(RENDERER_DIR)) {
    process.stderr.write(`walscope serve: the UI is not built (${RENDERER_DIR} is missing); run \`npm run build\`\n`);
    return EXIT_REFUSED;
  }
  let url;
  try {
    url = await start();
  } catch (error) {
    if (error instanceof TopologyMissingError) {
      process.stderr.write(`walscope serve: ${error.message}\n`);
      return EXIT_REFUSED;
    }
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    process.stderr.write(`walscope serve: port ${port} is in use; pick another with --port or omit it\n`);
    return EXIT_USAGE;
  }
  await writeOut(`walscope serve: ${url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  return EXIT_OK;
}

/** Connects to the bus, opens the fleet's indexes and serves them; returns the link that opens a tab. */
export async function serveFleet(bus: BusOptions, port: number): Promise<string> {
  return serveApi(await FleetApi.connect(bus, undefined, COMPARE_WORKER_FILE), port);
}

/** Starts the worker (watching the alerts with `thresholds`) and the server; returns the link that opens a tab. */
export async function serve(target: WorkspacePaths, port: number, thresholds: AlertThresholds = DEFAULT_ALERT_THRESHOLDS): Promise<string> {
  return serveApi(await WorkerApi.start(WORKER_FILE, target, thresholds), port);
}

/** Serves `api` until SIGINT or SIGTERM. A server that cannot listen closes the api again, so the command can
 *  end. */
async function serveApi(api: WalscopeApi & { close(): Promise<void> }, port: number): Promise<string> {
  let server;
  try {
    server = await startServer({ api, renderer_dir: RENDERER_DIR, port, onLinkSpent: (next_url) => void writeOut(`a browser tab opened the link; the link for the next tab: ${next_url}\n`) });
  } catch (error) {
    await api.close();
    throw error;
  }
  const stop = () => {
    void server.close().then(() => api.close());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return server.url;
}

// `walscope fleet init|ls` and `walscope agent ROOT`: the fleet's commands (docs/fleet.md).
import os from 'node:os';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { DEFAULT_OPERATORS, FleetAgent } from '../fleet/agent.js';
import { isOperatorName } from '../../src-shared/ipc.js';
import { fleetRows, type FleetRow } from '../fleet/client.js';
import { fetchSession } from '../fleet/fetch.js';
import { BUS_FLAGS, BUS_USAGE, busOptions, connectBus } from '../fleet/connection.js';
import { initTopology, TopologyMissingError } from '../fleet/topology.js';
import { classifyPath } from '../engine/index.js';
import { WorkerApi } from '../services/worker-client.js';
import { isListedStatus, LISTED_STATUSES, statusLabel } from '../../src-shared/status.js';
import { THRESHOLD_FLAGS, thresholdsOf } from './alerts.js';
import { plural, printable, textLines } from './format.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, walscopeVersion, writeOut, type Command } from './command.js';

const WORKER_FILE = new URL('./session-worker.js', import.meta.url);

async function withBus<T>(values: Record<string, string | boolean | undefined>, name: string, run: (nc: NatsConnection) => Promise<T>): Promise<T> {
  const options = busOptions(values as Record<string, string | undefined>, name);
  if (typeof options === 'string') throw new UsageError(options);
  const nc = await connectBus(options);
  try {
    return await run(nc);
  } finally {
    await nc.drain().catch(() => undefined);
  }
}

export const fleetCommand: Command = {
  summary: 'set up a NATS server for the fleet (init) or list every host\'s sessions (ls)',
  usage: `walscope fleet init ${BUS_USAGE}\n       walscope fleet ls [--status S] [--host H] [--attention] [--json] ${BUS_USAGE}`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { ...BUS_FLAGS, status: { type: 'string' }, host: { type: 'string' }, attention: { type: 'boolean' }, json: { type: 'boolean' } });
    const [sub, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected ${extra.join(' ')}`);
    if (sub === 'init') {
      const report = await withBus(values, 'walscope fleet init', initTopology);
      await writeOut([...report.created.map((n) => `created ${n}`), ...report.present.map((n) => `present ${n}`)].join('\n') + '\n');
      return EXIT_OK;
    }
    if (sub === 'ls') {
      if (values.status !== undefined && !isListedStatus(values.status)) throw new UsageError(`--status ${values.status}: not a status; one of ${LISTED_STATUSES.join(', ')}`);
      try {
        const filter = { ...(values.status === undefined ? {} : { status: values.status }), ...(values.host === undefined ? {} : { host: values.host }), attention: values.attention === true };
        const { rows, hosts, skipped } = await withBus(values, 'walscope fleet ls', (nc) => fleetRows(nc, filter));
        for (const bad of skipped) process.stderr.write(textLines([`walscope fleet ls: left out ${bad.bucket} key ${bad.key ?? '(the watch)'}: ${bad.why}`]));
        if (values.json === true) await writeOut(JSON.stringify({ hosts, sessions: rows, skipped }, null, 2) + '\n');
        else await writeOut(rows.length === 0 ? 'no sessions\n' : textLines(rows.map((row) => rowLine(row, values.attention === true))));
        return EXIT_OK;
      } catch (error) {
        if (!(error instanceof TopologyMissingError)) throw error;
        process.stderr.write(`walscope fleet ls: ${error.message}\n`);
        return EXIT_REFUSED;
      }
    }
    throw new UsageError(sub === undefined ? 'expected init or ls' : `no fleet command "${sub}"`);
  },
};

/** One session as `fleet ls` prints it: host, session, its status's label (a torn tail beside it), seq, and why —
 *  or, in the attention queue, what it waits for. Everything but the seq is an agent's text: printed as text. */
function rowLine(row: FleetRow, attention: boolean): string {
  const torn = row.torn_tail === null ? '' : ` · torn tail: ${plural(row.torn_tail.bytes, 'byte')} at offset ${row.torn_tail.offset}`;
  const stale = row.stale ? ' (stale: host offline)' : '';
  const why = attention && row.attention !== null ? `${row.attention.kind}: ${row.attention.message}` : row.why;
  return `${printable(row.host, 200)}\t${printable(row.session, 200)}\t${statusLabel(row.status)}${torn}${stale}\tseq ${row.last_seq}\t${printable(why, 1_000)}`;
}

export const agentCommand: Command = {
  summary: 'put a state root\'s sessions on a NATS fleet and answer its API there',
  usage: `walscope agent ROOT [--host NAME] [--operators USER,USER…] [--held-after-ms N] [--silent-after-ms N] ${BUS_USAGE}   (--operators: the NATS users whose writes it runs; default ${DEFAULT_OPERATORS.join(',')}; the thresholds of the alerts it publishes, docs/alerts.md)`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { ...BUS_FLAGS, ...THRESHOLD_FLAGS, host: { type: 'string' }, operators: { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('expected one ROOT (a state root)');
    const operators = values.operators === undefined ? DEFAULT_OPERATORS : values.operators.split(',');
    if (!operators.every(isOperatorName)) throw new UsageError(`--operators ${values.operators}: NATS user names, separated by commas`);
    const thresholds = thresholdsOf(values);
    const root = path.resolve(positionals[0]!);
    if (classifyPath(root) !== 'state_root') throw new UsageError(`${root}: not a state root`);
    const host = values.host ?? os.hostname();
    const options = busOptions(values, `walscope agent ${host}`);
    if (typeof options === 'string') throw new UsageError(options);
    const nc = await connectBus(options);
    const api = await WorkerApi.start(WORKER_FILE, root, thresholds);
    let agent: FleetAgent;
    try {
      agent = await FleetAgent.start({ nc, api, host, root, version: walscopeVersion(), operators: new Set(operators) });
    } catch (error) {
      await api.close();
      await nc.close();
      if (!(error instanceof TopologyMissingError)) throw error;
      process.stderr.write(`walscope agent: ${error.message}\n`);
      return EXIT_REFUSED;
    }
    await writeOut(`walscope agent: host ${host} on ${options.url}, root ${root}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await agent.close();
    await nc.drain().catch(() => undefined);
    await api.close();
    return EXIT_OK;
  },
};

export const fetchCommand: Command = {
  summary: 'copy a session\'s WAL from a fleet host into DIR as a read-only export, verified by SHA-256',
  usage: `walscope fetch HOST SESSION DIR ${BUS_USAGE}`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, BUS_FLAGS);
    if (positionals.length !== 3) throw new UsageError('expected HOST SESSION DIR');
    const [host, session, dir] = positionals as [string, string, string];
    const result = await withBus(values, 'walscope fetch', (nc) => fetchSession(nc, host, session, path.resolve(dir)));
    await writeOut(`${result.path}\t${result.size_bytes} bytes\tsha256 ${result.sha256}\n`);
    return EXIT_OK;
  },
};

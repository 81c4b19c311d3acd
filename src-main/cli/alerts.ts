// `walscope alerts ROOT [--follow] [--json]`: the alerts only a WAL can raise (docs/alerts.md), one line each
// (JSON lines with --json). The first look reports what is already true as one summary; --follow then tails the
// root through the session service's own tailing and prints each alert as it fires and clears.
import { ALERT_LABEL, DEFAULT_ALERT_THRESHOLDS, type Alert, type AlertEvent, type AlertThresholds } from '../../src-shared/alerts.js';
import { classifyPath } from '../engine/index.js';
import { SessionService } from '../services/session-service.js';
import { watchAlerts } from '../services/alert-watch.js';
import { readFleetAlerts } from '../fleet/alerts.js';
import { BUS_FLAGS, BUS_USAGE, busOptions, busUser, connectBus } from '../fleet/connection.js';
import { inboxPrefix } from '../fleet/names.js';
import { TopologyMissingError } from '../fleet/topology.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';

/** A threshold flag's largest value: a week. */
const THRESHOLD_MS_MAX = 7 * 86_400_000;

export const alertsCommand: Command = {
  summary: 'print the alerts a state root (or a session, or an export) raises now; --follow prints each as it fires and clears',
  usage: `walscope alerts ROOT [--follow] [--json] [--held-after-ms N] [--silent-after-ms N]   (defaults: a held call after 1 h, a silent writer after 10 min)\n       walscope alerts --fleet [--follow] [--json] ${BUS_USAGE}   (what every host's agent published, oldest first)`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      follow: { type: 'boolean' },
      json: { type: 'boolean' },
      ...THRESHOLD_FLAGS,
      fleet: { type: 'boolean' },
      ...BUS_FLAGS,
    });
    if (values.fleet === true) {
      if (positionals.length > 0) throw new UsageError('--fleet reads every host\'s alerts: give no ROOT');
      return fleetAlerts(values, values.follow === true, values.json === true);
    }
    if (values.nats !== undefined) throw new UsageError('--nats goes with --fleet');
    if (positionals.length !== 1) throw new UsageError('give one ROOT (a state root, a session folder or an export)');
    const root = positionals[0]!;
    if (classifyPath(root) === 'missing') throw new UsageError(`${root}: no such file or folder`);
    const thresholds = thresholdsOf(values);
    const json = values.json === true;
    const follow = values.follow === true;
    const service = await SessionService.open(root, { watch: follow, cache: false });
    try {
      await service.whenRead();
      let printing = Promise.resolve();
      const stop = watchAlerts(service, { thresholds }, (events) => {
        printing = printing.then(() => writeOut(events.map((event) => (json ? `${JSON.stringify(event)}\n` : eventText(event))).join('')));
      });
      if (follow) await untilStopped();
      stop();
      await printing;
    } finally {
      await service.close();
    }
    return EXIT_OK;
  },
};

/** Prints the fleet's alert events, then (with --follow) each new one until SIGINT or SIGTERM. */
async function fleetAlerts(values: Parameters<typeof busOptions>[0], follow: boolean, json: boolean): Promise<number> {
  const bus = busOptions(values, 'walscope alerts --fleet');
  if (typeof bus === 'string') throw new UsageError(bus);
  const nc = await connectBus(bus);
  try {
    await readFleetAlerts(nc, inboxPrefix(busUser(bus)), follow, follow ? untilStopped() : new Promise(() => undefined), async (event) => {
      await writeOut(json ? `${JSON.stringify(event)}\n` : `${event.host} ${event.type} ${alertText(event.alert)}\n`);
    });
  } catch (error) {
    if (!(error instanceof TopologyMissingError)) throw error;
    process.stderr.write(`walscope alerts: ${error.message}\n`);
    return EXIT_REFUSED;
  } finally {
    await nc.close();
  }
  return EXIT_OK;
}

/** The thresholds' flags, `alerts`' and the agent's. */
export const THRESHOLD_FLAGS = { 'held-after-ms': { type: 'string' }, 'silent-after-ms': { type: 'string' } } as const;

export function thresholdsOf(values: { 'held-after-ms'?: string | undefined; 'silent-after-ms'?: string | undefined }): AlertThresholds {
  return {
    ...DEFAULT_ALERT_THRESHOLDS,
    held_after_ms: thresholdOf('--held-after-ms', values['held-after-ms'], DEFAULT_ALERT_THRESHOLDS.held_after_ms),
    silent_after_ms: thresholdOf('--silent-after-ms', values['silent-after-ms'], DEFAULT_ALERT_THRESHOLDS.silent_after_ms),
  };
}

function thresholdOf(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0 || ms > THRESHOLD_MS_MAX) throw new UsageError(`${flag} ${value}: a whole number of milliseconds from 0 to ${THRESHOLD_MS_MAX}`);
  return ms;
}

function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

/** An event in lines: a summary's header and its alerts indented, or one line. */
function eventText(event: AlertEvent): string {
  switch (event.type) {
    case 'summary':
      return `${event.alerts.length === 0 ? 'no alerts' : `${event.alerts.length} alert${event.alerts.length === 1 ? '' : 's'} already true`} over ${event.sessions} session${event.sessions === 1 ? '' : 's'}\n${event.alerts.map((alert) => `  ${alertText(alert)}\n`).join('')}`;
    case 'fired':
      return `fired ${alertText(event.alert)}\n`;
    case 'cleared':
      return `cleared ${alertText(event.alert)}\n`;
    case 'suppressed':
      return `held back ${event.alerts} more alert${event.alerts === 1 ? '' : 's'} of ${event.session} (its rate limit); they fire in the next window\n`;
  }
}

/** `critical needs attention (close_out) SESSION seq 12: what it waits for — LINK`. */
function alertText(alert: Alert): string {
  const label = alert.attention === null ? ALERT_LABEL[alert.kind] : `${ALERT_LABEL[alert.kind]} (${alert.attention})`;
  return `${alert.severity} ${label} ${alert.session} seq ${alert.seq}: ${alert.waits_for} — ${alert.link}`;
}

// The viewer's side of the bus: the summaries and host beats as they are now, and API calls to one host's agent.
import type { NatsConnection } from '@nats-io/transport-node';
import type { ApiMethod } from '../../src-shared/ipc.js';
import { HOST_OFFLINE_MS, type FleetReply, type FleetRequest, type FleetSummary, type HostBeat } from './agent.js';
import { BucketIndex, fleetFilterKeeps, FleetIndex, type BadValueReport, type FleetFilter } from './index.js';
import { apiSubject, hostKey, HOSTS_BUCKET } from './names.js';
import { hostBeatAt } from './values.js';

export const REQUEST_TIMEOUT_MS = 10_000;

export interface FleetRow extends FleetSummary {
  /** The host's beat is older than HOST_OFFLINE_MS (or missing): the summary is its last known state. */
  stale: boolean;
}

/** A bucket value left out of the list: which bucket and key, and why. */
export interface SkippedValue {
  bucket: string;
  key: string | null;
  why: string;
}

/** Every session that passes `filter`, once: a beat is aged by when the server stored it (the agent's own
 *  `beat_ms` is never believed), against this machine's clock. */
export async function fleetRows(nc: NatsConnection, filter: FleetFilter = {}): Promise<{ rows: FleetRow[]; hosts: HostBeat[]; skipped: SkippedValue[] }> {
  const skipped: SkippedValue[] = [];
  const report: BadValueReport = (bucket, key, why) => skipped.push({ bucket, key, why });
  const hosts = await BucketIndex.open(nc, HOSTS_BUCKET, hostBeatAt, report);
  const sessions = await FleetIndex.open(nc, report);
  hosts.close();
  sessions.close();
  const now = Date.now();
  const rows: FleetRow[] = [];
  for (const summary of sessions.summaries.values()) {
    if (!fleetFilterKeeps(filter, summary)) continue;
    const stored_ms = hosts.stored_ms.get(hostKey(summary.host));
    rows.push({ ...summary, stale: stored_ms === undefined || now - stored_ms > HOST_OFFLINE_MS });
  }
  rows.sort((a, b) => a.host.localeCompare(b.host) || a.session.localeCompare(b.session));
  return { rows, hosts: [...hosts.values.values()], skipped };
}

export class FleetCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** One WalscopeApi call on a host's agent as NATS user `user` (the connection's: connection.ts busUser); the
 *  agent's error comes back as a FleetCallError. */
export async function callHost(nc: NatsConnection, user: string, host: string, method: ApiMethod, request: FleetRequest, timeout_ms = REQUEST_TIMEOUT_MS): Promise<unknown> {
  const msg = await nc.request(apiSubject(host, method, user), JSON.stringify(request), { timeout: timeout_ms });
  const reply = msg.json<FleetReply>();
  if (!reply.ok) throw new FleetCallError(reply.error, reply.code);
  return reply.value;
}

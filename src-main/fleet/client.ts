// The viewer's side of the bus: the summaries and host beats as they are now, and API calls to one host's agent.
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ApiMethod } from '../../src-shared/ipc.js';
import { HOST_OFFLINE_MS, type FleetReply, type FleetRequest, type FleetSummary, type HostBeat } from './agent.js';
import { apiSubject, HOSTS_BUCKET, SESSIONS_BUCKET } from './names.js';
import { natsModules } from './nats-modules.js';
import { requireTopology } from './topology.js';

export const REQUEST_TIMEOUT_MS = 10_000;

export interface FleetRow extends FleetSummary {
  /** The host's beat is older than HOST_OFFLINE_MS (or missing): the summary is its last known state. */
  stale: boolean;
}

/** Every current value of a bucket: a watch of last values, read until the server says none are pending. */
export async function bucketValues<T>(kv: KV): Promise<Map<string, T>> {
  const values = new Map<string, T>();
  if ((await kv.status()).values === 0) return values;
  const watch = await kv.watch({ key: '>' });
  for await (const entry of watch) {
    if (entry.operation === 'PUT') values.set(entry.key, entry.json<T>());
    else values.delete(entry.key);
    if (entry.delta === 0) break;
  }
  watch.stop();
  return values;
}

export async function fleetRows(nc: NatsConnection, filter: { status?: string; host?: string } = {}): Promise<{ rows: FleetRow[]; hosts: HostBeat[] }> {
  await requireTopology(nc);
  const kvm = new (await natsModules()).kv.Kvm(nc);
  const hosts = [...(await bucketValues<HostBeat>(await kvm.open(HOSTS_BUCKET))).values()];
  const beats = new Map(hosts.map((beat) => [beat.host, beat.beat_ms]));
  const now = Date.now();
  const rows: FleetRow[] = [];
  for (const summary of (await bucketValues<FleetSummary>(await kvm.open(SESSIONS_BUCKET))).values()) {
    if (filter.status !== undefined && summary.status !== filter.status) continue;
    if (filter.host !== undefined && summary.host !== filter.host) continue;
    const beat = beats.get(summary.host);
    rows.push({ ...summary, stale: beat === undefined || now - beat > HOST_OFFLINE_MS });
  }
  rows.sort((a, b) => a.host.localeCompare(b.host) || a.session.localeCompare(b.session));
  return { rows, hosts };
}

export class FleetCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** One WalscopeApi call on a host's agent; the agent's error comes back as a FleetCallError. */
export async function callHost(nc: NatsConnection, host: string, method: ApiMethod, request: FleetRequest, timeout_ms = REQUEST_TIMEOUT_MS): Promise<unknown> {
  const msg = await nc.request(apiSubject(host, method), JSON.stringify(request), { timeout: timeout_ms });
  const reply = msg.json<FleetReply>();
  if (!reply.ok) throw new FleetCallError(reply.error, reply.code);
  return reply.value;
}

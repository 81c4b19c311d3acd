// The fleet's topology on the server: two KV buckets and two streams, with their limits. `walscope fleet init`
// creates them (idempotent); agents and viewers only check that they are there and say so in one line if not.
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { natsModules } from './nats-modules.js';
import { ALERTS_STREAM, ALERTS_SUBJECTS, AUDIT_STREAM, AUDIT_SUBJECTS, EVENTS_STREAM, EVENTS_SUBJECTS, HOSTS_BUCKET, SESSIONS_BUCKET } from './names.js';

const NS_PER_MS = 1_000_000;
const DAY_MS = 86_400_000;
export const EVENTS_AGE_MS = 30 * DAY_MS;
export const EVENTS_BYTES_MAX = 1024 ** 3;
/** The audit is the record of who changed what: kept a year, far larger bound than events. */
export const AUDIT_AGE_MS = 365 * DAY_MS;
export const AUDIT_BYTES_MAX = 4 * 1024 ** 3;
/** Alerts (docs/alerts.md) are kept a month within a quarter of the events' bound; an agent publishes each under
 *  a Nats-Msg-Id, which the stream remembers for a day, so an agent's restart within it repeats none. */
export const ALERTS_AGE_MS = 30 * DAY_MS;
export const ALERTS_BYTES_MAX = 256 * 1024 ** 2;
export const ALERTS_DUPLICATE_WINDOW_MS = DAY_MS;
export const SESSIONS_BUCKET_BYTES_MAX = 1024 ** 3;
export const HOSTS_BUCKET_BYTES_MAX = 64 * 1024 ** 2;
/** One summary or heartbeat value; a summary is ~1 KB. */
export const KV_VALUE_BYTES_MAX = 16_384;
export const MESSAGE_BYTES_MAX = 65_536;

export class TopologyMissingError extends Error {
  override name = 'TopologyMissingError';
}

export interface TopologyReport {
  created: string[];
  present: string[];
}

/** Creates what is missing and leaves what exists as it is; says which was which. */
export async function initTopology(nc: NatsConnection): Promise<TopologyReport> {
  const { jetstream, kv } = await natsModules();
  const { RetentionPolicy, StorageType } = jetstream;
  const jsm = await jetstream.jetstreamManager(nc);
  const report: TopologyReport = { created: [], present: [] };
  const kvm = new kv.Kvm(nc);
  for (const [bucket, max_bytes] of [
    [SESSIONS_BUCKET, SESSIONS_BUCKET_BYTES_MAX],
    [HOSTS_BUCKET, HOSTS_BUCKET_BYTES_MAX],
  ] as const) {
    const exists = await streamExists(jsm, `KV_${bucket}`);
    if (!exists) await kvm.create(bucket, { history: 1, max_bytes, maxValueSize: KV_VALUE_BYTES_MAX, storage: StorageType.File });
    (exists ? report.present : report.created).push(`bucket ${bucket}`);
  }
  for (const [name, subjects, age_ms, max_bytes, duplicate_window_ms] of [
    [EVENTS_STREAM, EVENTS_SUBJECTS, EVENTS_AGE_MS, EVENTS_BYTES_MAX, null],
    [AUDIT_STREAM, AUDIT_SUBJECTS, AUDIT_AGE_MS, AUDIT_BYTES_MAX, null],
    [ALERTS_STREAM, ALERTS_SUBJECTS, ALERTS_AGE_MS, ALERTS_BYTES_MAX, ALERTS_DUPLICATE_WINDOW_MS],
  ] as const) {
    const exists = await streamExists(jsm, name);
    if (!exists) {
      await jsm.streams.add({
        name,
        subjects: [subjects],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        max_age: age_ms * NS_PER_MS,
        max_bytes,
        max_msg_size: MESSAGE_BYTES_MAX,
        ...(duplicate_window_ms === null ? {} : { duplicate_window: duplicate_window_ms * NS_PER_MS }),
      });
    }
    (exists ? report.present : report.created).push(`stream ${name}`);
  }
  return report;
}

/** Throws one line naming what is missing and the command that creates it. */
export async function requireTopology(nc: NatsConnection): Promise<void> {
  const jsm = await (await natsModules()).jetstream.jetstreamManager(nc);
  const missing: string[] = [];
  for (const name of [`KV_${SESSIONS_BUCKET}`, `KV_${HOSTS_BUCKET}`, EVENTS_STREAM, AUDIT_STREAM, ALERTS_STREAM]) {
    if (!(await streamExists(jsm, name))) missing.push(name.replace(/^KV_/, 'bucket '));
  }
  if (missing.length > 0) {
    throw new TopologyMissingError(`the fleet is not set up on this server (missing ${missing.join(', ')}): run \`walscope fleet init --nats URL\` once`);
  }
}

async function streamExists(jsm: JetStreamManager, name: string): Promise<boolean> {
  try {
    await jsm.streams.info(name);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  const e = error as { code?: unknown; api_error?: { err_code?: number }; message?: string };
  return e?.api_error?.err_code === 10059 || /stream not found/i.test(String(e?.message));
}

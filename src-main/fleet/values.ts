// The buckets' values as a viewer takes them: untrusted input. Every agent may write anything to its own keys
// (the server checks the key, never the value), so each value is parsed and checked against the shape its agent
// writes (agent.ts FleetSummary, HostBeat), and believed only as far as its key: the host (and the session) a
// value names must be its key's. A value that fails is skipped, saying which key and why; nothing else of the
// viewer depends on it.
import type { CallClass } from '../../src-shared/replay.js';
import { ATTENTION_MEANING, isListedStatus, RESUME_ACTIONS, type Attention } from '../../src-shared/status.js';
import type { FleetSummary, HostBeat } from './agent.js';
import { decodeToken, parseSessionKey } from './names.js';

/** A checked value, or one sentence saying why the value at `key` is not one. */
export type ValueCheck<T> = (key: string, value: unknown) => T | string;

/** The value's bytes as JSON, checked: a value or why not. */
export function parseValue<T>(key: string, bytes: Uint8Array, check: ValueCheck<T>): T | string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return `not JSON (${bytes.length} bytes)`;
  }
  return check(key, value);
}

type Fields = Record<string, unknown>;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
/** A time in ms since the epoch (an mtime has a fraction). */
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isText = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

const CALL_CLASSES: Record<CallClass, true> = {
  completed: true,
  no_dispatch: true,
  indeterminate: true,
  provider_held: true,
  held_successor: true,
  never_left: true,
  interrupted: true,
  max_steps: true,
};

/** The first field of `value` that is not as `checks` says, or null. */
function badField(value: Fields, checks: Record<string, (field: unknown) => boolean>): string | null {
  for (const [name, check] of Object.entries(checks)) if (!check(value[name])) return name;
  return null;
}

const SUMMARY_FIELDS: Record<string, (field: unknown) => boolean> = {
  status: isListedStatus,
  why: isText,
  attention: (field) => field === null || (isObject(field) && isText(field['kind']) && Object.hasOwn(ATTENTION_MEANING, field['kind']) && isText(field['message'])),
  torn_tail: (field) => field === null || (isObject(field) && isCount(field['offset']) && isCount(field['bytes'])),
  episodes: isCount,
  records: isCount,
  class_counts: (field) => isObject(field) && Object.entries(field).every(([name, count]) => Object.hasOwn(CALL_CLASSES, name) && isCount(count)),
  last_seq: isCount,
  size_bytes: isCount,
  last_activity_ms: (field) => field === null || isTime(field),
  plan: (field) => field === null || (isObject(field) && (RESUME_ACTIONS as readonly unknown[]).includes(field['action']) && isText(field['message'])),
  written_ms: isTime,
};

/** A session's summary at `key` (`<host>.<session>`): the host and session are the key's. */
export const fleetSummaryAt: ValueCheck<FleetSummary> = (key, value) => {
  let where: { host: string; session: string };
  try {
    where = parseSessionKey(key);
  } catch (error) {
    return (error as Error).message;
  }
  if (!isObject(value)) return 'not a summary object';
  if (value['host'] !== where.host) return `it names host ${JSON.stringify(value['host'])?.slice(0, 100)}, but the key is host ${where.host}'s`;
  if (value['session'] !== where.session) return `it names session ${JSON.stringify(value['session'])?.slice(0, 100)}, but the key is session ${where.session}'s`;
  const bad = badField(value, SUMMARY_FIELDS);
  if (bad !== null) return `its ${bad} is not a summary's`;
  const attention = value['attention'] as Attention | null;
  const torn_tail = value['torn_tail'] as FleetSummary['torn_tail'];
  const plan = value['plan'] as FleetSummary['plan'];
  return {
    host: where.host,
    session: where.session,
    status: value['status'] as FleetSummary['status'],
    why: value['why'] as string,
    attention: attention === null ? null : { kind: attention.kind, message: attention.message },
    torn_tail: torn_tail === null ? null : { offset: torn_tail.offset, bytes: torn_tail.bytes },
    episodes: value['episodes'] as number,
    records: value['records'] as number,
    class_counts: { ...(value['class_counts'] as FleetSummary['class_counts']) },
    last_seq: value['last_seq'] as number,
    size_bytes: value['size_bytes'] as number,
    last_activity_ms: value['last_activity_ms'] as number | null,
    plan: plan === null ? null : { action: plan.action, message: plan.message },
    written_ms: value['written_ms'] as number,
  };
};

const BEAT_FIELDS: Record<string, (field: unknown) => boolean> = {
  version: isText,
  root: isText,
  sessions: isCount,
  started_ms: isTime,
  beat_ms: isTime,
};

/** A host's heartbeat at `key` (`<host>`): the host is the key's. Its times are what the agent's clock said; a
 *  viewer ages a beat by when the server stored it or when it arrived, never by them. */
export const hostBeatAt: ValueCheck<HostBeat> = (key, value) => {
  let host: string;
  try {
    host = decodeToken(key);
  } catch (error) {
    return (error as Error).message;
  }
  if (!isObject(value)) return 'not a heartbeat object';
  if (value['host'] !== host) return `it names host ${JSON.stringify(value['host'])?.slice(0, 100)}, but the key is host ${host}'s`;
  const bad = badField(value, BEAT_FIELDS);
  if (bad !== null) return `its ${bad} is not a heartbeat's`;
  return {
    host,
    version: value['version'] as string,
    root: value['root'] as string,
    sessions: value['sessions'] as number,
    started_ms: value['started_ms'] as number,
    beat_ms: value['beat_ms'] as number,
  };
};

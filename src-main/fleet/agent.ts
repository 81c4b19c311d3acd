// The fleet agent: one host's session service on the bus. It mirrors every session's summary into the
// `walscope-sessions` bucket (on change, at most one write a second per session, deleted when the session goes),
// beats into `walscope-hosts`, publishes status changes to WALSCOPE_EVENTS, and answers the WalscopeApi on
// `walscope.api.<host>.<access>.<user>.<method>`. Every write (API_METHOD_ACCESS) is an operator's: it is
// refused unless it came on a write subject, which the server lets only operators publish, from a user this agent
// counts as an operator (`--operators`), and its request and outcome are appended to WALSCOPE_AUDIT (and the
// server's ack awaited) before the reply goes out: no write is ever reported that the audit does not hold. It needs no JetStream consumer (the server's config gives it
// none: a consumer may deliver a stream's messages to any subject).
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { API_METHOD_ACCESS, ApiFailure, callApi, checkedCall, isWriteMethod, type ApiErrorCode, type ApiRequest, type ApiRequests, type SessionSummary, type WalscopeApi, type WriteMethod } from '../../src-shared/ipc.js';
import type { Attention, ListedStatus } from '../../src-shared/status.js';
import { alertKey, type AlertEvent } from '../../src-shared/alerts.js';
import type { ActionApprover } from '../services/actions.js';
import { alertSubject, apiSubscription, auditSubject, eventSubject, hostKey, HOSTS_BUCKET, inboxPrefix, parseApiSubject, sessionKey, SESSIONS_BUCKET, type ApiCall } from './names.js';
import { answerFetch } from './fetch.js';
import { natsModules } from './nats-modules.js';
import { requireTopology } from './topology.js';

export const HEARTBEAT_MS = 5_000;
/** A host whose last beat is older than this is offline to every viewer. */
export const HOST_OFFLINE_MS = 15_000;
export const SUMMARY_WRITE_MIN_MS = 1_000;
/** Room kept under the server's max payload for the reply's envelope and headers. */
const REPLY_MARGIN_BYTES = 4_096;
/** A status change is an event an operator may need to hear about when the session enters the attention queue or
 *  a run ends: every status but the transient ones. */
const QUIET_STATUSES: ReadonlySet<ListedStatus> = new Set(['loading', 'running']);

export interface FleetSummary {
  host: string;
  session: string;
  status: ListedStatus;
  why: string;
  /** What the session waits on a person for (wal-format §10 "Needs attention"), or null. */
  attention: Attention | null;
  torn_tail: SessionSummary['torn_tail'];
  episodes: number;
  records: number;
  class_counts: SessionSummary['class_counts'];
  last_seq: number;
  size_bytes: number;
  last_activity_ms: number | null;
  plan: SessionSummary['plan'];
  written_ms: number;
}

export interface HostBeat {
  host: string;
  version: string;
  root: string;
  sessions: number;
  started_ms: number;
  beat_ms: number;
}

/** The request body on `walscope.api.<host>.<access>.<user>.<method>`: the method's positional arguments, checked
 *  by apiCallProblem here, once, as by every transport that receives a request (the worker behind does not check
 *  them again). Who asks is the subject's user, never anything the body says. */
export interface FleetRequest {
  args: unknown[];
}

export type FleetReply = { ok: true; value: unknown } | { ok: false; error: string; code: ApiErrorCode | 'too_large' };

export interface AuditEntry {
  phase: 'request' | 'outcome';
  at_ms: number;
  host: string;
  session: string;
  action: string;
  /** Who the WAL's operator_action names: the server's authenticated user (`nats_user`). */
  operator: string;
  /** The name the caller typed (the write's `operator` argument) where it is not `operator`; self-declared. */
  declared_operator: string | null;
  nats_user: string;
  reason: string;
  based_on_seq: number | null;
  records_written: number | null;
  result: string;
}

/** The agent's root: the whole API, and the same API acting for a remote operator (their name in the WAL's audit). */
export type AgentApi = WalscopeApi & { approvedBy(approver: ActionApprover): ApiRequests };

export interface AgentOptions {
  nc: NatsConnection;
  api: AgentApi;
  host: string;
  root: string;
  version: string;
  /** The NATS users whose writes this agent runs (`--operators`): a second word on who is an operator, beside the
   *  server's permissions, so one wrong config alone lets no one else write. */
  operators: ReadonlySet<string>;
}

/** The operator of docs/fleet-server.conf: the agent's `--operators` when none are named. */
export const DEFAULT_OPERATORS: readonly string[] = ['operator'];

export class FleetAgent {
  private readonly written = new Map<string, { status: ListedStatus; json: string; at_ms: number }>();
  private readonly due = new Set<string>();
  private readonly started_ms = Date.now();
  private flush_timer: NodeJS.Timeout | null = null;
  private beat_timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private api_sub: Subscription | null = null;
  private fetch_sub: { unsubscribe(): void } | null = null;
  private syncing: Promise<void> = Promise.resolve();
  private closed = false;
  private publishing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly options: AgentOptions,
    private readonly js: JetStreamClient,
    private readonly sessions: KV,
    private readonly hosts: KV,
  ) {}

  static async start(options: AgentOptions): Promise<FleetAgent> {
    await requireTopology(options.nc);
    const { jetstream, kv } = await natsModules();
    const kvm = new kv.Kvm(options.nc);
    const agent = new FleetAgent(options, jetstream.jetstream(options.nc), await kvm.open(SESSIONS_BUCKET, { allow_direct: true }), await kvm.open(HOSTS_BUCKET));
    await agent.forgetVanished();
    await agent.sync();
    await agent.beat();
    agent.unsubscribe = options.api.subscribe((event) => {
      if (event.type === 'alerts') agent.schedulePublish(event.events);
      if (event.type === 'sessions' || event.type === 'summaries' || event.type === 'session') agent.scheduleSync();
    });
    // The worker's first look may have been before the subscription: what is already true is published again
    // (the stream drops what it has had).
    const known = await options.api.getAlerts();
    if (known.looked) agent.schedulePublish([{ type: 'summary', at_ms: Date.now(), alerts: known.current.map((shown) => shown.alert), sessions: 0 }]);
    agent.api_sub = options.nc.subscribe(apiSubscription(options.host), {
      callback: (error, msg) => {
        if (error === null) void agent.answer(msg);
      },
    });
    agent.fetch_sub = answerFetch(options.nc, options.api, options.host);
    agent.beat_timer = setInterval(() => {
      void agent.beat().catch(() => undefined);
      agent.scheduleSync();
    }, HEARTBEAT_MS);
    agent.flush_timer = setInterval(() => agent.scheduleSync(), SUMMARY_WRITE_MIN_MS);
    return agent;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.beat_timer !== null) clearInterval(this.beat_timer);
    if (this.flush_timer !== null) clearInterval(this.flush_timer);
    this.unsubscribe?.();
    this.api_sub?.unsubscribe();
    this.fetch_sub?.unsubscribe();
    await this.syncing.catch(() => undefined);
    await this.publishing;
  }

  /** Publishes the worker's alert events in their order, after those before them. */
  private schedulePublish(events: readonly AlertEvent[]): void {
    if (this.closed) return;
    this.publishing = this.publishing.then(() => this.publishAlerts(events)).catch(() => undefined);
  }

  private scheduleSync(): void {
    if (this.closed) return;
    this.syncing = this.syncing.then(() => this.sync()).catch(() => undefined);
  }

  /** Keys this host wrote in an earlier life whose sessions are gone now: found by the stream's subjects (stream
   *  info, filtered to this host's keys) and each key's last value (a direct get by subject, which the server's
   *  permissions hold to this host's keys), with no consumer. */
  private async forgetVanished(): Promise<void> {
    const present = new Set((await this.options.api.listSessions()).map((s) => sessionKey(this.options.host, s.key)));
    const prefix = `$KV.${SESSIONS_BUCKET}.`;
    const jsm = await (await natsModules()).jetstream.jetstreamManager(this.options.nc);
    const info = await jsm.streams.info(`KV_${SESSIONS_BUCKET}`, { subjects_filter: `${prefix}${hostKey(this.options.host)}.>` });
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      const key = subject.slice(prefix.length);
      if (present.has(key)) continue;
      if ((await this.sessions.get(key))?.operation === 'PUT') await this.sessions.delete(key);
    }
  }

  /** Writes what changed, at most once a second per session; deletes what went. */
  private async sync(): Promise<void> {
    const { api, host } = this.options;
    const list = await api.listSessions();
    const now = Date.now();
    const seen = new Set<string>();
    for (const summary of list) {
      const key = sessionKey(host, summary.key);
      seen.add(key);
      const before = this.written.get(key);
      const fingerprint = JSON.stringify(summary);
      if (before !== undefined && before.json === fingerprint) continue;
      if (before !== undefined && now - before.at_ms < SUMMARY_WRITE_MIN_MS) {
        this.due.add(key);
        continue;
      }
      this.due.delete(key);
      await this.sessions.put(key, JSON.stringify(this.fleetSummary(summary, now)));
      this.written.set(key, { status: summary.status, json: fingerprint, at_ms: now });
      if (before?.status !== summary.status && !QUIET_STATUSES.has(summary.status) && before !== undefined) {
        await this.js.publish(eventSubject(host, summary.key), JSON.stringify({ host, session: summary.key, from: before.status, to: summary.status, why: summary.status_detail, at_ms: now }));
      }
    }
    for (const key of [...this.written.keys()]) {
      if (seen.has(key)) continue;
      await this.sessions.delete(key);
      this.written.delete(key);
      this.due.delete(key);
    }
  }

  /** Each alert that fired or cleared (the first look's, as fired), under a Nats-Msg-Id of its occurrence: the
   *  stream drops what it has had in its duplicate window, so a restarted agent repeats none. */
  private async publishAlerts(events: readonly AlertEvent[]): Promise<void> {
    const { host } = this.options;
    for (const event of events) {
      const changes = event.type === 'summary' ? event.alerts.map((alert) => ({ type: 'fired' as const, at_ms: event.at_ms, alert })) : event.type === 'suppressed' ? [] : [event];
      for (const change of changes) {
        const msgID = `${hostKey(host)}.${change.type}.${alertKey(change.alert)}`;
        await this.js.publish(alertSubject(host, change.alert.session), JSON.stringify({ host, ...change }), { msgID });
      }
    }
  }

  /** The bucket's value of a session: its summary as the service made it, which carries the plan, so publishing it
   *  never opens the session (a getSession per changed summary made every session of a big root resident in turn,
   *  evicting the ones an operator had open). */
  private fleetSummary(summary: SessionSummary, now: number): FleetSummary {
    return {
      host: this.options.host,
      session: summary.key,
      status: summary.status,
      why: summary.status_detail,
      attention: summary.attention,
      torn_tail: summary.torn_tail,
      episodes: summary.episodes,
      records: summary.records,
      class_counts: summary.class_counts,
      last_seq: summary.last_seq,
      size_bytes: summary.size_bytes,
      last_activity_ms: summary.last_activity_ms,
      plan: summary.plan,
      written_ms: now,
    };
  }

  private async beat(): Promise<void> {
    const beat: HostBeat = {
      host: this.options.host,
      version: this.options.version,
      root: this.options.root,
      sessions: this.written.size,
      started_ms: this.started_ms,
      beat_ms: Date.now(),
    };
    await this.hosts.put(hostKey(this.options.host), JSON.stringify(beat));
  }

  /** One API request. The subject says who asks (the server holds each user to its own name) and whether it is a
   *  read or a write; the answer goes only to the caller's own inbox. A request whose reply names another inbox
   *  (a caller asking for its answer elsewhere, or a JetStream consumer delivering a stored message here, whose
   *  reply is the stream's) is not answered, and a write in it is refused, audited. */
  private async answer(msg: Msg): Promise<void> {
    const call = parseApiSubject(msg.subject, this.options.host);
    const to_caller = typeof call !== 'string' && msg.reply !== undefined && msg.reply.startsWith(`${inboxPrefix(call.user)}.`);
    let reply: FleetReply;
    try {
      if (typeof call === 'string') throw new BadRequest(call);
      const checked = checkedCall(call.method, parseRequest(msg.data));
      const refusal = !to_caller ? `its reply does not go to ${call.user}'s own inbox (${inboxPrefix(call.user)}.…): nothing was done` : accessRefusal(call, this.options.operators);
      if (isWriteMethod(checked.method)) reply = { ok: true, value: await this.runAudited(checked.method, call.user, checked.args, refusal) };
      else if (refusal !== null) throw new BadRequest(refusal);
      else reply = { ok: true, value: await callApi(this.options.api, checked) };
    } catch (error) {
      reply = errorReply(error);
    }
    // A subject that names nobody is answered only to an inbox: never to a subject of the API or a stream's.
    if (to_caller || (typeof call === 'string' && msg.reply?.startsWith('_INBOX') === true)) msg.respond(this.bounded(reply));
  }

  /** A write, approved by `user` (the server's authenticated user: its operator_action names them, via "fleet"):
   *  the audit holds the request before anything is written and the outcome before the caller hears it; a
   *  refused one is audited too, and nothing runs. */
  private async runAudited<M extends WriteMethod>(method: M, user: string, args: unknown[], refusal: string | null): Promise<unknown> {
    const described = WRITES[method].request(args as Parameters<WalscopeApi[M]>);
    const base = {
      host: this.options.host,
      session: described.session,
      action: described.action,
      operator: user,
      declared_operator: described.declared_operator === user ? null : described.declared_operator,
      nats_user: user,
      reason: described.reason,
      based_on_seq: described.based_on_seq,
    };
    await this.audit({ ...base, phase: 'request', at_ms: Date.now(), records_written: null, result: 'requested' });
    if (refusal !== null) {
      await this.audit({ ...base, phase: 'outcome', at_ms: Date.now(), records_written: 0, result: `refused: ${refusal}` });
      throw new BadRequest(refusal);
    }
    let outcome: Awaited<ReturnType<WalscopeApi[M]>>;
    try {
      const approved = this.options.api.approvedBy({ operator: user, via: 'fleet' });
      outcome = (await callApi(approved, { method, args } as ApiRequest)) as Awaited<ReturnType<WalscopeApi[M]>>;
    } catch (error) {
      await this.audit({ ...base, phase: 'outcome', at_ms: Date.now(), records_written: 0, result: `error: ${(error as Error).message}` });
      throw error;
    }
    await this.audit({ ...base, phase: 'outcome', at_ms: Date.now(), ...WRITES[method].outcome(outcome) });
    this.scheduleSync();
    return outcome;
  }

  private async audit(entry: AuditEntry): Promise<void> {
    await this.js.publish(auditSubject(entry.host, entry.session), JSON.stringify(entry));
  }

  /** A reply never exceeds the server's max payload: a too-large one becomes an error asking for less. */
  private bounded(reply: FleetReply): string {
    const text = JSON.stringify(reply);
    const limit = this.options.nc.info?.max_payload ?? 1_048_576;
    if (Buffer.byteLength(text) <= limit - REPLY_MARGIN_BYTES) return text;
    return JSON.stringify({ ok: false, code: 'too_large', error: `the reply is ${Buffer.byteLength(text)} bytes, over the server's ${limit}: ask for fewer rows` } satisfies FleetReply);
  }
}

class BadRequest extends ApiFailure {
  constructor(message: string) {
    super('bad_request', message);
  }
}

/** The request body: `{"args": [...]}` and nothing else (who asks is the subject's, never the body's). */
function parseRequest(data: Uint8Array): unknown[] {
  let request: unknown;
  try {
    request = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    throw new BadRequest('the request is not JSON');
  }
  const fields = typeof request === 'object' && request !== null ? Object.keys(request) : [];
  if (fields.length !== 1 || fields[0] !== 'args' || !Array.isArray((request as FleetRequest).args)) throw new BadRequest('the request is {"args": [...]}, nothing else: who asks is the subject\'s user');
  return (request as FleetRequest).args;
}

/** Why the call may not be made as it came, or null: a write travels only on a write subject, which the server
 *  lets only operators publish, and only from a user the agent counts as an operator. */
function accessRefusal(call: ApiCall, operators: ReadonlySet<string>): string | null {
  const access = API_METHOD_ACCESS[call.method];
  if (call.access !== access && access === 'write') return `${call.method} writes: only an operator may call it, on walscope.api.<host>.write.<user>.${call.method}; nothing was done`;
  if (call.access !== access) return `${call.method} only reads: it travels on walscope.api.<host>.read.<user>.${call.method}`;
  if (access === 'write' && !operators.has(call.user)) return `${call.method} writes: only an operator may call it, and ${call.user} is not among this agent's operators (--operators ${[...operators].join(',')}); nothing was done`;
  return null;
}

function errorReply(error: unknown): FleetReply {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiFailure) return { ok: false, code: error.code, error: message };
  if (error instanceof Error && error.name === 'NotFoundError') return { ok: false, code: 'not_found', error: message };
  return { ok: false, code: 'internal', error: message };
}

/** What the audit says of each write: its request (the arguments checked by apiCallProblem) and its outcome. */
interface WriteAudit<M extends WriteMethod> {
  request(args: Parameters<WalscopeApi[M]>): { session: string; action: string; reason: string; based_on_seq: number | null; declared_operator: string };
  outcome(value: Awaited<ReturnType<WalscopeApi[M]>>): { records_written: number | null; result: string };
}

const WRITES: { [M in WriteMethod]: WriteAudit<M> } = {
  runAction: {
    request: ([session, kind, based_on_seq, reason, operator]) => ({ session, action: kind, reason, based_on_seq, declared_operator: operator }),
    outcome: (outcome) => (outcome.ok ? { records_written: outcome.written.length, result: 'written' } : { records_written: 0, result: `refused: ${outcome.refusal.reason}` }),
  },
  runAcknowledge: {
    request: ([session, call, finding, based_on_seq, reason, operator]) => ({ session, action: `acknowledge ${call.batch_id}/${call.tool_call_id}: ${finding}`, reason, based_on_seq, declared_operator: operator }),
    outcome: (result) => (result.ok ? { records_written: 1, result: 'written' } : { records_written: 0, result: `refused: ${result.refusal.reason}` }),
  },
  runRetire: {
    request: ([session, reason, , audit_reason, operator]) => ({ session, action: `retire (${reason})`, reason: audit_reason, based_on_seq: null, declared_operator: operator }),
    // A retire's records are the lineage's, archived or deleted: its message says what it did.
    outcome: (result) => (result.ok ? { records_written: null, result: `written: ${result.message}` } : { records_written: 0, result: `refused: ${result.refusal.code}` }),
  },
};

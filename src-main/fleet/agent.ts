// The fleet agent: one host's session service on the bus. It mirrors every session's summary into the
// `walscope-sessions` bucket (on change, at most one write a second per session, deleted when the session goes),
// beats into `walscope-hosts`, publishes status changes to WALSCOPE_EVENTS, and answers the WalscopeApi on
// `walscope.api.<host>.<method>`. A recovery request and its outcome are appended to WALSCOPE_AUDIT (and the
// server's ack awaited) before the reply goes out: no action is ever reported that the audit does not hold.
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { ApiFailure, dispatchApi, type ApiErrorCode, type ApiRequests, type SessionSummary, type WalscopeApi } from '../../src-shared/ipc.js';
import type { Attention, ListedStatus } from '../../src-shared/status.js';
import type { ActionApprover } from '../services/actions.js';
import { apiSubject, auditSubject, eventSubject, hostKey, HOSTS_BUCKET, sessionKey, SESSIONS_BUCKET } from './names.js';
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
  plan: { action: string; message: string } | null;
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

/** The request body on `walscope.api.<host>.<method>`: positional arguments (checked by dispatchApi, as on
 *  every transport), and for actions who asks (the reason is runAction's own argument). */
export interface FleetRequest {
  args: unknown[];
  operator?: string;
  nats_user?: string;
}

export type FleetReply = { ok: true; value: unknown } | { ok: false; error: string; code: ApiErrorCode | 'too_large' };

export interface AuditEntry {
  phase: 'request' | 'outcome';
  at_ms: number;
  host: string;
  session: string;
  action: string;
  operator: string | null;
  nats_user: string | null;
  reason: string | null;
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
}

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
    const agent = new FleetAgent(options, jetstream.jetstream(options.nc), await kvm.open(SESSIONS_BUCKET), await kvm.open(HOSTS_BUCKET));
    await agent.forgetVanished();
    await agent.sync();
    await agent.beat();
    agent.unsubscribe = options.api.subscribe((event) => {
      if (event.type === 'sessions' || event.type === 'summaries' || event.type === 'session') agent.scheduleSync();
    });
    agent.api_sub = options.nc.subscribe(apiSubject(options.host, '*'), {
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
  }

  private scheduleSync(): void {
    if (this.closed) return;
    this.syncing = this.syncing.then(() => this.sync()).catch(() => undefined);
  }

  /** Keys this host wrote in an earlier life whose sessions are gone now. */
  private async forgetVanished(): Promise<void> {
    const present = new Set((await this.options.api.listSessions()).map((s) => sessionKey(this.options.host, s.key)));
    const prefix = `${hostKey(this.options.host)}.`;
    for await (const key of await this.sessions.keys(`${prefix}*`)) {
      if (!present.has(key)) await this.sessions.delete(key);
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
      await this.sessions.put(key, JSON.stringify(await this.fleetSummary(summary, now)));
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

  private async fleetSummary(summary: SessionSummary, now: number): Promise<FleetSummary> {
    let plan: FleetSummary['plan'];
    try {
      const resume = (await this.options.api.getSession(summary.key)).resume;
      plan = { action: resume.action, message: resume.message };
    } catch {
      plan = null;
    }
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
      plan,
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

  private async answer(msg: Msg): Promise<void> {
    const method = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
    let reply: FleetReply;
    try {
      const request = parseRequest(msg.data);
      reply = { ok: true, value: method === 'runAction' ? await this.runAudited(request) : await dispatchApi(this.options.api, method, request.args) };
    } catch (error) {
      reply = errorReply(error);
    }
    msg.respond(this.bounded(reply));
  }

  /** The audit holds the request before anything is written and the outcome before the caller hears it. */
  private async runAudited(request: FleetRequest): Promise<unknown> {
    const [key, kind, based_on_seq, reason] = request.args as [string, string, number, string];
    if (typeof key !== 'string') throw new BadRequest('runAction needs a session key');
    const base = {
      host: this.options.host,
      session: key,
      action: String(kind),
      operator: request.operator ?? null,
      nats_user: request.nats_user ?? null,
      reason: typeof reason === 'string' ? reason : null,
      based_on_seq: typeof based_on_seq === 'number' ? based_on_seq : null,
    };
    await this.audit({ ...base, phase: 'request', at_ms: Date.now(), records_written: null, result: 'requested' });
    let outcome;
    try {
      const approved = this.options.api.approvedBy({ operator: approverName(request), via: 'fleet' });
      outcome = (await dispatchApi(approved, 'runAction', request.args)) as Awaited<ReturnType<WalscopeApi['runAction']>>;
    } catch (error) {
      await this.audit({ ...base, phase: 'outcome', at_ms: Date.now(), records_written: 0, result: `error: ${(error as Error).message}` });
      throw error;
    }
    const written = outcome.ok ? outcome.written.length : 0;
    const result = outcome.ok ? 'written' : `refused: ${outcome.refusal.reason}`;
    await this.audit({ ...base, phase: 'outcome', at_ms: Date.now(), records_written: written, result });
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

function parseRequest(data: Uint8Array): FleetRequest {
  let request: unknown;
  try {
    request = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    throw new BadRequest('the request is not JSON');
  }
  if (typeof request !== 'object' || request === null || !Array.isArray((request as FleetRequest).args)) throw new BadRequest('the request needs an "args" array');
  return request as FleetRequest;
}

function errorReply(error: unknown): FleetReply {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiFailure) return { ok: false, code: error.code, error: message };
  if (error instanceof Error && error.name === 'NotFoundError') return { ok: false, code: 'not_found', error: message };
  return { ok: false, code: 'internal', error: message };
}

/** The name the WAL's operator_action carries: the operator the caller names, else its NATS user. */
function approverName(request: FleetRequest): string {
  return request.operator ?? request.nats_user ?? 'unnamed fleet operator';
}

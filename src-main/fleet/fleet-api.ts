// The whole fleet as one WalscopeApi, for `walscope serve --fleet` (and the app's "Connect to a fleet…"): the
// renderer and the HTTP server see the same contract as for one state root. The list comes from the index of
// the sessions bucket (a watch kept in this process), paged and filtered here; everything about one session is
// the same API call on its host's agent over `walscope.api.<host>.<method>`. A session's key in the fleet is its
// bucket key (`<host>.<session>`, both encoded), so every key names its host.
//
// A host whose last heartbeat is older than HOST_OFFLINE_MS is offline: its summaries are marked stale, its
// sessions' last proxied details are shown with every action disabled (saying why), and actions on it are
// refused here before anything is sent.
import type { NatsConnection } from '@nats-io/transport-node';
import {
  apiClient,
  ApiFailure,
  type AcknowledgePreview,
  type AcknowledgeResult,
  type ActionOutcome,
  type ActionPreview,
  type ApiMethod,
  type CallRef,
  type HostView,
  type RetirePreview,
  type RetireResult,
  type SessionDetail,
  type SessionFilter,
  type SessionPage,
  type SessionSummary,
  type WalscopeApi,
  type WalscopeEvent,
  type Workspace,
} from '../../src-shared/ipc.js';
import type { Finding } from '../../src-shared/replay.js';
import { HOST_OFFLINE_MS, type FleetSummary, type HostBeat } from './agent.js';
import { callHost, FleetCallError } from './client.js';
import { busUser, connectBus, type BusOptions } from './connection.js';
import { BucketIndex, FleetIndex, type BadValueReport } from './index.js';
import { hostKey, HOSTS_BUCKET, parseSessionKey } from './names.js';
import { hostBeatAt } from './values.js';
import { FleetAlerts } from './alerts.js';
import type { AlertsView } from '../../src-shared/alerts.js';
import { comparePage, type CompareJson, type ComparePage } from '../../src-shared/compare.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ComparisonCache } from '../services/compare-cache.js';
import { compareFiles } from '../services/compare-files.js';
import { fetchSession } from './fetch.js';

/** How often the viewer says what moved: changes are gathered and sent at most this often. */
export const FLEET_EVENT_MS = 500;
/** Changed keys named in one event; past it the event says "many" (null) and the renderer refetches what it shows. */
export const CHANGED_KEYS_MAX = 1_000;
/** Last details kept per session opened, shown (actions disabled) while its host is offline. */
export const DETAILS_KEPT_MAX = 64;
export const FLEET_LISTENERS_MAX = 16;
/** Summaries in before the list is served: a first screen; the rest streams in behind (pages say complete: false). */
export const FIRST_ROWS = 200;
/** A call to an offline host fails at once; an online one that does not answer within this is unavailable. */
export const HOST_CALL_TIMEOUT_MS = 10_000;

interface FleetApiOptions {
  nc: NatsConnection;
  /** The server's URL as shown to the user (no user:password in it). */
  url: string;
  /** The NATS user this viewer calls as (connection.ts busUser): the one the agents' audits and the WAL name. */
  user: string;
  /** The compare worker's file (services/compare-worker.ts), which compares two hosts' sessions from their fetched
   *  copies; null: they are not compared here. */
  compare_worker: URL | string | null;
}

export class FleetApi implements WalscopeApi {
  private readonly listeners = new Set<(event: WalscopeEvent) => void>();
  private readonly changed = new Set<string>();
  private changed_overflow = false;
  private readonly details = new Map<string, SessionDetail>();
  private online_before = new Map<string, boolean>();
  /** When each host's latest heartbeat arrived here, on this process's clock. */
  private readonly beat_arrived_ms = new Map<string, number>();
  private readonly started_ms = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly unwatch: (() => void)[] = [];
  private readonly alerts: FleetAlerts;
  /** Two hosts' sessions compared last, from their fetched copies. */
  readonly comparisons = new ComparisonCache();

  private constructor(
    private readonly options: FleetApiOptions,
    readonly sessions: FleetIndex,
    private readonly hosts: BucketIndex<HostBeat>,
  ) {
    this.unwatch.push(sessions.bucket.onChange((key) => this.noteChange(key)));
    this.unwatch.push(hosts.onChange((key) => this.beat_arrived_ms.set(key, Date.now())));
    this.timer = setInterval(() => this.emit(), FLEET_EVENT_MS);
    this.timer.unref();
    this.alerts = new FleetAlerts(options.nc, options.user, (event) => this.tell(event));
  }

  /** Connects (the connection is the FleetApi's, drained by close) and opens both indexes; resolves once the
   *  hosts are in and the first `first_rows` summaries are. A bucket value that is not what its agent writes is
   *  left out and said on stderr, by key. */
  static async connect(bus: BusOptions, first_rows = FIRST_ROWS, compare_worker: URL | string | null = null): Promise<FleetApi> {
    const nc = await connectBus(bus);
    try {
      const options: FleetApiOptions = { nc, url: bus.url.replace(/\/\/[^@/]*@/, '//'), user: busUser(bus), compare_worker };
      const [hosts, sessions] = await Promise.all([BucketIndex.open(nc, HOSTS_BUCKET, hostBeatAt, reportBadValue), FleetIndex.open(nc, reportBadValue, first_rows)]);
      await hosts.complete;
      return new FleetApi(options, sessions, hosts);
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.alerts.close();
    for (const stop of this.unwatch) stop();
    this.sessions.close();
    this.hosts.close();
    this.listeners.clear();
    await this.options.nc.drain().catch(() => undefined);
  }

  async getWorkspace(): Promise<Workspace> {
    return { path: this.options.url, kind: 'fleet', read_only: false, not_sessions: [] };
  }

  /** A fleet is listed by pages: the whole list of 100,000 sessions is never one answer. */
  async listSessions(): Promise<SessionSummary[]> {
    throw new ApiFailure('bad_request', `a fleet of ${this.sessions.summaries.size} sessions is listed by pages: use listPage`);
  }

  async listPage(filter: SessionFilter, start: number, count: number): Promise<SessionPage> {
    const now_ms = Date.now();
    const page = this.sessions.page({ ...(filter.status === null ? {} : { status: filter.status }), ...(filter.host === null ? {} : { host: filter.host }), attention: filter.attention }, start, count);
    return {
      filter,
      start,
      total: page.total,
      complete: page.complete,
      rows: page.rows.map(([key, summary]) => this.summaryOf(key, summary, now_ms)),
      hosts: this.hostViews(now_ms),
    };
  }

  private readonly routed = apiClient((method, args) => this.route(method, args));
  getSession = this.routed.getSession as WalscopeApi['getSession'];
  getRows = this.routed.getRows as WalscopeApi['getRows'];
  getRecord = this.routed.getRecord;
  getOutput = this.routed.getOutput;
  locateSeq = this.routed.locateSeq;
  search = this.routed.search;
  filterTimeline = this.routed.filterTimeline;
  previewAction = this.routed.previewAction;
  runAction = this.routed.runAction;
  previewAcknowledge = this.routed.previewAcknowledge;
  runAcknowledge = this.routed.runAcknowledge;
  getReport = this.routed.getReport;
  getHistory = this.routed.getHistory;
  previewRetire = this.routed.previewRetire;
  runRetire = this.routed.runRetire;
  getContext = this.routed.getContext;
  getTiming = this.routed.getTiming;
  getTail = this.routed.getTail;
  getBundle = this.routed.getBundle;

  /** Every host's alerts, as their agents published them to the alerts stream. */
  async getAlerts(): Promise<AlertsView> {
    return this.alerts.view();
  }

  subscribe(listener: (event: WalscopeEvent) => void): () => void {
    if (this.listeners.size >= FLEET_LISTENERS_MAX) throw new Error(`more than ${FLEET_LISTENERS_MAX} subscribers`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Why `host` is offline, or null when its heartbeat is current. A beat's age is measured on this process's
   *  clock from when it arrived here, so an agent's clock (and what its beat says) does not matter; only the beats
   *  already in the bucket when the viewer started are aged by when the server stored them, and only until a
   *  fresh one could have come (HOST_OFFLINE_MS). */
  offlineWhy(host: string, now_ms = Date.now()): string | null {
    const key = hostKey(host);
    const beat = this.hosts.values.get(key);
    if (beat === undefined) return `host ${host} has never sent a heartbeat`;
    const arrived_ms = this.beat_arrived_ms.get(key);
    const stored_ms = this.hosts.stored_ms.get(key) ?? 0;
    const age_ms = arrived_ms !== undefined ? now_ms - arrived_ms : now_ms - this.started_ms <= HOST_OFFLINE_MS ? now_ms - stored_ms : null;
    if (age_ms === null) return `host ${host} is offline: no heartbeat in the ${Math.round((now_ms - this.started_ms) / 1_000)} s since this viewer started`;
    if (age_ms <= HOST_OFFLINE_MS) return null;
    return `host ${host} is offline: its last heartbeat was ${Math.round(age_ms / 1_000)} s ago (over ${HOST_OFFLINE_MS / 1_000} s)`;
  }

  /** Two sessions of one host are compared by its agent, as any read of its sessions is; two of two hosts here,
   *  from copies of both WALs fetched from their agents. The sides are named by their fleet keys. */
  async compareSessions(a: string, b: string, episode: number | null, start: number, count: number): Promise<ComparePage> {
    const [where_a, where_b] = [whereOf(a), whereOf(b)];
    for (const host of new Set([where_a.host, where_b.host])) {
      const offline = this.offlineWhy(host);
      if (offline !== null) throw new ApiFailure('unavailable', `${offline}: its sessions are compared when it is back`);
    }
    if (where_a.host !== where_b.host) return comparePage(await this.compareAcrossHosts(a, b, episode), start, count);
    const page = (await this.callRemote(where_a.host, 'compareSessions', [where_a.session, where_b.session, episode, start, count])) as ComparePage;
    return { ...page, a: { ...page.a, name: a }, b: { ...page.b, name: b } };
  }

  /** Each WAL copied from its host through its agent (fleet/fetch.ts: a fixed size, verified end to end by its
   *  SHA-256) into a private temporary folder, both compared on the compare worker, the copies removed; kept while
   *  both sessions' summaries say what they said (a grown WAL's summary says more). */
  private compareAcrossHosts(a: string, b: string, episode: number | null): Promise<CompareJson> {
    const worker = this.options.compare_worker;
    if (worker === null) throw new ApiFailure('bad_request', 'sessions of two hosts are compared by a viewer with a compare worker (serve --fleet, the app): this one has none');
    const stamp = JSON.stringify([a, b].map((key) => {
      const summary = this.sessions.summaries.get(key);
      return summary === undefined ? null : [summary.size_bytes, summary.last_seq, summary.last_activity_ms];
    }));
    return this.comparisons.get(JSON.stringify([a, b, episode]), stamp, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-fleet-compare-'));
      try {
        const fetched = [];
        for (const [key, side] of [[a, 'a'], [b, 'b']] as const) {
          const where = whereOf(key);
          try {
            fetched.push({ path: (await fetchSession(this.options.nc, where.host, where.session, path.join(dir, side))).path, name: key, session: where.session });
          } catch (error) {
            throw new ApiFailure('unavailable', `${key.slice(0, 200)} could not be copied from host ${where.host} to compare: ${(error as Error).message}`);
          }
        }
        return await compareFiles(worker, { a: fetched[0]!, b: fetched[1]!, episode });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  /** One session-keyed call: routed to the host named by the key, with the key rewritten both ways. */
  private async route(method: ApiMethod, args: unknown[]): Promise<unknown> {
    const key = args[0];
    if (typeof key !== 'string') throw new ApiFailure('bad_request', `${method} needs a session key`);
    const where = whereOf(key);
    const offline = this.offlineWhy(where.host);
    if (offline !== null) return this.offlineAnswer(method, key, args, offline);
    const value = await this.callRemote(where.host, method, [where.session, ...args.slice(1)]);
    if (method === 'getSession') {
      const detail = value as SessionDetail;
      const fleet_detail: SessionDetail = { ...detail, summary: { ...detail.summary, key, host: where.host } };
      this.keepDetail(key, fleet_detail);
      return fleet_detail;
    }
    if (method === 'getRows') return { ...(value as object), key };
    return value;
  }

  private async callRemote(host: string, method: ApiMethod, args: unknown[]): Promise<unknown> {
    try {
      return await callHost(this.options.nc, this.options.user, host, method, { args }, HOST_CALL_TIMEOUT_MS);
    } catch (error) {
      throw asApiFailure(host, error);
    }
  }

  /** What an offline host's session shows: its last detail with every action disabled, refusals for actions. */
  private offlineAnswer(method: ApiMethod, key: string, args: unknown[], why: string): unknown {
    switch (method) {
      case 'getSession': {
        const detail = this.details.get(key);
        if (detail === undefined) throw new ApiFailure('unavailable', `${why}; its sessions open again when it is back`);
        return {
          ...detail,
          summary: { ...detail.summary, stale: `${why}: this is what it last said` },
          actions: detail.actions.map((choice) => ({ ...choice, applies: false, why: `${why}: actions are disabled until it is back` })),
          retire: { applies: false, why: `${why}: actions are disabled until it is back` },
          acknowledge: { applies: false, why: `${why}: actions are disabled until it is back` },
        } satisfies SessionDetail;
      }
      case 'previewAction':
      case 'runAction':
        return { ok: false, kind: args[1] as ActionPreview['kind'], refusal: { reason: 'unavailable', message: `${why}: nothing was sent` } } satisfies ActionOutcome;
      case 'previewAcknowledge':
        return { call: args[1] as CallRef, finding: args[2] as Finding, found: null, based_on_seq: 0, refusal: { reason: 'unavailable', message: `${why}: nothing was sent` }, tail_repair: null } satisfies AcknowledgePreview;
      case 'runAcknowledge':
        return { ok: false, refusal: { reason: 'unavailable', message: `${why}: nothing was sent` } } satisfies AcknowledgeResult;
      case 'previewRetire':
        return { reason: args[1] as RetirePreview['reason'], plan: null, refusal: { code: 'unavailable', message: `${why}: nothing was sent` } } satisfies RetirePreview;
      case 'runRetire':
        return { ok: false, refusal: { code: 'unavailable', message: `${why}: nothing was sent` } } satisfies RetireResult;
      default:
        throw new ApiFailure('unavailable', why);
    }
  }

  private keepDetail(key: string, detail: SessionDetail): void {
    this.details.delete(key);
    this.details.set(key, detail);
    if (this.details.size > DETAILS_KEPT_MAX) this.details.delete(this.details.keys().next().value!);
  }

  private summaryOf(key: string, summary: FleetSummary, now_ms: number): SessionSummary {
    const offline = this.offlineWhy(summary.host, now_ms);
    return {
      key,
      session_id: summary.session,
      status: summary.status,
      status_detail: summary.why,
      torn_tail: summary.torn_tail,
      attention: summary.attention,
      plan: summary.plan,
      last_activity_ms: summary.last_activity_ms,
      episodes: summary.episodes,
      records: summary.records,
      last_seq: summary.last_seq,
      size_bytes: summary.size_bytes,
      episode_state: null,
      finish_reason: null,
      class_counts: summary.class_counts,
      run: null,
      recoveries: [],
      host: summary.host,
      ...(offline === null ? {} : { stale: `${offline}: this is its last known summary` }),
    };
  }

  private hostViews(now_ms: number): HostView[] {
    const views: HostView[] = [];
    for (const beat of this.hosts.values.values()) {
      const offline = this.offlineWhy(beat.host, now_ms);
      views.push({
        host: beat.host,
        online: offline === null,
        why: offline ?? `walscope ${beat.version} on ${beat.root}`,
        sessions: beat.sessions,
        beat_ms: beat.beat_ms,
      });
    }
    return views.sort((a, b) => a.host.localeCompare(b.host));
  }

  private noteChange(key: string): void {
    if (this.changed_overflow) return;
    if (this.changed.size >= CHANGED_KEYS_MAX) {
      this.changed_overflow = true;
      this.changed.clear();
      return;
    }
    this.changed.add(key);
  }

  /** Says what moved since the last event: the summaries that changed, and hosts that went on or offline. */
  private emit(): void {
    const now_ms = Date.now();
    const hosts = this.hostViews(now_ms);
    const online = new Map(hosts.map((h) => [h.host, h.online]));
    const flipped = hosts.some((h) => this.online_before.get(h.host) !== h.online);
    this.online_before = online;
    if (!flipped && !this.changed_overflow && this.changed.size === 0) return;
    const event: WalscopeEvent = { type: 'fleet', hosts, changed: this.changed_overflow ? null : [...this.changed] };
    this.changed.clear();
    this.changed_overflow = false;
    this.tell(event);
  }

  private tell(event: WalscopeEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** The host and session a fleet key names, or not found. */
function whereOf(key: string): { host: string; session: string } {
  try {
    return parseSessionKey(key);
  } catch (error) {
    throw new ApiFailure('not_found', `no fleet session ${key.slice(0, 200)}: ${(error as Error).message}`);
  }
}

/** A bucket value left out of the index, said on stderr (keys are KV keys: no control characters). */
const reportBadValue: BadValueReport = (bucket, key, why) => {
  process.stderr.write(`walscope fleet: ${key === null ? bucket : `left out ${bucket} key ${key}`}: ${why}\n`);
};

/** An agent's error keeps its code; a host that does not answer is unavailable, saying so. */
function asApiFailure(host: string, error: unknown): ApiFailure {
  if (error instanceof FleetCallError) return new ApiFailure(error.code === 'too_large' ? 'bad_request' : (error.code as ApiFailure['code']), error.message);
  const message = error instanceof Error ? error.message : String(error);
  if (/permission/i.test(message)) return new ApiFailure('bad_request', `the NATS server refused: ${message}`);
  return new ApiFailure('unavailable', `host ${host} did not answer: ${message}`);
}

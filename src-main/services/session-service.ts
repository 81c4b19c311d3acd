// The session service: what the app shows of a workspace (a state root, one session folder, an export, or a
// set of exports: several files, or a folder of them), kept current from file events. It implements the shared
// API directly; the worker host runs it off the main thread, and the HTTP server and Electron IPC carry its calls.
//
// Opening is progressive: the list (ids, sizes, mtimes, status `loading`) is there at once, and the WALs are
// read one session per turn of the event loop, most recently active first, so requests are answered between
// them; a session asked for is read at once. Failure stays local: one session that cannot be read shows its
// cause in its own line, and a listing that fails keeps the last good one.
import fs from 'node:fs';
import path from 'node:path';
import type {
  AcknowledgePreview,
  AcknowledgeResult,
  CallRef,
  ActionKind,
  ActionOutcome,
  ActionPreview,
  RetirePreview,
  RetireResult,
  SessionHistory,
  OutputPage,
  RecordDetail,
  FilteredTimeline,
  RowList,
  RowPage,
  SearchResult,
  SessionDetail,
  SessionTail,
  SessionSummary,
  StepContext,
  WalscopeApi,
  WalscopeEvent,
  Workspace,
} from '../../src-shared/ipc.js';
import { pageSessions, type ApiRequests, type LeaseView, type SessionFilter, type SessionPage } from '../../src-shared/ipc.js';
import type { RetirePlan } from '../../src-shared/wal.js';
import type { TimelineFilter } from '../../src-shared/timeline-filter.js';
import type { EpisodeTiming, Finding } from '../../src-shared/replay.js';
import {
  describe, exportTargets, resolveTargets, sessionTarget,
  type WalTarget, classifyPath, listSessions, sessionDir, type FileIO, nodeFileIO,
} from '../engine/index.js';
import { noCost, PRICE_TABLE_WORDS } from '../replay/cost.js';
import { checkRetireReason, historyOf, previewRetireOf, SealedLineages, sealedMemberOf } from './history.js';
import { comparePage, type ComparePage } from '../../src-shared/compare.js';
import { compareTargets, type CompareTarget } from '../recovery/compare-target.js';
import { ComparisonCache, filesStamp } from './compare-cache.js';
import type { SupportReport } from '../../src-shared/report.js';
import { supportReport } from '../recovery/support-report.js';
import { redactList, bundleFileName, type BundleFile, type RedactClass } from '../../src-shared/bundle.js';
import { sessionLink } from '../../src-shared/links.js';
import { BundleTooSmallError, BundleWalTooLargeError, makeBundle } from './bundle.js';
import { episodeTiming, episodeTimingSummary } from '../replay/timing.js';
import { acknowledgeChoice, actionChoices, retireChoice, previewAcknowledge, previewAction, type ActionApprover } from './actions.js';
import { approvedApi, approvedWrites, type ApprovedWrites } from './approved-writes.js';
import { ApiFailure, NotFoundError } from '../../src-shared/ipc.js';
import { READ_SLICE_BYTES, ReadScheduler } from './read-scheduler.js';
import { SessionModel } from './session-model.js';
import type { ReadPlan, TailProgress } from './session-tailer.js';
import { SummaryCache } from './summary-cache.js';
import { WorkspaceAlerts } from './alert-watch.js';
import { AlertBoard } from '../views/alert-board.js';
import type { AlertsView, AlertThresholds } from '../../src-shared/alerts.js';
import { ServiceEvents } from './service-events.js';
import { Debouncer, type WatchTarget } from './watcher.js';
import { WorkspaceFollow } from './workspace-follow.js';

/** Sessions whose fold and views stay in memory: the ones asked for most recently. The rest keep a summary. */
export const RESIDENT_SESSIONS_MAX = 3;
const LEASE_PROBES_PER_TURN = 200;
/** A workspace of this many sessions or more is watched once its first reads are done (`open`). */
export const WATCH_AFTER_READS_SESSIONS_MIN = 100;
/** The summary cache is written this long after the last summary changed (and on close). */
const CACHE_WRITE_MS = 1_000;

/** What a workspace is opened on: one path (a state root, a session folder, an export file, or a folder of
 *  exports), or several export files. */
export type WorkspacePaths = string | readonly string[];

export interface OpenOptions {
  watch?: boolean;
  /** Keep summaries between runs in the user's cache folder (default true). */
  cache?: boolean;
  /** The file system seam the sessions' reads and lease probes go through (tests count them there). */
  io?: FileIO;
  /** Watch the workspace's alerts with these thresholds for its windows (getAlerts, `alerts` events). */
  alerts?: AlertThresholds;
}

/** What a workspace opened without its alerts watched answers: nothing looked at. */
const NO_ALERTS_WATCHED = new AlertBoard(null);

export class SessionService implements WalscopeApi {
  private readonly models = new Map<string, SessionModel>();
  /** Keys of resident sessions, least recently asked for first. */
  private readonly resident: string[] = [];
  /** Sessions whose summary came from the cache and whose lease is not probed yet. */
  private readonly lease_sweep: SessionModel[] = [];
  private readonly sealed = new SealedLineages();
  /** The comparisons made last, whose steps the compare view asks for a window at a time. */
  readonly comparisons = new ComparisonCache();
  private readonly events = new ServiceEvents(() => this.summaries(), (key) => this.models.get(key)?.summary());
  private readonly cache_write = new Debouncer(() => this.cache?.flush(), CACHE_WRITE_MS, CACHE_WRITE_MS * 5);
  private cache: SummaryCache | null = null;
  /** How the sessions' summaries were made, for the tests and the benchmark. */
  readonly counts = { sessions_read: 0, summaries_from_cache: 0 };
  /** Refreshes made (each reads a WAL, whatever it finds), for the tests that count what one costs. */
  readonly refreshes = { made: 0 };
  /** What the background reads take next, and how. */
  private readonly reads = new ReadScheduler(() => this.models.values(), (model) => this.models.get(model.key) === model);
  /** Read-ahead workers started, and the bytes they read, for the tests. */
  get read_ahead_counts(): Readonly<{ started: number; bytes: number }> {
    return this.reads.read_ahead_counts;
  }
  /** File events and live probes, once opened to follow the workspace (OpenOptions.watch). */
  private follow: WorkspaceFollow | null = null;
  private read_timer: NodeJS.Immediate | null = null;
  private closed = false;
  /** The workspace's alerts, when it was opened for windows (OpenOptions.alerts). */
  private alerts: WorkspaceAlerts | null = null;
  private workspace: Workspace;

  private constructor(
    private readonly paths: readonly string[],
    private readonly io: FileIO,
  ) {
    const workspace_path = paths[0]!;
    const kind = classifyPath(workspace_path);
    if (paths.length > 1 || kind === 'unrecognized') {
      // Exports are watched by nobody: they are copies, and nothing appends to them.
      this.workspace = { path: paths.length > 1 ? commonFolder(paths) : workspace_path, kind: 'exports', read_only: true, not_sessions: [] };
    } else if (kind === 'state_root') {
      this.workspace = { path: workspace_path, kind: 'state_root', read_only: false, not_sessions: [] };
    } else {
      const [target] = resolveTargets(workspace_path);
      this.workspace = { path: workspace_path, kind: target!.is_export ? 'export' : 'session', read_only: target!.is_export, not_sessions: [] };
    }
  }

  /** Opens a workspace: lists its sessions and follows file events; the WALs are read in the background
   *  (`whenRead` says when every one has been). */
  static async open(paths: WorkspacePaths, options: OpenOptions = {}): Promise<SessionService> {
    const listed = typeof paths === 'string' ? [paths] : paths;
    if (listed.length === 0) throw new Error('a workspace is opened on at least one path');
    const service = new SessionService(listed.map((one) => path.resolve(one)), options.io ?? nodeFileIO);
    service.discover();
    if (options.cache !== false) service.adoptCached();
    service.scheduleReads();
    if (options.watch !== false && service.workspace.kind !== 'exports') {
      // The URL does not wait for the watcher (thousands of folders take seconds to watch): once it is
      // ready, whatever changed while it was starting is caught up. A root of many sessions starts it once its
      // first reads are done: watching 2,000 folders (chokidar's scan, a watch each) took 0.5-0.7 s of this
      // thread from the middle of those reads.
      service.follow = new WorkspaceFollow(() => service.watchTarget(), {
        changed: (key) => service.onChanged(key),
        listing: () => service.onListing(),
        caughtUp: () => service.catchUp(),
        probeLeases: () => service.probeLeases(),
        probeGrowth: () => service.probeGrowth(),
      }, service.workspace.path);
      if (service.models.size < WATCH_AFTER_READS_SESSIONS_MIN) service.follow.start();
    }
    if (options.alerts !== undefined) service.alerts = new WorkspaceAlerts(service, options.alerts, (event) => service.emit(event));
    return service;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.alerts?.close();
    const closing = this.follow?.close();
    if (this.read_timer !== null) clearImmediate(this.read_timer);
    this.reads.idle();
    this.events.close();
    this.cache_write.clear();
    this.cache?.flush();
    this.sealed.closeAll();
    await closing;
  }

  private watchTarget(): WatchTarget {
    if (this.workspace.kind === 'state_root') return { kind: 'state_root', root: this.workspace.path };
    const model = [...this.models.values()][0]!;
    return { kind: 'file', file: model.target.wal_path, key: model.key };
  }

  /** Sessions whose WAL is exactly what it was when their summary was cached show that summary unread. */
  private adoptCached(): void {
    const root = this.workspace.kind === 'state_root' ? this.workspace.path : ([...this.models.values()][0]?.target.root ?? null);
    this.cache = SummaryCache.load(this.paths.join('\n'), root);
    this.cache.keepOnly(new Set(this.models.keys()));
    for (const model of this.models.values()) {
      const summary = this.cache.lookup(model.key, model.target.wal_path);
      if (summary === null) continue;
      model.adopt(summary);
      this.lease_sweep.push(model);
      this.counts.summaries_from_cache += 1;
    }
    this.cache_write.schedule('cache');
  }

  /** Resolves once file events are followed. */
  whenWatching(): Promise<void> {
    return this.follow?.whenWatching() ?? Promise.resolve();
  }

  /** What changed before the watcher was ready: new or gone sessions, and WALs whose size is not the one their
   *  summary was made from. */
  private catchUp(): void {
    if (this.closed) return;
    this.reads.reorder();
    this.onListing();
    for (const model of this.models.values()) {
      if (!model.is_read) continue;
      if (model.is_resident) this.refreshModel(model);
      else if (sizeOf(model.target.wal_path) !== model.summary().size_bytes) model.markStale();
    }
    this.scheduleReads();
  }

  /** Resolves once every session's summary is current. */
  async whenRead(): Promise<void> {
    while (!this.closed && (this.lease_sweep.length > 0 || [...this.models.values()].some((model) => model.needs_read))) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** Reads the next session that needs it, then yields to the event loop before the one after it. A session
   *  read here and not asked for keeps only its summary. */
  private scheduleReads(): void {
    if (this.read_timer !== null || this.closed) return;
    this.read_timer = setImmediate(() => {
      this.read_timer = null;
      // A session taken from the cache may have a live writer now: its lease is probed (a few hundred per
      // turn: each probe reads the OS's lock table) before any WAL is read.
      if (this.lease_sweep.length > 0) {
        this.reads.reorder();
        for (const model of this.lease_sweep.splice(0, LEASE_PROBES_PER_TURN)) model.probeLease();
        this.scheduleReads();
        return;
      }
      const next = this.reads.next();
      if (next === null) {
        this.reads.idle();
        // Every summary is current: keep them now (a worker may be terminated without a close).
        this.cache_write.clear();
        this.cache?.flush();
        this.follow?.start();
        return;
      }
      const { model, plan } = next;
      const wanted = this.resident.includes(model.key);
      if (this.refreshModel(model, plan, !wanted)) {
        this.reads.readDone(model);
        if (!wanted) model.release();
      }
      this.scheduleReads();
    });
  }

  /** Marks `model` as just asked for and releases the least recently asked. One not resident is read next,
   *  in slices (`complete`: read it to its end now, as an action must). */
  private makeResident(model: SessionModel, complete: boolean): void {
    const at = this.resident.indexOf(model.key);
    if (at >= 0) this.resident.splice(at, 1);
    this.resident.push(model.key);
    while (this.resident.length > RESIDENT_SESSIONS_MAX) this.models.get(this.resident.shift()!)?.release();
    if (model.is_resident) return;
    // A WAL that takes one slice is read now: only a big one answers "still reading" for a while.
    if (complete || (sizeOf(model.target.wal_path) ?? 0) <= READ_SLICE_BYTES) {
      this.refreshModel(model);
      return;
    }
    // Its end is found from the end first, before the first slice of the read from its start.
    model.findTail();
    this.reads.readFirst(model);
    this.scheduleReads();
  }

  /** (Re)lists the workspace's sessions: new ones are added, vanished ones dropped. A session folder is a
   *  session whatever it holds: one with no `wal` yet shows that as its own error. */
  private discover(): boolean {
    let targets: [string, WalTarget][];
    if (this.workspace.kind === 'state_root') {
      const listing = listSessions(this.workspace.path);
      this.workspace = { ...this.workspace, not_sessions: listing.not_sessions };
      targets = listing.sessions.map((id) => [id, sessionTarget(sessionDir(this.workspace.path, id))]);
    } else if (this.workspace.kind === 'exports') {
      const set = exportTargets(this.paths);
      this.workspace = { ...this.workspace, not_sessions: set.not_exports };
      targets = set.exports;
    } else {
      const target = resolveTargets(this.workspace.path)[0]!;
      targets = [[target.session ?? path.basename(target.wal_path), target]];
    }
    let changed = false;
    const keys = new Set(targets.map(([key]) => key));
    for (const key of [...this.models.keys()]) {
      if (keys.has(key)) continue;
      this.models.delete(key);
      const at = this.resident.indexOf(key);
      if (at >= 0) this.resident.splice(at, 1);
      changed = true;
    }
    for (const [key, target] of targets) {
      if (this.models.has(key)) continue;
      this.models.set(key, new SessionModel(key, target, this.io));
      changed = true;
    }
    if (changed) this.reads.reorder();
    return changed;
  }

  /** Refreshes `model` (as `plan` says: a slice of it, on the digest worker); true when its read reached the end
   *  of its WAL. `summary_only`: a background read of a session nobody has open, released once its summary is made. */
  private refreshModel(model: SessionModel, plan: ReadPlan = {}, summary_only = false): boolean {
    const first = !model.is_resident;
    const lease_before = model.lease.state;
    // A slice reports its progress once, at its end (below), not also every 4 MiB inside it (session-tailer.ts): the
    // 1 GiB session's read posted 250 messages more to the main thread (each forwarded to every event stream)
    // for a bar that a report per slice (tens of ms apart) already moves.
    const on_progress = first && plan.slice_bytes === undefined ? (progress: TailProgress) => this.events.progress(model.key, progress.done_bytes, progress.total_bytes, false) : undefined;
    const update = model.refresh(on_progress, plan, summary_only);
    this.refreshes.made += 1;
    if (!update.complete) {
      this.events.progress(model.key, model.tailer.bytes_read, sizeOf(model.target.wal_path) ?? model.tailer.bytes_read, false);
      return false;
    }
    this.counts.sessions_read += first ? 1 : 0;
    if (first) this.events.progress(model.key, model.tailer.bytes_read, model.tailer.bytes_read, true);
    const extent = this.cache === null ? null : model.summaryExtent();
    if (extent !== null) {
      this.cache!.store(model.key, model.target.wal_path, extent.size_bytes, extent.verified_end, model.summary());
      this.cache_write.schedule('cache');
    }
    if (summary_only) this.summaryChanged(model);
    else if (first || update.frames_added > 0 || update.restarted || model.lease.state !== lease_before) this.emitSession(model);
    return true;
  }

  private onChanged(key: string): void {
    const model = this.models.get(key);
    if (model === undefined) this.onListing();
    else if (model.is_resident) this.refreshModel(model);
    else {
      // One that needs a read again takes its place in a new read order (a live writer's events, a few a second,
      // leave the order alone while the session waits in it anyway).
      if (!model.needs_read) this.reads.reorder();
      model.markStale();
      this.scheduleReads();
    }
  }

  /** A listing that fails (the folder unreadable for a moment, say) keeps the sessions already listed. */
  private onListing(): void {
    try {
      if (!this.discover()) return;
    } catch (error) {
      process.emitWarning(`walscope: cannot list ${this.workspace.path}: ${describe(error)}`);
      return;
    }
    this.scheduleReads();
    this.emit({ type: 'workspace', workspace: this.workspace });
    this.events.listChanged();
  }

  private probeLeases(): void {
    for (const model of this.models.values()) {
      if (model.lease.state !== 'live' || !model.probeLease()) continue;
      if (!model.is_resident) {
        // Its summary was made under the lease that is gone: it no longer holds until the WAL is read again.
        model.markStale();
        this.reads.reorder();
        this.scheduleReads();
        continue;
      }
      this.refreshModel(model);
      this.emitSession(model);
    }
  }

  /** Open sessions a live writer holds whose WAL is not the size last read: refreshed without a file event. */
  private probeGrowth(): void {
    for (const key of this.resident) {
      const model = this.models.get(key);
      if (model === undefined || !model.is_resident || model.lease.state !== 'live') continue;
      if (sizeOf(model.target.wal_path) !== model.tailer.bytes_read) this.refreshModel(model);
    }
  }

  private emitSession(model: SessionModel): void {
    this.emit({ type: 'session', key: model.key, last_seq: model.tailer.read?.last_seq ?? 0, rows: model.rowCounts(), changes: model.changesSinceShown() });
    this.summaryChanged(model);
  }

  private summaryChanged(model: SessionModel): void {
    this.events.summaryChanged(model.key);
  }

  private emit(event: WalscopeEvent): void {
    this.events.emit(event);
  }

  /** The session `key` (or a sealed lineage of one, `SESSION@WAL_ID`); one still being read answers with what
   *  is read so far unless `complete`. */
  private model(key: string, complete = false): SessionModel {
    const model = typeof key === 'string' ? (this.models.get(key) ?? this.sealed.model(key, (session) => this.models.get(session)) ?? undefined) : undefined;
    if (model === undefined) throw new NotFoundError(`no session "${String(key)}" in this workspace`);
    this.makeResident(model, complete);
    return model;
  }

  /** Every session's summary with what its alerts need beside it (replay/alerts.ts): its lease as last probed
   *  (none beside a summary that no longer holds: its lease changed since it was made), where it is, its WAL. Its
   *  link is its walscope:// link (src-shared/links.ts: this workspace's path, its key), or where it is on disk when
   *  there can be none (a path a link cannot carry). */
  alertSources(): { summary: SessionSummary; lease: LeaseView; is_export: boolean; link: string; wal_path: string }[] {
    return [...this.models.values()].map((model) => ({
      summary: model.summary(),
      lease: model.needs_read ? { state: 'absent' } : model.lease,
      is_export: model.target.is_export,
      link: sessionLink(this.workspace.path, model.key) ?? model.target.session_dir ?? model.target.wal_path,
      wal_path: model.target.wal_path,
    }));
  }

  private summaries(): SessionSummary[] {
    return [...this.models.values()].map((model) => model.summary());
  }

  async getAlerts(): Promise<AlertsView> {
    return (this.alerts ?? NO_ALERTS_WATCHED).view();
  }

  async getWorkspace(): Promise<Workspace> {
    return this.workspace;
  }

  async listSessions(): Promise<SessionSummary[]> {
    return this.summaries();
  }

  async listPage(filter: SessionFilter, start: number, count: number): Promise<SessionPage> {
    return pageSessions(this.summaries(), filter, start, count);
  }

  async getSession(key: string): Promise<SessionDetail> {
    const model = this.model(key);
    // While the WAL is still being read there is no plan to act on and no fold to time.
    if (!model.is_resident) {
      const reading = { applies: false, why: 'the WAL is still being read: nothing is offered until it is read' };
      return { ...model.detail(), actions: [], retire: reading, acknowledge: reading, timing: [], tokens: {}, cost: { ...noCost(), table: PRICE_TABLE_WORDS } };
    }
    const last = model.fold().episodes.at(-1);
    return { ...model.detail(), actions: actionChoices(model), retire: retireChoice(model), acknowledge: acknowledgeChoice(model), timing: last === undefined ? [] : [episodeTimingSummary(last, model.sums)], tokens: model.tokens(), cost: { ...model.cost(), table: PRICE_TABLE_WORDS } };
  }

  async getTiming(key: string, episode: number): Promise<EpisodeTiming> {
    const model = this.model(key, true);
    const found = model.fold().episodes.find((candidate) => candidate.episode === episode);
    if (found === undefined) throw new NotFoundError(`no episode ${episode} in session "${key}"`);
    return episodeTiming(found, model.sums);
  }

  async getRows<L extends RowList>(key: string, list: L, start: number, count: number): Promise<RowPage<L>> {
    return this.model(key).rows(list, start, count);
  }

  async getTail(key: string): Promise<SessionTail | null> {
    return this.model(key).tail();
  }

  async getRecord(key: string, index: number): Promise<RecordDetail> {
    const detail = this.model(key).record(index);
    if (detail === null) throw new NotFoundError(`no record at index ${index}`);
    return detail;
  }

  async getOutput(key: string, seq: number, start: number, count: number): Promise<OutputPage> {
    const page = this.model(key).output(seq, start, count);
    if (page === null) throw new NotFoundError(`no record with seq ${seq}`);
    return page;
  }

  async locateSeq(key: string, seq: number): Promise<number | null> {
    return this.model(key).locateSeq(seq);
  }

  async search(key: string, list: RowList, query: string, filter: TimelineFilter): Promise<SearchResult> {
    return this.model(key).search(list, query, filter);
  }

  async filterTimeline(key: string, filter: TimelineFilter, start: number, count: number): Promise<FilteredTimeline> {
    return this.model(key).filterTimeline(filter, start, count);
  }

  /** The live lineage as the session's own read has it (never read again here): while a big session's first
   *  read is under way, the history answers at once with the read so far, marked as such. */
  async getHistory(key: string): Promise<SessionHistory> {
    const model = this.model(key);
    const lineage = model.tailer.lineage;
    // A read that failed keeps no read: the history reads the live lineage itself, and shows its refusal.
    if (lineage === null && model.is_resident) return historyOf(model.target, undefined, model.member_reads);
    return historyOf(model.target, { lineage, reading: !model.is_resident }, model.member_reads);
  }

  async previewRetire(key: string, reason: 'sealed' | 'deleted'): Promise<RetirePreview> {
    return previewRetireOf(this.model(key).target, checkRetireReason(reason));
  }

  async runRetire(key: string, reason: 'sealed' | 'deleted', plan: RetirePlan, audit_reason: string, operator: string): Promise<RetireResult> {
    return this.writesAs({ operator, via: 'app' }).runRetire(key, reason, plan, audit_reason);
  }

  async previewAction(key: string, kind: ActionKind): Promise<ActionPreview> {
    return previewAction(this.model(key, true), kind);
  }

  async runAction(key: string, kind: ActionKind, based_on_seq: number, reason: string, operator: string): Promise<ActionOutcome> {
    return this.writesAs({ operator, via: 'app' }).runAction(key, kind, based_on_seq, reason);
  }

  async previewAcknowledge(key: string, call: CallRef, finding: Finding): Promise<AcknowledgePreview> {
    return previewAcknowledge(this.model(key, true), call, finding);
  }

  async runAcknowledge(key: string, call: CallRef, finding: Finding, based_on_seq: number, reason: string, operator: string): Promise<AcknowledgeResult> {
    return this.writesAs({ operator, via: 'app' }).runAcknowledge(key, call, finding, based_on_seq, reason);
  }

  /** The API's writes, each recorded as approved by `approver` (services/approved-writes.ts). */
  private writesAs(approver: ActionApprover): ApprovedWrites {
    return approvedWrites({ model: (key, complete) => this.model(key, complete), refreshModel: (model) => void this.refreshModel(model), emitSession: (model) => this.emitSession(model) }, approver);
  }

  /** The API with its writes approved by `approver`, whatever name a caller gives: the fleet agent acts for an
   *  operator the server authenticated on another machine. */
  approvedBy(approver: ActionApprover): ApiRequests {
    return approvedApi(this, this.writesAs(approver));
  }

  async getReport(key: string): Promise<SupportReport> {
    return supportReport(this.model(key, true).target, Date.now());
  }

  /** Both sessions read again from their WALs as `walscope diff` reads them (read-only, each folded in one pass,
   *  then compared step by step), on this thread: the session worker's, never the window's. A window of the same
   *  comparison asked for again while neither WAL changed is cut from the one made. */
  async compareSessions(a: string, b: string, episode: number | null, start: number, count: number): Promise<ComparePage> {
    const [side_a, side_b] = [this.compareTarget(a), this.compareTarget(b)];
    const id = JSON.stringify([a, b, episode]);
    const comparison = await this.comparisons.get(id, filesStamp([side_a.target.wal_path, side_b.target.wal_path]), () => compareTargets(side_a, side_b, { episode }));
    return comparePage(comparison, start, count);
  }

  /** The WAL of session `key` (or of a sealed lineage, `SESSION@WAL_ID`: its verified private copy) as a side of
   *  a comparison, named by its key. Its model is not made resident: the comparison reads the WAL itself. */
  private compareTarget(key: string): CompareTarget {
    const model = this.models.get(key) ?? this.sealed.model(key, (session) => this.models.get(session)) ?? undefined;
    if (model === undefined) throw new NotFoundError(`no session "${key}" in this workspace`);
    const member = this.models.has(key) ? null : sealedMemberOf(key);
    return { name: key, target: member === null ? model.target : { ...model.target, session: key }, member };
  }

  /** Made from the WAL as `walscope bundle` makes it, never written anywhere: the window saves it. */
  async getBundle(key: string, redact: RedactClass[]): Promise<BundleFile> {
    const model = this.model(key, true);
    const classes = redactList(redact) ?? [];
    try {
      const { html, manifest } = await makeBundle(model.target, classes);
      return { file_name: bundleFileName(key), html, size_bytes: Buffer.byteLength(html), classes, markers: manifest?.entries.length ?? 0 };
    } catch (error) {
      if (error instanceof BundleTooSmallError || error instanceof BundleWalTooLargeError) throw new ApiFailure('bad_request', `no bundle of "${key}": ${error.message}`);
      throw error;
    }
  }

  async getContext(key: string, episode: number | null, step_id: number | null): Promise<StepContext> {
    return this.model(key, true).context(episode, step_id);
  }

  subscribe(listener: (event: WalscopeEvent) => void): () => void {
    return this.events.subscribe(listener);
  }
}

/** The deepest folder holding every one of `files` (absolute paths): what the header shows of a set of exports. */
function commonFolder(files: readonly string[]): string {
  let common = path.dirname(files[0]!);
  while (!files.every((file) => file.startsWith(common.endsWith(path.sep) ? common : common + path.sep))) common = path.dirname(common);
  return common;
}

function sizeOf(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}

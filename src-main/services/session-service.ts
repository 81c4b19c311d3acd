// The session service: what the app shows of a workspace (a state root, one session folder, or an export),
// kept current from file events. It implements the shared API directly; the worker host runs it off the main
// thread, and the HTTP server and Electron IPC carry its calls.
import path from 'node:path';
import type {
  ActionKind,
  ActionOutcome,
  ActionPreview,
  RetirePreview,
  RetireResult,
  SessionHistory,
  RecordDetail,
  RowList,
  RowPage,
  SearchResult,
  SessionDetail,
  SessionSummary,
  StepContext,
  WalscopeApi,
  WalscopeEvent,
  Workspace,
} from '../../src-shared/ipc.js';
import { resolveTargets, type WalTarget } from '../engine/inspect.js';
import { checkRetireReason, historyOf, previewRetireOf, runRetireOf, SealedLineages } from './history.js';
import type { RetirePlan } from '../../src-shared/wal.js';
import { classifyPath, listSessions, sessionDir } from '../engine/state-root.js';
import type { SupportReport } from '../../src-shared/report.js';
import { supportReport } from '../replay/support-report.js';
import { episodeTiming } from '../replay/timing.js';
import { actionChoices, previewAction, runAction } from './actions.js';
import { walPayloadReader } from '../replay/payloads.js';
import { stepContext } from './context.js';
import { NotFoundError } from './errors.js';
import { SessionModel } from './session-model.js';
import { Debouncer, WorkspaceWatcher } from './watcher.js';

/** A live session's lease is re-probed this often: the OS drops a dead writer's lock without touching any file,
 *  so no file event says "the writer stopped". Only sessions shown live are probed. */
export const LIVE_PROBE_INTERVAL_MS = 1_000;
export const LISTENERS_MAX = 64;
/** The session list is pushed at most this often while sessions change. */
const LIST_PUSH_MS = 100;

export class SessionService implements WalscopeApi {
  private readonly models = new Map<string, SessionModel>();
  private readonly sealed = new SealedLineages();
  private readonly listeners = new Set<(event: WalscopeEvent) => void>();
  private readonly list_push = new Debouncer(() => this.emit({ type: 'sessions', sessions: this.summaries() }), LIST_PUSH_MS, LIST_PUSH_MS * 3);
  private watcher: WorkspaceWatcher | null = null;
  private probe_timer: NodeJS.Timeout | null = null;
  private workspace: Workspace;

  private constructor(readonly workspace_path: string) {
    const kind = classifyPath(workspace_path);
    if (kind === 'state_root') {
      this.workspace = { path: workspace_path, kind: 'state_root', read_only: false, not_sessions: [] };
    } else {
      const [target] = resolveTargets(workspace_path);
      this.workspace = { path: workspace_path, kind: target!.is_export ? 'export' : 'session', read_only: target!.is_export, not_sessions: [] };
    }
  }

  /** Opens a workspace: lists its sessions, reads each WAL once, then follows file events. */
  static async open(workspace_path: string, options: { watch?: boolean } = {}): Promise<SessionService> {
    const service = new SessionService(path.resolve(workspace_path));
    service.discover();
    for (const model of service.models.values()) service.refreshModel(model);
    if (options.watch !== false) {
      service.watcher = new WorkspaceWatcher(service.watchTarget(), {
        changed: (key) => service.onChanged(key),
        listing: () => service.onListing(),
      });
      await service.watcher.whenReady();
      service.probe_timer = setInterval(() => service.probeLive(), LIVE_PROBE_INTERVAL_MS);
      service.probe_timer.unref();
    }
    return service;
  }

  async close(): Promise<void> {
    if (this.probe_timer !== null) clearInterval(this.probe_timer);
    this.list_push.clear();
    this.listeners.clear();
    this.sealed.closeAll();
    await this.watcher?.close();
  }

  private watchTarget(): ConstructorParameters<typeof WorkspaceWatcher>[0] {
    if (this.workspace.kind === 'state_root') return { kind: 'state_root', root: this.workspace.path };
    const model = [...this.models.values()][0]!;
    return { kind: 'file', file: model.target.wal_path, key: model.key };
  }

  /** (Re)lists the workspace's sessions: new ones are added, vanished ones dropped. */
  private discover(): boolean {
    let targets: [string, WalTarget][];
    if (this.workspace.kind === 'state_root') {
      const listing = listSessions(this.workspace.path);
      this.workspace = { ...this.workspace, not_sessions: listing.not_sessions };
      targets = listing.sessions.map((id) => [id, resolveTargets(sessionDir(this.workspace.path, id))[0]!]);
    } else {
      const target = resolveTargets(this.workspace.path)[0]!;
      targets = [[target.session ?? path.basename(target.wal_path), target]];
    }
    let changed = false;
    const keys = new Set(targets.map(([key]) => key));
    for (const key of [...this.models.keys()]) {
      if (!keys.has(key)) changed = this.models.delete(key) || changed;
    }
    for (const [key, target] of targets) {
      if (this.models.has(key)) continue;
      this.models.set(key, new SessionModel(key, target));
      changed = true;
    }
    return changed;
  }

  private refreshModel(model: SessionModel): void {
    const first = model.tailer.read === null;
    const lease_before = model.lease.state;
    const update = model.refresh(first ? (progress) => this.progress(model, progress.done_bytes, progress.total_bytes, false) : undefined);
    if (first) this.progress(model, model.tailer.bytes_read, model.tailer.bytes_read, true);
    if (update.frames_added > 0 || update.restarted || model.lease.state !== lease_before) this.emitSession(model);
  }

  private progress(model: SessionModel, done_bytes: number, total_bytes: number, finished: boolean): void {
    this.emit({ type: 'progress', progress: { key: model.key, task: 'read', done_bytes, total_bytes, finished } });
  }

  private onChanged(key: string): void {
    const model = this.models.get(key);
    if (model === undefined) this.onListing();
    else this.refreshModel(model);
  }

  private onListing(): void {
    if (!this.discover()) return;
    for (const model of this.models.values()) if (model.tailer.read === null) this.refreshModel(model);
    this.emit({ type: 'workspace', workspace: this.workspace });
    this.list_push.schedule('list');
  }

  private probeLive(): void {
    for (const model of this.models.values()) {
      if (model.lease.state !== 'live') continue;
      if (model.probeLease()) {
        this.refreshModel(model);
        this.emitSession(model);
        this.list_push.schedule('list');
      }
    }
  }

  private emitSession(model: SessionModel): void {
    this.emit({ type: 'session', key: model.key, last_seq: model.tailer.read?.last_seq ?? 0, rows: model.rowCounts() });
    this.list_push.schedule('list');
  }

  private emit(event: WalscopeEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private model(key: string): SessionModel {
    const model = typeof key === 'string' ? (this.models.get(key) ?? this.sealed.model(key, (session) => this.models.get(session)) ?? undefined) : undefined;
    if (model === undefined) throw new NotFoundError(`no session "${String(key)}" in this workspace`);
    if (model.tailer.read === null) this.refreshModel(model);
    return model;
  }

  private summaries(): SessionSummary[] {
    return [...this.models.values()].map((model) => model.summary());
  }

  async getWorkspace(): Promise<Workspace> {
    return this.workspace;
  }

  async listSessions(): Promise<SessionSummary[]> {
    return this.summaries();
  }

  async getSession(key: string): Promise<SessionDetail> {
    const model = this.model(key);
    return { ...model.detail(), actions: actionChoices(model), timing: model.fold().episodes.map(episodeTiming) };
  }

  async getRows<L extends RowList>(key: string, list: L, start: number, count: number): Promise<RowPage<L>> {
    checkList(list);
    return this.model(key).rows(list, start, count);
  }

  async getRecord(key: string, index: number): Promise<RecordDetail> {
    const detail = this.model(key).record(index);
    if (detail === null) throw new NotFoundError(`no record at index ${index}`);
    return detail;
  }

  async locateSeq(key: string, seq: number): Promise<number | null> {
    return this.model(key).locateSeq(seq);
  }

  async search(key: string, list: RowList, query: string): Promise<SearchResult> {
    checkList(list);
    if (typeof query !== 'string') throw new NotFoundError('the query must be text');
    return this.model(key).search(list, query);
  }

  async getHistory(key: string): Promise<SessionHistory> {
    return historyOf(this.model(key).target);
  }

  async previewRetire(key: string, reason: 'sealed' | 'deleted'): Promise<RetirePreview> {
    return previewRetireOf(this.model(key).target, checkRetireReason(reason));
  }

  async runRetire(key: string, reason: 'sealed' | 'deleted', plan: RetirePlan): Promise<RetireResult> {
    const model = this.model(key);
    const result = runRetireOf(model.target, checkRetireReason(reason), plan);
    this.refreshModel(model);
    this.emitSession(model);
    return result;
  }

  async previewAction(key: string, kind: ActionKind): Promise<ActionPreview> {
    return previewAction(this.model(key), checkKind(kind));
  }

  async runAction(key: string, kind: ActionKind, based_on_seq: number, reason: string): Promise<ActionOutcome> {
    const model = this.model(key);
    const outcome = runAction(model, checkKind(kind), based_on_seq, reason);
    this.emitSession(model);
    return outcome;
  }

  async getReport(key: string): Promise<SupportReport> {
    return supportReport(this.model(key).target, Date.now());
  }

  async getContext(key: string, episode: number | null, step_id: number | null): Promise<StepContext> {
    const model = this.model(key);
    return stepContext(model.fold(), walPayloadReader(model.target.wal_path), episode, step_id);
  }

  subscribe(listener: (event: WalscopeEvent) => void): () => void {
    if (this.listeners.size >= LISTENERS_MAX) throw new Error(`more than ${LISTENERS_MAX} subscribers`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function checkKind(kind: ActionKind): ActionKind {
  if (kind !== 'resume' && kind !== 'cancel' && kind !== 'seal') throw new NotFoundError(`no action "${String(kind)}"`);
  return kind;
}

/** A list name from the wire: anything but the three lists (say "constructor") would reach an inherited member. */
function checkList(list: unknown): asserts list is RowList {
  if (list !== 'timeline' && list !== 'records' && list !== 'transcript') throw new NotFoundError(`no list "${String(list)}"`);
}

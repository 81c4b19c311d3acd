// The main thread's handle on the session worker: the same WalscopeApi, each call a message. Pending calls
// are bounded; a worker that dies fails them all rather than leaving them waiting.
import { Worker } from 'node:worker_threads';
import { apiClient, ApiFailure, type ApiMethod, type ApiRequests, type WalscopeApi, type WalscopeEvent } from '../../src-shared/ipc.js';
import type { AlertThresholds } from '../../src-shared/alerts.js';
import type { ActionApprover } from './actions.js';
import type { WorkspacePaths } from './session-service.js';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.js';

export const PENDING_CALLS_MAX = 1_024;
export const LISTENERS_MAX = 64;

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

export class WorkerApi implements WalscopeApi {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(event: WalscopeEvent) => void>();
  private next_id = 1;
  private dead: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromWorker) => this.receive(message));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the session worker exited (code ${code})`)));
  }

  /** Starts the worker at `worker_file` on `workspace`, watching its alerts with `alerts` (none: not watched);
   *  resolves once it is open. */
  static start(worker_file: URL | string, workspace: WorkspacePaths, alerts: AlertThresholds | null = null): Promise<WorkerApi> {
    const init: WorkerInit = { workspace, alerts };
    const worker = new Worker(worker_file, { workerData: init });
    const api = new WorkerApi(worker);
    return new Promise((resolve, reject) => {
      const first = (message: FromWorker) => {
        if (message.kind === 'ready') resolve(api);
        else if (message.kind === 'failed') reject(new Error(message.message));
        else return;
        worker.off('message', first);
      };
      worker.on('message', first);
      worker.once('exit', (code) => reject(new Error(`the session worker exited before it was ready (code ${code})`)));
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private receive(message: FromWorker): void {
    if (message.kind === 'event') {
      for (const listener of this.listeners) listener(message.event);
      return;
    }
    if (message.kind !== 'reply') return;
    const pending = this.pending.get(message.id);
    if (pending === undefined) return;
    this.pending.delete(message.id);
    if (message.ok) pending.resolve(message.value);
    else pending.reject(new ApiFailure(message.error.code, message.error.error));
  }

  private fail(error: Error): void {
    this.dead ??= error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  /** The API with its actions approved by `approver`: the fleet agent acts for an operator on another machine. */
  approvedBy(approver: ActionApprover): ApiRequests {
    return apiClient((method, args) => this.call(method, args, approver));
  }

  private call<T>(method: ApiMethod, args: unknown[], approver?: ActionApprover): Promise<T> {
    if (this.dead !== null) return Promise.reject(this.dead);
    if (this.pending.size >= PENDING_CALLS_MAX) return Promise.reject(new Error(`more than ${PENDING_CALLS_MAX} calls pending`));
    const id = this.next_id++;
    // The arguments are the API's own, as its typed methods took them: the transport outside checked any from the wire.
    const call = { id, method, args } as ToWorker;
    const request: ToWorker = approver === undefined ? call : { ...call, approver };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage(request);
    });
  }

  private readonly client = apiClient((method, args) => this.call(method, args));
  getWorkspace = this.client.getWorkspace;
  listSessions = this.client.listSessions;
  listPage = this.client.listPage;
  getSession = this.client.getSession;
  getRows = this.client.getRows;
  getRecord = this.client.getRecord;
  getOutput = this.client.getOutput;
  locateSeq = this.client.locateSeq;
  search = this.client.search;
  filterTimeline = this.client.filterTimeline;
  previewAction = this.client.previewAction;
  runAction = this.client.runAction;
  previewAcknowledge = this.client.previewAcknowledge;
  runAcknowledge = this.client.runAcknowledge;
  getHistory = this.client.getHistory;
  previewRetire = this.client.previewRetire;
  runRetire = this.client.runRetire;
  getContext = this.client.getContext;
  getTiming = this.client.getTiming;
  getTail = this.client.getTail;
  getReport = this.client.getReport;
  getAlerts = this.client.getAlerts;
  compareSessions = this.client.compareSessions;
  getBundle = this.client.getBundle;

  subscribe(listener: (event: WalscopeEvent) => void): () => void {
    if (this.listeners.size >= LISTENERS_MAX) throw new Error(`more than ${LISTENERS_MAX} subscribers`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

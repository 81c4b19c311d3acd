// The main thread's handle on the session worker: the same WalscopeApi, each call a message. Pending calls
// are bounded; a worker that dies fails them all rather than leaving them waiting.
import { Worker } from 'node:worker_threads';
import type { ApiMethod, WalscopeApi, WalscopeEvent } from '../../src-shared/ipc.js';
import { NotFoundError } from './errors.js';
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

  /** Starts the worker at `worker_file` on `workspace_path`; resolves once its first read is done. */
  static start(worker_file: URL | string, workspace_path: string): Promise<WorkerApi> {
    const init: WorkerInit = { workspace_path };
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
    else pending.reject(message.not_found ? new NotFoundError(message.message) : new Error(message.message));
  }

  private fail(error: Error): void {
    this.dead ??= error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private call<T>(method: ApiMethod, args: unknown[]): Promise<T> {
    if (this.dead !== null) return Promise.reject(this.dead);
    if (this.pending.size >= PENDING_CALLS_MAX) return Promise.reject(new Error(`more than ${PENDING_CALLS_MAX} calls pending`));
    const id = this.next_id++;
    const request: ToWorker = { id, method, args };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage(request);
    });
  }

  getWorkspace: WalscopeApi['getWorkspace'] = () => this.call('getWorkspace', []);
  listSessions: WalscopeApi['listSessions'] = () => this.call('listSessions', []);
  getSession: WalscopeApi['getSession'] = (key) => this.call('getSession', [key]);
  getRows: WalscopeApi['getRows'] = (key, list, start, count) => this.call('getRows', [key, list, start, count]);
  getRecord: WalscopeApi['getRecord'] = (key, index) => this.call('getRecord', [key, index]);
  locateSeq: WalscopeApi['locateSeq'] = (key, seq) => this.call('locateSeq', [key, seq]);
  search: WalscopeApi['search'] = (key, list, query) => this.call('search', [key, list, query]);
  previewAction: WalscopeApi['previewAction'] = (key, kind) => this.call('previewAction', [key, kind]);
  getReport: WalscopeApi['getReport'] = (key) => this.call('getReport', [key]);
  runAction: WalscopeApi['runAction'] = (key, kind, based_on_seq, reason) => this.call('runAction', [key, kind, based_on_seq, reason]);
  getHistory: WalscopeApi['getHistory'] = (key) => this.call('getHistory', [key]);
  previewRetire: WalscopeApi['previewRetire'] = (key, reason) => this.call('previewRetire', [key, reason]);
  runRetire: WalscopeApi['runRetire'] = (key, reason, plan) => this.call('runRetire', [key, reason, plan]);
  getContext: WalscopeApi['getContext'] = (key, episode, step_id) => this.call('getContext', [key, episode, step_id]);

  subscribe(listener: (event: WalscopeEvent) => void): () => void {
    if (this.listeners.size >= LISTENERS_MAX) throw new Error(`more than ${LISTENERS_MAX} subscribers`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

// The session worker's entry: it owns the SessionService, so reading, verifying and folding a large WAL
// happen here and the thread that serves the window or the HTTP requests never blocks on them.
import { parentPort, workerData } from 'node:worker_threads';
import { dispatchApi, toApiError } from '../../src-shared/ipc.js';
import { describe } from '../engine/index.js';
import { SessionService } from './session-service.js';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.js';

const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);
const init = workerData as WorkerInit;

SessionService.open(init.workspace).then(
  (service) => {
    service.subscribe((event) => post({ kind: 'event', event }));
    port.on('message', (request: ToWorker) => {
      const api = request.approver === undefined ? service : service.approvedBy(request.approver);
      dispatchApi(api, request.method, request.args).then(
        (value) => post({ kind: 'reply', id: request.id, ok: true, value }),
        (error: unknown) => post({ kind: 'reply', id: request.id, ok: false, error: toApiError(error) }),
      );
    });
    post({ kind: 'ready' });
  },
  (error: unknown) => post({ kind: 'failed', message: describe(error) }),
);

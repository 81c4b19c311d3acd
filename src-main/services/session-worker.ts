// The session worker's entry: it owns the SessionService, so reading, verifying and folding a large WAL
// happen here and the thread that serves the window or the HTTP requests never blocks on them.
import { parentPort, workerData } from 'node:worker_threads';
import { describe } from '../engine/index.js';
import { SessionService } from './session-service.js';
import { answerRequest, type FromWorker, type ToWorker, type WorkerInit } from './worker-protocol.js';

const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);
const init = workerData as WorkerInit;

SessionService.open(init.workspace, init.alerts === null ? {} : { alerts: init.alerts }).then(
  (service) => {
    service.subscribe((event) => post({ kind: 'event', event }));
    port.on('message', (request: ToWorker) => void answerRequest(service, request).then(post));
    post({ kind: 'ready' });
  },
  (error: unknown) => post({ kind: 'failed', message: describe(error) }),
);

// The one way this project starts a helper thread of its own code: a CommonJS script evaluated as the worker
// (`eval: true`), because the engine is bundled into the CLI, the Electron main process and the session worker and
// runs from source under the tests, so no one file path would name a worker module in all of them.
import { Worker } from 'node:worker_threads';

/** A worker thread running `source` with `worker_data`, or null where none can start (a resource limit, an
 *  embedder that forbids worker threads): the caller then does the work itself. It never keeps the process alive
 *  (a CLI exits when its work is done, whatever the worker does), and a failure inside it is an event with a
 *  listener: a synchronous caller never reaches the event loop to see it, and an unheard one would throw in the
 *  process after the caller's work. Callers notice a failed worker by its silence. */
export function startScriptWorker(source: string, worker_data: unknown): Worker | null {
  let worker: Worker;
  try {
    worker = new Worker(source, { eval: true, workerData: worker_data });
  } catch {
    return null;
  }
  worker.on('error', () => undefined);
  worker.unref();
  return worker;
}

// Two WALs on this machine compared on a worker thread (compare-worker.ts), for a process that holds no session
// worker of them: the fleet's viewer compares two hosts' sessions from their fetched copies this way.
import { Worker } from 'node:worker_threads';
import type { CompareJson } from '../../src-shared/compare.js';

/** One side: the WAL file or session folder to read, the name the comparison gives it, and its session id. */
export interface CompareFileSide {
  path: string;
  name: string;
  session: string | null;
}

export interface CompareFilesWork {
  a: CompareFileSide;
  b: CompareFileSide;
  episode: number | null;
}

export type CompareFilesAnswer = { ok: true; comparison: CompareJson } | { ok: false; message: string };

/** `work` compared by the compare worker at `worker_file`; rejects with what stopped it. */
export function compareFiles(worker_file: URL | string, work: CompareFilesWork): Promise<CompareJson> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(worker_file, { workerData: work });
    let answered = false;
    worker.once('message', (answer: CompareFilesAnswer) => {
      answered = true;
      if (answer.ok) resolve(answer.comparison);
      else reject(new Error(answer.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the compare worker exited without an answer (code ${code})`));
    });
  });
}

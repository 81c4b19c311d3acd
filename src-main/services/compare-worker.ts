// The compare worker's entry: two WAL files compared (recovery/compare-target.ts) on a thread of its own, for a
// process with no session worker of these files — `serve --fleet` and the desktop's fleet, comparing two sessions
// of two hosts from their fetched copies — so the thread serving the window or the HTTP requests never blocks on
// reading them. It answers once and ends.
import { parentPort, workerData } from 'node:worker_threads';
import { describe, resolveTargets } from '../engine/index.js';
import { compareTargets } from '../recovery/compare-target.js';
import type { CompareFilesAnswer, CompareFilesWork, CompareFileSide } from './compare-files.js';

const work = workerData as CompareFilesWork;
const sideOf = (side: CompareFileSide) => ({ name: side.name, target: { ...resolveTargets(side.path)[0]!, session: side.session }, member: null });

let answer: CompareFilesAnswer;
try {
  answer = { ok: true, comparison: compareTargets(sideOf(work.a), sideOf(work.b), { episode: work.episode }) };
} catch (error) {
  answer = { ok: false, message: describe(error) };
}
parentPort!.postMessage(answer);

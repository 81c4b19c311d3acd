// The one way a list is walked on request without holding the worker: a search, and the Timeline's filter. Each
// request walks for about SEARCH_STEP_MS and answers with what it found so far, saying whether it is complete;
// the next request with the same question goes on from there, and after an append from the first part of the
// list the new views no longer share with the ones walked.
import { SEARCH_STEP_MS } from '../../src-shared/ipc.js';
import type { Segments } from './session-views.js';

/** Runs `next` (which walks one more row and returns its index when it matched) while `more` and for about
 *  SEARCH_STEP_MS, keeping the first `rows_max` matches. The clock is read at every row: a row of a 1 GiB session
 *  can decode an output of up to 16 MiB, and 64 rows between readings made a step of seconds. */
export function scanStep(found: { rows: number[]; truncated: boolean }, more: () => boolean, next: () => number | null, rows_max: number): void {
  const deadline_ms = performance.now() + SEARCH_STEP_MS;
  for (let made = 0; more() && !found.truncated; made++) {
    if (made > 0 && performance.now() > deadline_ms) return;
    const matched = next();
    if (matched === null) continue;
    // `>=`: a filter's `next` keeps a matched row's context rows itself, before the row.
    if (found.rows.length >= rows_max) found.truncated = true;
    else found.rows.push(matched);
  }
}

/** How many leading parts `now` shares with `before` (the same objects), of the `reached` parts walked in it: a
 *  walk of `now` goes on from there, keeping what it found before it. */
export function sharedParts<T>(before: Segments<T>, reached: number, now: Segments<T>): number {
  let shared = 0;
  while (shared < reached && shared < now.part_count && now.part(shared) === before.part(shared)) shared++;
  return shared;
}

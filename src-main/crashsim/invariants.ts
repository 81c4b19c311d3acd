// The simulator's invariants (issue 4), each a pure check over what the disk holds and what the world saw:
//   1. at-most-once: no ledger key holds two side effects; no call the WAL classes indeterminate is re-sent;
//   2. no loss: every acknowledged byte (its barrier returned) is still in the WAL, in order, byte for byte,
//      and every unit the caller saw is still there;
//   3. provider-valid: no request the runtime renders pairs a tool_use with nothing; every request it recorded
//      sending (model_attempt_finished.request_sha256) is the step's request as replay renders it from the WAL,
//      compaction views included; and a recovery renders a recorded view from its record alone, never asking
//      the compaction provider again for a boundary whose view the WAL holds;
//   4. an indeterminate call ends its episode Interrupted, with no model step after it in that run;
//   5. resume is idempotent, epochs only grow, the feature floor is always whole and covers the WAL.
// Plus the record set itself: the replay library finds no anomaly and the reader never refuses an image.
import { appendAll } from '../../src-shared/arrays.js';
import type { JsonPayload, SessionFold } from '../../src-shared/replay.js';
import type { VisibleUnit } from '../runtime/journal.js';
import type { DispatchRecord } from '../runtime/scripted.js';
import { duplicateKeys, type LedgerEntry } from '../runtime/ledger.js';
import { PAYLOADS_UNREAD } from '../replay/payloads.js';
import { bufferPayloadReader } from '../recovery/payloads.js';
import { renderStepRequest, renderTranscript } from '../replay/transcript.js';
import { checkProviderValid } from '../replay/provider-validity.js';
import { requestBytes, sha256Hex, viewRecords } from '../replay/views.js';
import type { DiskView } from './view.js';

export type InvariantName =
  | 'at_most_once'
  | 'no_loss'
  | 'provider_valid'
  | 'indeterminate_interrupts'
  | 'resume_idempotent'
  | 'epochs'
  | 'floor'
  | 'record_set'
  | 'runtime_error';

export interface Violation {
  invariant: InvariantName;
  /** 0 for the first process, k for the k-th recovery. */
  process: number;
  message: string;
}

type Found = Omit<Violation, 'process'>;

/** A crash image, before anyone recovers it. */
export function checkImage(view: DiskView, acked: Buffer, visible: readonly VisibleUnit[]): Found[] {
  const found: Found[] = [];
  const kept = view.wal_bytes.subarray(0, acked.length);
  if (kept.length < acked.length || Buffer.compare(kept, acked) !== 0) {
    found.push({ invariant: 'no_loss', message: `${acked.length} acknowledged WAL bytes, but the image ${describeDifference(view.wal_bytes, acked)}` });
  }
  if (view.read?.error != null) found.push({ invariant: 'record_set', message: `the reader refuses the image: ${view.read.error.message}` });
  for (const unit of visible) {
    if (view.types.get(unit.seq) !== unit.type) {
      found.push({ invariant: 'no_loss', message: `the caller saw ${unit.type} seq ${unit.seq} (${unit.detail}), which the image does not hold` });
    }
  }
  appendAll(found, checkFloor(view));
  return found;
}

/** The floor parses (a rename leaves the old file or the new one, never a mix) and lists every feature the
 *  WAL's intact frames require. */
export function checkFloor(view: DiskView): Found[] {
  if ('error' in view.floor) return [{ invariant: 'floor', message: `the feature floor is not whole: ${view.floor.error}` }];
  const names = new Set(view.floor.names);
  const missing = (view.read?.features ?? []).filter((feature) => !names.has(feature));
  if (missing.length === 0) return [];
  return [{ invariant: 'floor', message: `the WAL holds frames requiring ${missing.join(', ')}, which the floor does not list` }];
}

export function checkLedger(entries: readonly LedgerEntry[]): Found[] {
  return duplicateKeys(entries).map((key) => ({ invariant: 'at_most_once' as const, message: `ledger key ${key} holds more than one applied side effect` }));
}

/** Keys (session/run/batch/call) of every call the fold classes indeterminate. */
export function indeterminateKeys(session_id: string, fold: SessionFold): Set<string> {
  const keys = new Set<string>();
  for (const episode of fold.episodes) {
    for (const batch of episode.batches) {
      for (const call of batch.calls) if (call.class === 'indeterminate') keys.add(`${session_id}/${episode.run_id}/${batch.batch_id}/${call.tool_call_id}`);
    }
  }
  return keys;
}

export function checkNoRedispatch(indeterminate: ReadonlySet<string>, dispatched: readonly string[]): Found[] {
  return dispatched
    .filter((key) => indeterminate.has(key))
    .map((key) => ({ invariant: 'at_most_once' as const, message: `call ${key} was indeterminate in the WAL this process recovered, and it was dispatched again` }));
}

export function checkRequest(run_id: string, step_id: number, messages: readonly JsonPayload[]): Found[] {
  const validity = checkProviderValid(messages);
  return validity.problems.map((problem) => ({
    invariant: 'provider_valid' as const,
    message: `run ${run_id} step ${step_id}: request message ${problem.message_index} has ${problem.kind} for ${problem.tool_use_id}`,
  }));
}

/** Every request the WAL says was sent is the one replay renders for its step, byte for byte (wal-format §6):
 *  a resumed run that rendered a view some other way, or asked its provider again, would send other bytes. */
export function checkSentRequests(view: DiskView): Found[] {
  const found: Found[] = [];
  const rendered = new Map<string, string>();
  const payloads = bufferPayloadReader(view.wal_bytes);
  for (const sent of view.sent_requests) {
    const episode = view.fold.episodes.find((candidate) => candidate.started_seq < sent.seq && sent.seq <= candidate.last_seq);
    if (episode === undefined) continue;
    const key = `${episode.episode}/${sent.step_id}`;
    if (!rendered.has(key)) {
      // The view's store: each step's request holds the earlier steps' turns, rendered once for every request checked.
      const request = renderStepRequest(view.fold, episode.episode, sent.step_id, payloads, view.sums);
      const problem = request.problems[0];
      rendered.set(key, problem === undefined ? sha256Hex(requestBytes(request.messages.map((message) => message.message))) : `(${problem.message})`);
    }
    const expected = rendered.get(key)!;
    if (expected !== sent.request_sha256) {
      found.push({ invariant: 'provider_valid', message: `episode ${episode.episode} step ${sent.step_id}: the request recorded sent at seq ${sent.seq} (sha256 ${sent.request_sha256}) is not the step's request as replay renders it (${expected})` });
    }
  }
  return found;
}

/** Boundaries (run_id/step_id) whose compaction view the WAL holds. */
export function recordedViewKeys(fold: SessionFold): Set<string> {
  return new Set(fold.episodes.flatMap((episode) => viewRecords(episode).map((view) => `${episode.run_id}/${view.step_id}`)));
}

/** A recovered process renders a recorded view from its record: asking the provider again is a violation. */
export function checkViewsNotAskedAgain(recorded: ReadonlySet<string>, asked: readonly { run_id: string; step_id: number }[]): Found[] {
  return asked
    .filter((entry) => recorded.has(`${entry.run_id}/${entry.step_id}`))
    .map((entry) => ({ invariant: 'provider_valid' as const, message: `run ${entry.run_id} step ${entry.step_id}: the WAL already held this boundary's view, and the compaction provider was asked again` }));
}

/** The epoch a process took is above every fence and every tenure the disk held when it started. */
export function checkEpoch(epoch: number, before: DiskView): Found[] {
  const max_fence = before.fences.reduce((highest, fence) => Math.max(highest, fence), 0);
  const lease_epoch = before.lease_epoch ?? 0;
  if (epoch > max_fence && epoch > lease_epoch) return [];
  return [{ invariant: 'epochs', message: `epoch ${epoch} does not exceed the WAL's greatest fence ${max_fence} and the lease's epoch ${lease_epoch}` }];
}

/** A session after a process ran to its end: complete, consistent, provider-valid. */
export function checkSettled(view: DiskView, paused: boolean): Found[] {
  const found: Found[] = [];
  const fold = view.fold;
  if (view.read?.error != null) found.push({ invariant: 'record_set', message: `the reader refuses the WAL: ${view.read.error.message}` });
  for (const anomaly of [...fold.anomalies, ...fold.episodes.flatMap((episode) => episode.anomalies)]) {
    found.push({ invariant: 'record_set', message: `${anomaly.kind}: ${anomaly.message}` });
  }
  appendAll(found, checkSentRequests(view));
  const transcript = checkProviderValid(renderTranscript(fold, PAYLOADS_UNREAD, view.sums));
  for (const problem of transcript.problems) {
    found.push({ invariant: 'provider_valid', message: `the transcript has ${problem.kind} for ${problem.tool_use_id} at message ${problem.message_index}` });
  }
  fold.episodes.forEach((episode, index) => {
    const last = index === fold.episodes.length - 1;
    if (episode.finished === null && !(last && paused && episode.state === 'paused')) {
      found.push({ invariant: 'record_set', message: `episode ${episode.episode} (${episode.run_id}) was left ${episode.state} by a process that ran to its end` });
    }
    for (const batch of episode.batches) {
      if (!batch.calls.some((call) => call.class === 'indeterminate')) continue;
      if (episode.finished !== null && episode.finished.reason !== 'interrupted') {
        found.push({ invariant: 'indeterminate_interrupts', message: `episode ${episode.episode} has an indeterminate call in ${batch.batch_id} but finished ${episode.finished.reason}` });
      }
      const later = episode.steps.find((step) => step.seq !== null && step.seq > batch.started_seq);
      if (later !== undefined) {
        found.push({ invariant: 'indeterminate_interrupts', message: `episode ${episode.episode} ran model step ${later.step_id} after the indeterminate call in ${batch.batch_id}` });
      }
    }
  });
  for (let index = 1; index < view.fences.length; index++) {
    if (view.fences[index]! < view.fences[index - 1]!) {
      found.push({ invariant: 'epochs', message: `frame ${index} has fence ${view.fences[index]} after fence ${view.fences[index - 1]}: fences must never go back` });
      break;
    }
  }
  return found;
}

/** §3 step 5: once a call of a parallel batch came back unknown, no call of that batch that is not declared
 *  safe was sent after it. `dispatched` is the world's log, in the order the plane received them. */
export function checkStopRule(session_id: string, fold: SessionFold, dispatched: readonly DispatchRecord[]): Found[] {
  const found: Found[] = [];
  for (const episode of fold.episodes) {
    for (const batch of episode.batches) {
      const prefix = `${session_id}/${episode.run_id}/${batch.batch_id}/`;
      const safe = new Set(batch.calls.filter((call) => call.safe).map((call) => call.tool_call_id));
      let unknown: string | null = null;
      for (const entry of dispatched) {
        if (!entry.key.startsWith(prefix)) continue;
        if (unknown !== null && !safe.has(entry.tool_call_id)) {
          found.push({ invariant: 'indeterminate_interrupts', message: `${entry.tool_call_id} was sent after ${unknown} came back unknown in batch ${batch.batch_id}, and it is not declared safe` });
        }
        if (entry.unknown) unknown ??= entry.tool_call_id;
      }
    }
  }
  return found;
}

/** A second recovery of a settled session appends no record and dispatches nothing. */
export function checkIdempotent(before: DiskView, after: DiskView, dispatched: readonly string[]): Found[] {
  const found: Found[] = [];
  const before_seq = before.read?.last_seq ?? 0;
  const after_seq = after.read?.last_seq ?? 0;
  if (after_seq !== before_seq) found.push({ invariant: 'resume_idempotent', message: `a repeated recovery appended records ${before_seq + 1}..${after_seq}` });
  if (dispatched.length > 0) found.push({ invariant: 'resume_idempotent', message: `a repeated recovery dispatched ${dispatched.join(', ')}` });
  return found;
}

function describeDifference(image: Buffer, acked: Buffer): string {
  if (image.length === 0) return 'has no WAL at all';
  const limit = Math.min(image.length, acked.length);
  for (let offset = 0; offset < limit; offset++) {
    if (image[offset] !== acked[offset]) return `differs from them at offset ${offset}`;
  }
  return `holds only ${image.length} bytes of them`;
}

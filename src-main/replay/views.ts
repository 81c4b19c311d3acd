// Compaction views (wal-format §6, compaction-view/v1): reading a compaction_view_applied record, deciding
// whether it still assembles, and the canonical bytes of a rendered request. A view is rendered from its
// record alone: `replacement` stands in for the turns of steps 1…through_step, and `replacement_sha256` (the
// SHA-256 of the CBOR encoding of `replacement`) proves the record holds the bytes the provider published.
//
// The digest is checked on the record's own CBOR value (`replacementDigestOk`, called by the fold), not on its
// JSON form: a byte string inside a replacement reads back as hex text, and re-encoding that would give other
// bytes.
import { createHash } from 'node:crypto';
import type { EpisodeFold, JsonPayload, RequestProblem, StepFold, StepNote, ViewProblemCause } from '../../src-shared/replay.js';
import type { CborValue, Payload } from '../../src-shared/wal.js';
import { encodeCbor, encodedSize, headBytes } from '../engine/index.js';
import { sharedSteps } from './resumable.js';
import { FullSums, Table, type SumSpec, type Sums } from './sums.js';
import { integer, isMap, text } from './values.js';

export const VIEW_RECORD_TYPE = 'compaction_view_applied';

/** One compaction_view_applied record, read without trusting it: a field of the wrong type reads as absent,
 *  and such a view does not assemble ('malformed'). */
export interface ViewRecord {
  seq: number;
  step_id: number;
  view_id: string;
  version: number;
  through_step: number;
  applied: string;
  replacement: JsonPayload[];
  /** replacement_sha256 matched the CBOR of the record's replacement (false when either is missing). */
  digest_ok: boolean;
  malformed: string | null;
}

/** The canonical bytes of a request: the CBOR encoding of its messages (what request_len counts and
 *  request_sha256 digests, in the same encoding §6 digests a view's replacement with). */
export function requestBytes(messages: readonly JsonPayload[]): Buffer {
  return encodeCbor(messages);
}

/** The CBOR size of one message, remembered per message object (fold values do not change once folded; a
 *  message built for one rendering is simply measured again). */
const MESSAGE_SIZES = new Table<JsonPayload, number>('message sizes');

function messageSize(message: JsonPayload, sums: Sums): number {
  const message_sizes = sums.table(MESSAGE_SIZES);
  let size = message_sizes.get(message);
  if (size === undefined) {
    size = encodedSize(message);
    message_sizes.set(message, size);
  }
  return size;
}

/** requestBytes(messages).length without encoding them again: an array's CBOR is its head, then its items. */
export function requestSize(messages: readonly JsonPayload[], sums: Sums = new FullSums()): number {
  let size = headBytes(messages.length);
  for (const message of messages) size += messageSize(message, sums);
  return size;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function sha256Bytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

/** The digest a view record carries for `replacement` (the writer's side of the check below). */
export function replacementDigest(replacement: readonly CborValue[]): Uint8Array {
  return sha256Bytes(encodeCbor(replacement));
}

/** Whether a raw compaction_view_applied payload's replacement_sha256 is the SHA-256 of its replacement's CBOR. */
export function replacementDigestOk(payload: Payload): boolean {
  const view = payload['view'];
  if (view === null || typeof view !== 'object' || Array.isArray(view) || view instanceof Uint8Array) return false;
  const replacement = view['replacement'];
  const recorded = view['replacement_sha256'];
  if (!Array.isArray(replacement) || !(recorded instanceof Uint8Array) || recorded.length !== 32) return false;
  return Buffer.compare(Buffer.from(replacementDigest(replacement)), Buffer.from(recorded)) === 0;
}

/** The episode's view records, in WAL order (the fold attaches each to the step it names). */
export function viewRecords(episode: EpisodeFold, sums: Sums = new FullSums()): ViewRecord[] {
  return sums.sum(STEP_VIEWS, episode).slice().sort((left, right) => left.seq - right.seq);
}

/** The view records of an episode's steps in step order, taken on from the last snapshot's for a live episode:
 *  looking through every step's notes walked a live episode's every step at each append. */
const STEP_VIEWS: SumSpec<StepFold, ViewRecord[]> = {
  items: (episode) => episode.steps,
  initial: () => [],
  copy: (views) => views.slice(),
  rewind: {
    mark: (views) => views.length,
    to(views, mark) {
      views.length = mark as number;
    },
  },
  shared: sharedSteps,
  add(views, step) {
    for (const note of step.notes) if (note.type === VIEW_RECORD_TYPE) views.push(readView(note, step.step_id));
  },
};

function readView(note: StepNote, step_id: number): ViewRecord {
  const view = isMap(note.payload['view']) ? note.payload['view'] : {};
  const replacement = view['replacement'];
  const fields = {
    view_id: text(view, 'view_id'),
    version: integer(view, 'version'),
    through_step: integer(view, 'through_step'),
    applied: text(note.payload, 'applied'),
  };
  const missing = Object.entries(fields).filter(([, value]) => value === null).map(([name]) => name);
  if (!Array.isArray(replacement) || !replacement.every(isMap)) missing.push('replacement');
  return {
    seq: note.seq,
    step_id,
    view_id: fields.view_id ?? '?',
    version: fields.version ?? 0,
    through_step: fields.through_step ?? 0,
    applied: fields.applied ?? '?',
    replacement: Array.isArray(replacement) ? replacement.filter(isMap) : [],
    digest_ok: note.replacement_digest_ok === true,
    malformed: missing.length === 0 ? null : `it lacks ${missing.join(', ')}`,
  };
}

/** Why `view` no longer assembles, given the views recorded before it in its episode; null when it does. */
export function viewProblem(view: ViewRecord, earlier: readonly ViewRecord[]): RequestProblem | null {
  const fail = (cause: ViewProblemCause, why: string): RequestProblem => ({
    kind: 'view_not_assembled',
    cause,
    seq: view.seq,
    message: `view ${view.view_id} v${view.version} (seq ${view.seq}) no longer assembles: ${why}; step ${view.step_id} is not rendered`,
  });
  if (view.malformed !== null) return fail('malformed', view.malformed);
  if (!view.digest_ok) return fail('digest_mismatch', 'replacement_sha256 is not the SHA-256 of its replacement');
  if (view.through_step >= view.step_id) return fail('through_step_not_before_step', `it covers through step ${view.through_step}, not before step ${view.step_id}`);
  const highest = earlier.reduce<ViewRecord | null>((best, other) => (best === null || other.through_step > best.through_step ? other : best), null);
  if (highest !== null && view.through_step < highest.through_step) {
    return fail('through_step_regressed', `it covers through step ${view.through_step}, below view ${highest.view_id} v${highest.version} (seq ${highest.seq}), which covered through step ${highest.through_step}`);
  }
  return null;
}

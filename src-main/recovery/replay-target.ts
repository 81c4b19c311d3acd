// Reading a WAL into its replay. Read-only: exports and live sessions are read exactly as `verify` reads them
// (inspect.ts), never locked, created or written.
import type { JsonValue } from '../../src-shared/replay.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import { type FileIO, readTarget, VERIFY_DIGEST_WORKER_FILE_BYTES_MIN, type WalTarget } from '../engine/index.js';
import { SessionFolder } from '../replay/fold.js';
import { planResume } from '../replay/plan.js';
import { RecoveryLog } from '../replay/recoveries.js';
import { refusedPlan, type SessionReplay } from '../replay/report.js';
import { liveWords, runSignal } from '../replay/signals.js';

/** Folds a WAL in one pass. Payloads are validated by the reader and decoded by the fold from the reader's
 *  buffer, without what stays on disk (tool outputs); a session the fold cannot hold is refused as
 *  `too_large`, naming the record's offset, with the prefix before it shown. `also` sees every frame the fold
 *  sees, with its payload's CBOR (a report collecting lineage frames, say), in the same one read. */
export function replayTarget(target: WalTarget, io?: FileIO, also?: (frame: ReadFrame, payload_cbor: Buffer) => void): SessionReplay {
  const folder = new SessionFolder();
  const log = new RecoveryLog();
  const on_frame = (frame: ReadFrame, payload_cbor: Buffer, kept?: unknown) => {
    folder.push(frame, payload_cbor, kept);
    // The fold built an operator_action's payload whole (it keeps no member table for it): the log reads that.
    // An operator_action, and the WAL's first frame (a successor's lineage frame names the retire that made it).
    if (frame.type === 'operator_action' || frame.offset === 0) log.push({ seq: frame.seq, type: frame.type, fence: frame.fence, payload: builtPayload(kept) });
    else if (log.collecting) log.push({ seq: frame.seq, type: frame.type, fence: frame.fence, payload: null });
    also?.(frame, payload_cbor);
  };
  // A big WAL's digests, small frames' too, are checked on a second thread ahead of this one, which folds while
  // they are hashed: hashing is ~1 µs of the ~7 µs a small frame costs the fold (verify, with less to do a frame,
  // hands only large frames over).
  const whole = readTarget(target, { ...(io === undefined ? {} : { io }), with_payload: false, decode_payload: folder.decodePayload, on_frame, digest_runs_from_bytes: VERIFY_DIGEST_WORKER_FILE_BYTES_MIN });
  const read = whole.error === null && folder.refusal !== null ? { ...whole, error: folder.refusal, checkpoint: null } : whole;
  const fold = folder.finish();
  const { sums } = folder;
  const resume = read.error === null ? planResume(fold, sums) : refusedPlan();
  const recoveries = log.entries();
  const live = read.live_holder === null ? null : liveWords(read.live_holder.tenure);
  const run = runSignal(fold, { end: read, is_export: target.is_export, resume_action: resume.action, resume_message: resume.message, recoveries, live }, sums);
  return { read, fold, resume, recoveries, run, sums };
}

/** What the fold built of a payload it keeps whole, as JSON; null when it built none (past its bounds). */
function builtPayload(kept: unknown): JsonValue {
  return typeof kept === 'object' && kept !== null && !Array.isArray(kept) ? (kept as JsonValue) : null;
}

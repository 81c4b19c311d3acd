// The provisional tail of a big session: what the app shows of its end at once, before the read from offset 0
// (the only read that verifies a WAL) reaches it. The last frames come from the engine's backward scan
// (engine/last-frames.ts); the last episode is folded from its run_started when the window holds it, as the
// full read would fold it. Nothing here feeds a plan or an action: the rows are for reading, marked
// provisional, and dropped when the full read completes.
import type { SessionTail, TailRecordRow, TimelineRow } from '../../src-shared/ipc.js';
import { TAIL_ROWS_MAX } from '../../src-shared/ipc.js';
import { formatBytes } from '../../src-shared/format.js';
import { type WalTarget, findLastFrames, type LastFrame, type LastFrames } from '../engine/index.js';
import { SessionFolder } from '../replay/fold.js';
import type { PayloadReader } from '../replay/payloads.js';
import { checkedPayloadReader } from '../recovery/payloads.js';
import { runSignal } from '../replay/signals.js';
import { planFor } from '../replay/plan.js';
import { IncrementalSums } from '../views/incremental-sums.js';
import { listLength, ViewBuilder } from '../views/session-views.js';

/** The record an episode starts with: its timeline is folded from there. */
const EPISODE_START_TYPE = 'run_started';

/** The tail as found; the service adds how far the read from the start has got since. */
export type FoundTail = Omit<SessionTail, 'key' | 'head_bytes_read'>;

/** Scans the end of `target`'s WAL and lays out its last records and timeline rows. Throws on an I/O error. */
export function findTail(target: WalTarget, scanned_at_head_bytes: number, payloads: PayloadReader): FoundTail {
  // Back to the last episode's start and the last page of records: the frames before those are not shown.
  const found = findLastFrames(target.wal_path, { reach: { frames_min: TAIL_ROWS_MAX, type: EPISODE_START_TYPE } });
  const records: TailRecordRow[] = found.frames.slice(-TAIL_ROWS_MAX).map(({ payload_cbor: _payload, ...row }) => row);
  // The rows' outputs and messages come from the frames found, checked already: not read and hashed again.
  const checked = new Map(found.frames.map((frame) => [frame.offset, frame.payload_cbor]));
  const timeline = timelineOf(found.frames, target.is_export, checkedPayloadReader(checked, payloads));
  return {
    provisional: true,
    total_bytes: found.size_bytes,
    scanned_at_head_bytes,
    window_bytes: found.size_bytes - found.window_offset,
    records,
    timeline: timeline.rows,
    timeline_from: timeline.from,
    note: noteOf(found, records.length, timeline.from),
    torn_tail: found.torn_tail === null ? null : { offset: found.torn_tail.offset, bytes: found.torn_tail.bytes },
  };
}

/** The last episode folded from its run_started, when the frames hold one; else one row per record. */
function timelineOf(frames: readonly LastFrame[], is_export: boolean, payloads: PayloadReader): { rows: TimelineRow[]; from: SessionTail['timeline_from'] } {
  let start = -1;
  for (let at = frames.length - 1; at >= 0 && start < 0; at--) if (frames[at]!.type === EPISODE_START_TYPE) start = at;
  if (start < 0) {
    const rows: TimelineRow[] = frames.slice(-TAIL_ROWS_MAX).filter((frame) => frame.seq > 0).map((frame) => ({ kind: 'event', episode: null, type: frame.type, summary: `${frame.type} (seq ${frame.seq}): its episode began before the part read from the end`, seqs: [frame.seq] }));
    return { rows, from: 'records' };
  }
  const sums = new IncrementalSums();
  const folder = new SessionFolder(sums);
  for (const { payload_cbor, ...frame } of frames.slice(start)) folder.push({ ...frame, payload: null }, payload_cbor);
  const fold = folder.snapshot();
  // The read's end is not judged here (the full read does it): no torn tail, no error.
  const resume = planFor(fold, 'resume', sums);
  const end = { torn_tail: null, error: null };
  const run = runSignal(fold, { end, is_export, resume_action: resume.action, resume_message: resume.message, recoveries: [], live: null }, sums);
  const views = new ViewBuilder(sums).build(fold, payloads, { run, recoveries: [], resume });
  const length = listLength(views, 'timeline');
  const rows = views.timelineRows(Math.max(0, length - TAIL_ROWS_MAX), TAIL_ROWS_MAX);
  // The episode's number counts the episodes before it, which only the full read knows.
  return { rows: rows.map((row) => (row.episode === null ? row : { ...row, episode: 0 })), from: 'episode_start' };
}

function noteOf(found: LastFrames, records: number, from: SessionTail['timeline_from']): string {
  const window = formatBytes(found.size_bytes - found.window_offset);
  if (records === 0) return `no whole frame was found in the last ${window} of the WAL (${STOP_WORDS[found.stop]}): its end shows when the read from the start reaches it`;
  const timeline = from === 'episode_start' ? 'the timeline shows the last episode, folded from its start' : `the last episode began before the last ${window}: the timeline lists the last records as they are`;
  return `the last ${records} records, found from the end of the WAL (${window} read from its end; ${STOP_WORDS[found.stop]}); ${timeline}`;
}

const STOP_WORDS: Record<LastFrames['stop'], string> = {
  start_of_file: 'back to its start',
  frames_max: 'as many frames as are looked at',
  window: 'the frame before them starts further back',
  unchained: 'what precedes them is not an intact frame in sequence',
  budget: 'the scan reached its hashing budget',
  reached: 'back to the start of the last episode',
};

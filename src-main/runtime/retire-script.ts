// The reference runtime's scripted retention (wal-format §11): a session lives through several lineages, each
// holding a number of records and then retired (sealed or deleted), the last one staying live. Records carry
// runner tags and compaction notice numbers taken from the session's counters, so a counter that regressed
// across a lineage would show as a repeated number.
//
// Driving is idempotent, so every process of a crashed session runs the same function: where it stands is read
// from the disk (how many lineages the archive holds, how many records the live one has), never remembered.
import type { Payload } from '../../src-shared/wal.js';
import {
  type RetireReason, latestMember, readArchive, type FileIO, readHistory, hex, retireLineage, openSessionForWrite,
  sessionDir, walPath,
} from '../engine/index.js';

export interface LineageScript {
  records: number;
  /** How the lineage is retired once it holds its records; null: it stays the live one (the last). */
  retire: RetireReason | null;
}

export interface RetireScript {
  session_id: string;
  lineages: LineageScript[];
}

export interface RetireObserver {
  /** A retire returned: lineage `wal_id` is retired for good and must never be lost. */
  retired?(wal_id: string, reason: RetireReason): void;
  /** The runtime's ordinary writer opened the session on lineage `wal_id`, which a retire had archived before
   *  it died (after step 1): the writer must have finished that retire. */
  writer_recovered?(wal_id: string): void;
}

export interface DriveOptions {
  /** Tests only: false plants the bug of a writer that ignores an interrupted retire. */
  finish_interrupted_retire?: boolean;
}

export const RETIRE_WRITER = 'runtime-retire';

/** Three lineages: sealed with tags and notices, deleted, then live. */
export const retireSession: RetireScript = {
  session_id: 'sim-retire',
  lineages: [
    { records: 3, retire: 'sealed' },
    { records: 2, retire: 'deleted' },
    { records: 2, retire: null },
  ],
};

export function driveRetireScript(root: string, script: RetireScript, io: FileIO, now_ms: () => number, observer: RetireObserver = {}, options: DriveOptions = {}): void {
  recoverInterruptedRetire(root, script.session_id, io, observer, options);
  for (let guard = 0; guard <= script.lineages.length * 2; guard++) {
    const position = whereAmI(root, script, io);
    if (position === null) return;
    const lineage = script.lineages[position.index]!;
    if (position.records < lineage.records) appendRecords(root, script.session_id, io, position.records, lineage.records);
    if (lineage.retire === null) return;
    const outcome = retireLineage(root, script.session_id, { io, writer_name: RETIRE_WRITER, reason: lineage.retire, now_ms });
    if (outcome.kind === 'refused') throw new Error(`scripted retire refused: ${outcome.code}: ${outcome.message}`);
    if (outcome.kind === 'retired') observer.retired?.(outcome.plan.live.wal_id, lineage.retire);
  }
  throw new Error(`retire script ${script.session_id} did not settle`);
}

/** A process starting on a session whose retire died after step 1 opens it as the runtime does, with an
 *  ordinary writer, which finishes that retire (wal-format §11) before it could append anything. */
function recoverInterruptedRetire(root: string, session_id: string, io: FileIO, observer: RetireObserver, options: DriveOptions): void {
  const dir = sessionDir(root, session_id);
  if (io.stat(walPath(dir)) === null) return;
  const live = readHistory(dir, { io }).lineages.find((entry) => entry.where === 'live');
  if (live === undefined || latestMember(readArchive(dir, { io, trust_index: true }), live.wal_id) === null) return;
  const finish_interrupted_retire = options.finish_interrupted_retire ?? true;
  openSessionForWrite(root, session_id, { io, writer_name: RETIRE_WRITER, finish_interrupted_retire }).close();
  observer.writer_recovered?.(live.wal_id);
}

/** Which scripted lineage is live, and how many records it holds; null when the script is done. */
function whereAmI(root: string, script: RetireScript, io: FileIO): { index: number; records: number } | null {
  const dir = sessionDir(root, script.session_id);
  if (io.stat(walPath(dir)) === null) return { index: 0, records: 0 };
  const history = readHistory(dir, { io });
  if (history.live_error !== null) throw new Error(`the live WAL is refused: ${history.live_error.message}`);
  const live = history.lineages.find((entry) => entry.where === 'live');
  const archive = readArchive(dir, { io, trust_index: true });
  const archived = new Set(archive.members.map((member) => hex(member.wal_id)));
  // A member for the live wal_id means a retire died after its step 1: that lineage is still the one to finish.
  if (live !== undefined) archived.delete(live.wal_id);
  const index = archived.size;
  if (index >= script.lineages.length) return null;
  const records = live?.last_seq ?? 0;
  if (script.lineages[index]!.retire === null && records >= script.lineages[index]!.records) return null;
  return { index, records };
}

/** Appends records from+1..to, one barrier each; tags and notice numbers continue the session's counters. */
function appendRecords(root: string, session_id: string, io: FileIO, from: number, to: number): void {
  const session = openSessionForWrite(root, session_id, { io, writer_name: RETIRE_WRITER });
  try {
    const history = readHistory(session.dir, { io });
    let { next_tag, next_notice_seq } = history.lineages[0]!;
    for (let seq = from + 1; seq <= to; seq++) {
      const [type, payload] = recordAt(seq, next_tag!, next_notice_seq!);
      session.writer.append(type, payload);
      session.writer.barrier();
      if (seq % 2 === 1) next_tag! += 1;
      else next_notice_seq! += 1;
    }
  } finally {
    session.close();
  }
}

function recordAt(seq: number, tag: number, notice_seq: number): [string, Payload] {
  if (seq % 2 === 1) return ['run_started', { run_id: `run-${tag}`, session: 'sim-retire', config: {}, input: [], tags: tag }];
  return ['compaction_notice', { notice_seq, headers: {} }];
}

// The support report's facts for one WAL (`walscope report`, the app's "Export report"): read-only, from the
// file exactly as received (size and SHA-256 first), through the same reader, fold and plans as `replay`.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { largest, smallest } from '../../src-shared/arrays.js';
import type { EpisodeFold, SessionFold } from '../../src-shared/replay.js';
import { REPORT_FORMAT, type ReportCall, type ReportEpisode, type ReportIntegrity, type ReportLineage, type SupportReport } from '../../src-shared/report.js';
import type { Payload, ReadFrame } from '../../src-shared/wal.js';
import { CLASS_WORDS } from '../../src-shared/words.js';
import {
  decodeCbor, scanAfterDamage, nodeFileIO, type FileIO, type WalTarget, READ_CHUNK_BYTES, looksLike, readHead, hex,
  type ReadResult,
} from '../engine/index.js';
import { replayTarget } from './replay-target.js';
import { episodeWord } from '../replay/signals.js';
import { episodeTiming, sumUsage } from '../replay/timing.js';

export function supportReport(target: WalTarget, now_ms: number, io: FileIO = nodeFileIO): SupportReport {
  return supportReportAndFold(target, now_ms, io).report;
}

/** The report and the fold it was made from, of one read: a bundle shows the fold's payloads beside the report,
 *  and a second read of a live WAL could fold records the report never saw. */
export function supportReportAndFold(target: WalTarget, now_ms: number, io: FileIO = nodeFileIO): { report: SupportReport; fold: SessionFold } {
  // Hash first: the report speaks of the file as received, before anything else reads it.
  const file = fileFacts(target.wal_path, io);
  const lineage: ReportLineage[] = [];
  // Only lineage payloads are decoded here (small, bounded by the reader's frame size).
  const on_frame = (frame: ReadFrame, payload_cbor: Buffer): void => {
    if (frame.type === 'lineage') lineage.push(lineageOf(frame, payloadOf(payload_cbor)));
  };
  const { read, fold, resume, recoveries, run } = replayTarget(target, io, on_frame);
  const episodes = fold.episodes.map((episode) => reportEpisode(episode, episodeWord(episode, run, fold.episodes.length)));
  const report: SupportReport = {
    format: REPORT_FORMAT,
    generated_ms: now_ms,
    file,
    session: target.session,
    wal_id: fold.wal_id,
    integrity: integrityOf(target, read, io),
    lineage,
    run,
    episodes,
    resume: { action: resume.action, message: resume.message, records: resume.records.map(({ type, barrier }) => ({ type, barrier })), indeterminate: resume.indeterminate },
    recoveries,
    totals: totalsOf(fold, episodes),
  };
  return { report, fold };
}

function fileFacts(wal_path: string, io: FileIO): SupportReport['file'] {
  const fd = io.open(wal_path, 'read');
  try {
    const size_bytes = io.fstat(fd).size_bytes;
    const hash = createHash('sha256');
    const chunk = Buffer.alloc(Math.min(READ_CHUNK_BYTES, Math.max(1, size_bytes)));
    for (let position = 0; position < size_bytes;) {
      const count = io.read(fd, chunk, 0, Math.min(chunk.length, size_bytes - position), position);
      if (count <= 0) throw new Error(`${wal_path} ended at ${position} while hashing (expected ${size_bytes} bytes)`);
      hash.update(chunk.subarray(0, count));
      position += count;
    }
    return { name: path.basename(wal_path), size_bytes, sha256: hash.digest('hex') };
  } finally {
    io.close(fd);
  }
}

function integrityOf(target: WalTarget, read: ReadResult, io: FileIO): ReportIntegrity {
  const intact = { frames: read.frames, records: read.records, last_seq: read.last_seq, bytes: read.valid_bytes };
  const received = `${target.session === null ? 'the file' : 'the session folder'} as received`;
  if (read.error !== null) {
    const error = read.error;
    const damage = { kind: error.kind, offset: error.offset, message: error.message };
    if (error.kind === 'not_a_wal') {
      const what = looksLike(headOf(target.wal_path, io));
      return {
        verdict: 'not_a_wal',
        summary: `not a WAL: ${what}; its first bytes are not the frame magic, so no frame was read from it`,
        intact,
        damage,
        after_damage: null,
        lost: 'Nothing can be said of the run: this file is not a WAL at all (not a WAL cut short, which would start with the frame magic or with zeros).',
        ask_customer: `The customer sent another file (${what}). Ask for the session's WAL itself: the file named "wal" in sessions/<session id>/ under their state root, with its size and SHA-256 (e.g. \`sha256sum wal\`).`,
      };
    }
    if (error.kind === 'non_tail_corruption' || error.kind === 'sequence_error') {
      const after = error.offset === null ? null : scanAfterDamage(target.wal_path, error.offset, io);
      const range = after === null || after.records === 0 ? 'no intact record' : `${after.records} intact record(s), seq ${after.seq_first}–${after.seq_last}${after.scan_cut ? ' (at least; the scan stopped at its limit)' : ''}`;
      return {
        verdict: 'damaged',
        summary: `damaged in the middle at offset ${error.offset ?? '?'}: records up to seq ${read.last_seq} are intact and used; nothing after the damage is used`,
        intact,
        damage,
        after_damage: after,
        lost: `Everything after offset ${error.offset ?? '?'} is unused: ${range} lie after the damage; they cannot be trusted in order, so replay stops at seq ${read.last_seq}.`,
        ask_customer: `Ask for the original file again (the damage may be on the customer's disk or from the transfer): compare its size and SHA-256 with ${received} (${read.bytes} bytes). If theirs differs, the copy was damaged in transfer.`,
      };
    }
    return {
      verdict: 'refused',
      summary: error.message,
      intact,
      damage,
      after_damage: null,
      lost: error.kind === 'newer_writer' ? 'Nothing is lost: a newer walscope reads the rest.' : `Nothing after offset ${error.offset ?? '?'} is used.`,
      ask_customer: error.kind === 'newer_writer' ? 'Ask which runtime version wrote it, and open it with a walscope that knows its features.' : null,
    };
  }
  if (read.torn_tail !== null) {
    const tail = read.torn_tail;
    return {
      verdict: 'cut',
      summary: `the file ends in ${tail.bytes} byte(s) at offset ${tail.offset} that are not a whole frame (${tail.reason.replaceAll('_', ' ')}): records up to seq ${read.last_seq} are intact`,
      intact,
      damage: { kind: 'torn_tail', offset: tail.offset, message: `${tail.bytes} byte(s) at offset ${tail.offset} were never committed or were cut off` },
      after_damage: null,
      lost: `At most the record being written when the file ends: ${tail.bytes} byte(s) after seq ${read.last_seq}. Either the writer died mid-write (nothing committed is lost) or the file was cut in transfer.`,
      ask_customer: `The file may have been cut in transfer. Ask the customer for the size and SHA-256 of their WAL (e.g. \`sha256sum wal\`) and compare with ${received}: ${read.bytes} bytes. If theirs is larger, ask them to send it again, whole.`,
    };
  }
  return { verdict: 'intact', summary: `every byte is intact: ${read.records} record(s), last seq ${read.last_seq}`, intact, damage: null, after_damage: null, lost: 'Nothing.', ask_customer: null };
}

/** The file's first bytes, for what a file that is not a WAL looks like. */
function headOf(wal_path: string, io: FileIO): Uint8Array {
  const fd = io.open(wal_path, 'read');
  try {
    return readHead(io, fd, io.fstat(fd).size_bytes);
  } finally {
    io.close(fd);
  }
}

function payloadOf(payload_cbor: Buffer): Payload {
  const value = decodeCbor(payload_cbor);
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) ? (value as Payload) : {};
}

function lineageOf(frame: ReadFrame, payload: Payload): ReportLineage {
  const wal_id = payload['wal_id'];
  const writer = payload['writer'];
  const created = payload['created_ms'];
  return {
    offset: frame.offset,
    wal_id: wal_id instanceof Uint8Array ? hex(wal_id) : null,
    fence: frame.fence,
    writer: typeof writer === 'string' ? writer : null,
    created_ms: typeof created === 'number' ? created : null,
  };
}

function reportEpisode(episode: EpisodeFold, state: string): ReportEpisode {
  const calls: ReportCall[] = [];
  for (const batch of episode.batches) {
    for (const call of batch.calls) {
      const terminal = call.terminals[0];
      const reason = terminal?.reason ?? null;
      calls.push({
        tool_call_id: call.tool_call_id,
        name: call.name,
        class: call.class,
        why: reason === null ? CLASS_WORDS[call.class].meaning : `${CLASS_WORDS[call.class].meaning} Recorded reason: ${reason}.`,
        outcome: terminal?.outcome ?? null,
        is_error: terminal?.is_error ?? false,
        dispatched_at_ms: call.dispatched_at_ms,
        finished_at_ms: call.finished_at_ms,
      });
    }
  }
  const timing = episodeTiming(episode);
  return {
    episode: episode.episode,
    run_id: episode.run_id,
    state,
    finish_reason: episode.finished?.reason ?? null,
    steps: episode.steps.length,
    failed_attempts: timing.failed_attempts,
    tokens: timing.tokens,
    first_ms: timing.first_ms,
    last_ms: timing.last_ms,
    calls,
  };
}

function totalsOf(fold: SessionFold, episodes: ReportEpisode[]): SupportReport['totals'] {
  const firsts = episodes.map((episode) => episode.first_ms).filter((ms): ms is number => ms !== null);
  const lasts = episodes.map((episode) => episode.last_ms).filter((ms): ms is number => ms !== null);
  return {
    tokens: sumUsage(fold.episodes.flatMap((episode) => episode.steps.map((step) => step.usage))),
    failed_attempts: episodes.reduce((sum, episode) => sum + episode.failed_attempts, 0),
    first_ms: smallest(firsts),
    last_ms: largest(lasts),
    times_recorded: firsts.length > 0,
  };
}

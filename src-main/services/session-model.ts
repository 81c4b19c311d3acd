// One session as the app sees it: its tailer, and the views derived from the fold (summary, timeline,
// transcript, search), rebuilt only when new frames arrived. Read-only: actions go through actions.ts.
import fs from 'node:fs';
import type {
  LeaseView,
  RecordDetail,
  RowList,
  RowPage,
  RowTypes,
  SearchResult,
  SessionDetail,
  SessionStatus,
  SessionSummary,
  TranscriptRow,
} from '../../src-shared/ipc.js';
import {
  PAGE_ROWS_MAX,
  RECORD_HEX_BYTES_MAX,
  RECORD_PAYLOAD_CHARS_MAX,
  SEARCH_MATCHES_MAX,
  SEARCH_QUERY_CHARS_MAX,
} from '../../src-shared/ipc.js';
import { toJsonValue } from '../../src-shared/json.js';
import type { CallClass, JsonValue, RecoveryEntry, RecoveryPlan, RunSignal, SessionFold } from '../../src-shared/replay.js';
import type { WalTarget } from '../engine/inspect.js';
import { checkFrameAt, decodeBody } from '../engine/frame-codec.js';
import { probeLease } from '../engine/lease.js';
import { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES } from '../engine/limits.js';
import { hex } from '../engine/reader.js';
import { planResume } from '../replay/plan.js';
import { refusedPlan } from '../replay/report.js';
import { walPayloadReader } from '../replay/payloads.js';
import { RecoveryLog } from '../replay/recoveries.js';
import { episodeWord, runSignal } from '../replay/signals.js';
import { checkProviderValid, renderSessionRequest } from '../replay/transcript.js';
import { SessionTailer, type TailProgress, type TailUpdate } from './session-tailer.js';
import { buildTimeline, buildTranscript, type Timeline } from './timeline.js';

/** Recoveries a session summary carries (the most recent); the WAL keeps them all. */
const RECOVERIES_LISTED_MAX = 50;

interface Views {
  fold: SessionFold;
  timeline: Timeline;
  transcript: TranscriptRow[];
  transcript_valid: boolean;
  resume: RecoveryPlan;
  run: RunSignal;
  recoveries: RecoveryEntry[];
  /** Lowercased row texts for search, built on the first search. */
  search_text: Partial<Record<RowList, string[]>>;
}

export class SessionModel {
  readonly tailer: SessionTailer;
  private views: Views | null = null;
  private lease_: LeaseView = { state: 'absent' };

  constructor(
    readonly key: string,
    readonly target: WalTarget,
  ) {
    this.tailer = new SessionTailer(target);
  }

  get lease(): LeaseView {
    return this.lease_;
  }

  get read_only(): boolean {
    return this.target.is_export;
  }

  /** Re-probes the lease; true when live/free changed. Exports are never probed: they have no writer. */
  probeLease(): boolean {
    if (this.target.is_export || this.target.session_dir === null) return false;
    const before = this.lease_.state;
    this.lease_ = probeLease(this.target.session_dir);
    return before !== this.lease_.state;
  }

  refresh(on_progress?: (progress: TailProgress) => void): TailUpdate {
    this.probeLease();
    const update = this.tailer.refresh(on_progress);
    if (update.frames_added > 0 || update.restarted) this.views = null;
    return update;
  }

  private derived(): Views {
    if (this.views !== null) return this.views;
    const fold = this.tailer.fold();
    const read = this.tailer.read;
    const payloads = walPayloadReader(this.target.wal_path);
    // A compaction view that no longer assembles leaves nothing to render: that is no valid request either.
    const next_request = renderSessionRequest(fold, payloads);
    const messages = next_request.messages.map((rendered) => rendered.message);
    const run = runSignal(fold, { torn_tail: read?.torn_tail ?? null, error: read?.error ?? null }, this.target.is_export);
    const timeline = buildTimeline(fold, payloads);
    markLastEpisode(timeline, fold, run);
    this.views = {
      fold,
      timeline,
      transcript: buildTranscript(messages),
      transcript_valid: next_request.problems.length === 0 && checkProviderValid(messages).valid,
      resume: read?.error ? refusedPlan(read.error) : planResume(fold),
      run,
      recoveries: this.recoveries(),
      search_text: {},
    };
    return this.views;
  }

  fold(): SessionFold {
    return this.derived().fold;
  }

  summary(): SessionSummary {
    const read = this.tailer.read;
    const views = read === null ? null : this.derived();
    const fold = views?.fold ?? null;
    const last = fold?.episodes.at(-1) ?? null;
    const class_counts: Partial<Record<CallClass, number>> = {};
    for (const episode of fold?.episodes ?? []) {
      for (const batch of episode.batches) for (const call of batch.calls) class_counts[call.class] = (class_counts[call.class] ?? 0) + 1;
    }
    const [status, status_detail] = views === null ? (['loading', 'reading the WAL'] as const) : this.status(views);
    return {
      key: this.key,
      session_id: this.target.session,
      status,
      status_detail,
      last_activity_ms: mtimeOf(this.target.wal_path),
      episodes: fold?.episodes.length ?? 0,
      records: read?.records ?? 0,
      last_seq: read?.last_seq ?? 0,
      size_bytes: read?.bytes ?? 0,
      episode_state: last?.state ?? null,
      finish_reason: last?.finished?.reason ?? null,
      class_counts,
      run: views?.run ?? null,
      recoveries: views?.recoveries.slice(-RECOVERIES_LISTED_MAX) ?? [],
    };
  }

  /** Every operator_action of the WAL with the records its action wrote (payloads re-read from disk). */
  private recoveries(): RecoveryEntry[] {
    const log = new RecoveryLog();
    const index = this.tailer.index;
    for (let at = 0; at < index.length; at++) {
      const type = index.typeName(at);
      const row = index.row(at);
      log.push({ seq: row.seq, type, fence: row.fence, payload: type === 'operator_action' ? this.payloadAt(at).payload : null });
    }
    return log.entries();
  }

  /** One frame's payload, re-read from disk and its digest re-checked. */
  private payloadAt(index: number): { bytes: Buffer; intact: boolean; payload: JsonValue } {
    const row = this.tailer.index.row(index);
    const bytes = readBytes(this.target.wal_path, row.offset, row.size_bytes);
    const intact = bytes.length === row.size_bytes && checkFrameAt(bytes, 0, bytes.length) === null;
    const decoded = bytes.length === row.size_bytes ? decodeBody(bytes.subarray(FRAME_HEADER_BYTES, row.size_bytes - FRAME_DIGEST_BYTES), true) : null;
    const payload = decoded?.kind === 'ok' && decoded.body.payload !== null ? toJsonValue(decoded.body.payload) : null;
    return { bytes, intact, payload };
  }

  private status(views: Views): [SessionStatus, string] {
    const read = this.tailer.read!;
    const durable = views.run.last_durable === null ? '' : `; last durable state: ${views.run.last_durable}`;
    if (read.error !== null) return ['refused', `${read.error.kind.replaceAll('_', ' ')}: ${read.error.message}${durable}`];
    if (this.lease_.state === 'live') {
      const holder = this.lease_.holder;
      return ['live', holder === null ? 'a live writer holds the lease' : `written by pid ${holder.pid} on ${holder.host}`];
    }
    if (read.torn_tail !== null) return ['torn_tail', `${read.torn_tail.bytes} bytes at offset ${read.torn_tail.offset} were never committed${durable}`];
    const plan = views.resume;
    switch (plan.action) {
      case 'wait_held':
        return ['paused_held', plan.message];
      case 'close_out':
      case 'cancel_close_out':
      case 'finalize':
        return ['needs_operator', plan.message];
      case 'none':
        if (views.run.status === 'finished_unconfirmed') return ['finished_unconfirmed', views.run.detail];
        return views.fold.episodes.length > 0 ? ['finished', plan.message] : ['idle', plan.message];
      default:
        return ['idle', plan.message];
    }
  }

  /** The header of the session view; the service adds the action choices (services/actions.ts). */
  detail(): Omit<SessionDetail, 'actions' | 'timing'> {
    const views = this.derived();
    const read = this.tailer.read;
    return {
      summary: this.summary(),
      wal_path: this.target.wal_path,
      wal_id: views.fold.wal_id,
      read_only: this.read_only,
      lease: this.lease_,
      integrity: { torn_tail: read?.torn_tail ?? null, in_progress_tail: read?.in_progress_tail ?? null, error: read?.error ?? null },
      digest_algorithms: read?.digest_algorithms ?? [],
      features: read?.features ?? [],
      rows: this.rowCounts(),
      resume: views.resume,
      queue: views.fold.queue.map((entry) => ({ submission_id: entry.submission_id, seq: entry.seq, state: entry.state, delivery: entry.delivery, title: entry.title })),
      transcript_valid: views.transcript_valid,
    };
  }

  rowCounts(): Record<RowList, number> {
    const views = this.derived();
    return { timeline: views.timeline.rows.length, records: this.tailer.index.length, transcript: views.transcript.length };
  }

  rows<L extends RowList>(list: L, start: number, count: number): RowPage<L> {
    const first = clampInt(start, 0, Number.MAX_SAFE_INTEGER);
    const size = clampInt(count, 0, PAGE_ROWS_MAX);
    const views = this.derived();
    const pick = (): RowTypes[RowList][] => {
      switch (list) {
        case 'timeline':
          return views.timeline.rows.slice(first, first + size);
        case 'transcript':
          return views.transcript.slice(first, first + size);
        default:
          return this.tailer.index.rows(first, size);
      }
    };
    return { key: this.key, list, start: first, total: this.rowCounts()[list], rows: pick() as RowTypes[L][] };
  }

  locateSeq(seq: number): number | null {
    return this.tailer.index.frameOfSeq(seq);
  }

  /** One frame re-read from disk: digest re-checked, payload decoded, raw bytes as hex. */
  record(index: number): RecordDetail | null {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.tailer.index.length) return null;
    const row = this.tailer.index.row(index);
    const read = this.payloadAt(index);
    const { bytes, intact } = read;
    let payload = read.payload;
    const payload_text = JSON.stringify(payload) ?? '';
    const payload_truncated = payload_text.length > RECORD_PAYLOAD_CHARS_MAX;
    if (payload_truncated) payload = `${payload_text.slice(0, RECORD_PAYLOAD_CHARS_MAX)}…`;
    const shown = bytes.subarray(0, RECORD_HEX_BYTES_MAX);
    const timeline_row = row.seq > 0 ? (this.derived().timeline.row_of_seq[row.seq] ?? -1) : -1;
    return {
      ...row,
      digest_ok: intact,
      payload,
      payload_truncated,
      hex: hex(shown),
      hex_truncated: bytes.length > shown.length,
      timeline_row: timeline_row < 0 ? null : timeline_row,
    };
  }

  search(list: RowList, query: string): SearchResult {
    const needle = query.slice(0, SEARCH_QUERY_CHARS_MAX).toLowerCase();
    const texts = this.searchTexts(list);
    const rows: number[] = [];
    let truncated = false;
    if (needle.length > 0) {
      for (let index = 0; index < texts.length; index++) {
        if (!texts[index]!.includes(needle)) continue;
        if (rows.length === SEARCH_MATCHES_MAX) {
          truncated = true;
          break;
        }
        rows.push(index);
      }
    }
    return { list, query: needle, rows, truncated };
  }

  private searchTexts(list: RowList): string[] {
    const views = this.derived();
    if (list === 'records') {
      // Records grow without rebuilding views: their text is cheap, so it is made per search.
      const index = this.tailer.index;
      const texts: string[] = [];
      for (let at = 0; at < index.length; at++) texts.push(`${index.typeName(at)} seq ${index.row(at).seq}`.toLowerCase());
      return texts;
    }
    const cached = views.search_text[list];
    if (cached !== undefined) return cached;
    const source = list === 'timeline' ? views.timeline.rows : views.transcript;
    const texts = source.map((row) => JSON.stringify(row).toLowerCase());
    views.search_text[list] = texts;
    return texts;
  }
}

/** The last episode's row says "cut short" or "open in this copy", with its last durable state, instead of the
 *  fold's "running" when nothing is running it. */
function markLastEpisode(timeline: Timeline, fold: SessionFold, run: RunSignal): void {
  const last = fold.episodes.at(-1);
  if (last === undefined) return;
  const index = timeline.rows.findLastIndex((row) => row.kind === 'episode' && row.episode === last.episode);
  const row = timeline.rows[index];
  if (row?.kind !== 'episode') return;
  timeline.rows[index] = { ...row, state_word: episodeWord(last, run, last.episode), last_durable: run.last_durable };
}

function clampInt(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

function mtimeOf(file: string): number | null {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

function readBytes(file: string, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(file, 'r');
  try {
    let filled = 0;
    while (filled < length) {
      const count = fs.readSync(fd, buffer, filled, length - filled, offset + filled);
      if (count === 0) break;
      filled += count;
    }
    return buffer.subarray(0, filled);
  } finally {
    fs.closeSync(fd);
  }
}

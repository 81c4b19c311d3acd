// The runtime's one path to its WAL. Every record goes through the engine's writer (which gates it and raises
// the feature floor itself) and, once appended, into the replay library's fold of this session, so the
// runtime renders requests and plans recoveries from the same fold `walscope replay` computes — there is no
// second fold here. Units the caller sees (tool results, run terminals, acks) are held until the barrier that
// makes their records durable returns (contract §3 step 6).
import assert from 'node:assert/strict';
import type { JsonPayload, SessionFold } from '../../src-shared/replay.js';
import type { Payload, ReadFrame } from '../../src-shared/wal.js';
import { requiredFeatures, type WritableSession } from '../engine/index.js';
import { SessionFolder } from '../replay/fold.js';
import type { Sums } from '../replay/sums.js';
import type { PayloadReader } from '../replay/payloads.js';
import { walPayloadReader, withPayloadPass } from '../recovery/payloads.js';
import { renderSessionRequest } from '../replay/transcript.js';
import type { Plants } from './plants.js';

/** Something the caller saw: it must never be a record that resume reports as lost. */
export interface VisibleUnit {
  kind: 'tool_result' | 'run_finished' | 'ack';
  seq: number;
  type: string;
  detail: string;
}

export interface RuntimeObserver {
  /** A barrier returned: every record up to durable_seq survives any crash from now on. */
  barrier?(wal_path: string, durable_seq: number, size_bytes: number): void;
  visible?(unit: VisibleUnit): void;
  /** A request is about to go to the model. */
  request?(run_id: string, step_id: number, messages: readonly JsonPayload[]): void;
}

/** What a session carries across processes besides the fold: the highest compaction notice number (the next
 *  one continues the count). Runner tags and queued requests come from the fold. Rebuilt from the WAL's frames
 *  on open, kept current by every append. */
export interface SessionMemory {
  notice_seq_max: number;
}

export function emptyMemory(): SessionMemory {
  return { notice_seq_max: 0 };
}

export class Journal {
  private readonly pending_visible: VisibleUnit[] = [];
  private last_fold: SessionFold | null = null;

  constructor(
    readonly session: WritableSession,
    private readonly folder: SessionFolder,
    private readonly memory: SessionMemory,
    private readonly observer: RuntimeObserver,
    private readonly plants: Plants,
  ) {}

  get session_id(): string {
    return this.session.session_id;
  }

  get epoch(): number {
    return this.session.lease.epoch;
  }

  /** Appends one record (durable at the next barrier) and folds it. Returns its seq. */
  append(type: string, payload: Payload): number {
    const writer = this.session.writer;
    const appended = writer.append(type, payload);
    const features = requiredFeatures(type, payload);
    const frame: ReadFrame = {
      offset: appended.offset,
      size_bytes: appended.size_bytes,
      digest_algorithm: 'sha256',
      ver: features.length > 0 ? 3 : 2,
      seq: appended.seq,
      fence: writer.fence,
      type,
      features,
      payload,
    };
    this.folder.push(frame);
    remember(this.memory, type, appended.seq, payload);
    return appended.seq;
  }

  /** Makes everything appended durable, then lets the caller see what waited on it. */
  barrier(): void {
    const writer = this.session.writer;
    writer.barrier();
    assert.equal(writer.durable_seq, writer.last_seq, 'a barrier covers every appended record');
    this.observer.barrier?.(writer.path, writer.durable_seq, writer.size_bytes);
    for (const unit of this.pending_visible.splice(0)) this.observer.visible?.(unit);
  }

  /** The caller sees `unit` once its record is durable (at once only under the planted bug). */
  show(unit: VisibleUnit): void {
    if (this.plants.visible_before_barrier === true) this.observer.visible?.(unit);
    else this.pending_visible.push(unit);
  }

  request(run_id: string, step_id: number, messages: readonly JsonPayload[]): void {
    this.observer.request?.(run_id, step_id, messages);
  }

  /** Payloads read back from the WAL (tool outputs stay on disk; the fold keeps where they are), through the
   *  session's own FileIO. */
  get payloads(): PayloadReader {
    return walPayloadReader(this.session.writer.path, this.session.writer.io);
  }

  /** The fold so far. Each snapshot is made from the last one (SessionFolder.snapshotSince): the episodes and
   *  steps no append reached are shared, so a step of a long run costs what it adds, not the whole fold. */
  fold(): SessionFold {
    this.last_fold = this.folder.snapshotSince(this.last_fold).fold;
    return this.last_fold;
  }

  /** What the fold's snapshots derived, taken on from one snapshot to the next (the folder's store). */
  get sums(): Sums {
    return this.folder.sums;
  }

  /** The session's next request as the library renders it, every output read back through one open file. */
  renderRequest(): ReturnType<typeof renderSessionRequest> {
    const writer = this.session.writer;
    return withPayloadPass(writer.path, (payloads) => renderSessionRequest(this.fold(), payloads, this.sums), writer.io);
  }

  nextTag(): number {
    return this.folder.next_tag;
  }

  nextNoticeSeq(): number {
    return this.memory.notice_seq_max + 1;
  }
}

/** Takes in what a record (read from the WAL, its payload as the fold keeps it, or just appended) adds to the
 *  session's memory. */
export function remember(memory: SessionMemory, type: string, seq: number, payload: Payload | JsonPayload | null): void {
  if (payload === null) return;
  const notice = payload['notice_seq'];
  if (type === 'compaction_notice' && typeof notice === 'number') memory.notice_seq_max = Math.max(memory.notice_seq_max, notice);
  // A successor lineage carries the count on from the one it retired (wal-format §11): numbers never repeat.
  const carried = payload['next_notice_seq'];
  if (seq === 0 && typeof carried === 'number') memory.notice_seq_max = Math.max(memory.notice_seq_max, carried - 1);
}

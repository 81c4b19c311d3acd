// One session as the app sees it: its tailer, and the views derived from the fold (summary, timeline,
// transcript, search), remade only when new frames arrived and then only for the episodes they reached.
// Whatever goes wrong reading or folding one session (an I/O error, a fold that throws, a folder with no WAL)
// stays in this session: it shows as the session's `failure`, never as an exception out of the service.
// Read-only: actions go through actions.ts.
import type {
  FilteredTimeline,
  LeaseView,
  OutputPage,
  RecordDetail,
  RowList,
  RowPage,
  RowTypes,
  SearchResult,
  SessionDetail,
  SessionChanges,
  SessionTail,
  SessionSummary,
  StepContext,
} from '../../src-shared/ipc.js';
import { EVERYTHING_CHANGED, PAGE_ROWS_MAX } from '../../src-shared/ipc.js';
import type { TimelineFilter } from '../../src-shared/timeline-filter.js';
import { formatBytes } from '../../src-shared/format.js';
import type { Cost, RunSignal, SessionFold } from '../../src-shared/replay.js';
import type { WalErrorInfo } from '../../src-shared/wal.js';
import {
  archiveIndexPath, archivePath, readArchive, type ArchiveError, describe, type WalTarget,
  MemberReads, probeLease, ioError, type FileIO, type FileStat, nodeFileIO, type LeaseProbe, type ReadResult,
} from '../engine/index.js';
import { SessionFolder } from '../replay/fold.js';
import type { PayloadReader } from '../replay/payloads.js';
import { withPayloadPass } from '../recovery/payloads.js';
import { archiveRefusal, liveRun, liveWords, refusedRun, runSignal } from '../replay/signals.js';
import { planFor } from '../replay/plan.js';
import { refusedPlan } from '../replay/report.js';
import { isRefusedStatus } from '../../src-shared/status.js';
import { stepContext } from '../views/context.js';
import { sessionChanges, type Shown } from '../views/session-changes.js';
import { clampInt, type Searched } from '../views/session-search.js';
import { Residency } from './session-residency.js';
import { findTail, type FoundTail } from './session-tail.js';
import type { SessionTailer, ReadPlan, TailProgress, TailUpdate } from './session-tailer.js';
import { listLength, type SessionViews } from '../views/session-views.js';
import type { IncrementalSums } from '../views/incremental-sums.js';

/** Recoveries a session summary carries (the most recent); the WAL keeps them all. */
const RECOVERIES_LISTED_MAX = 50;

/** Where a session is in its life. `unread`: listed, nothing read yet (the list shows it as being read).
 *  `resident`: read, its fold and views held (`summary_only`: read for its summary alone, and released once that
 *  is made). `released`: only the summary kept, to bound memory (a root holds thousands of sessions; only the ones
 *  on screen stay resident). `stale`: released, and its file or lease changed since the summary was made, so the
 *  next refresh reads the WAL afresh. */
type Lifecycle = { readonly state: 'unread' } | { readonly state: 'resident'; readonly summary_only: boolean } | { readonly state: 'released' } | { readonly state: 'stale' };

export class SessionModel {
  /** Made on first use and dropped on release: thousands of listed sessions hold no index or fold. */
  private residency_: Residency | null = null;
  private summary_: SessionSummary | null = null;
  private lease_: LeaseView = { state: 'absent' };
  /** What made this session unreadable beyond what the reader reports (an exception while reading, folding
   *  or laying out); cleared by the next refresh that succeeds. */
  private failure_: WalErrorInfo | null = null;
  private life: Lifecycle = { state: 'unread' };
  /** The tail found from the end while the read from the start is under way (session-tail.ts); undefined:
   *  not looked for since the last complete read; null: looked for, nothing to show (an I/O error). */
  private tail_: FoundTail | null | undefined = undefined;
  /** The archive's verdict, kept while the archive and its index are the same size and mtime. */
  private archive_check: { stamp: string; error: ArchiveError | null } | null = null;
  /** The sealed members its histories read, kept while the archive is unchanged. */
  readonly member_reads = new MemberReads();

  /** `io`: the file system seam its reads of the WAL and probes of the lease go through (tests count them). */
  constructor(
    readonly key: string,
    readonly target: WalTarget,
    private readonly io: FileIO = nodeFileIO,
  ) {}

  private get residency(): Residency {
    this.residency_ ??= new Residency(this.target, this.io, (read) => this.counted(read));
    return this.residency_;
  }

  /** What the session's snapshots derived: replay's functions of `fold()` take their sums from it. */
  get sums(): IncrementalSums {
    return this.residency.sums;
  }

  get tailer(): SessionTailer {
    return this.residency.tailer;
  }

  /** The read so far, if one was made: looked at without starting one. */
  private get read(): ReadResult | null {
    return this.residency_?.tailer.read ?? null;
  }

  /** False until the first refresh: the list shows the session as still being read. */
  get is_read(): boolean {
    return this.life.state !== 'unread';
  }

  /** Unread, or released with a summary that no longer holds. */
  get needs_read(): boolean {
    return this.life.state === 'unread' || this.life.state === 'stale';
  }

  get is_resident(): boolean {
    return this.life.state === 'resident';
  }

  private get is_released(): boolean {
    return this.life.state === 'released' || this.life.state === 'stale';
  }

  /** Keeps the summary, drops everything else. */
  release(): void {
    if (!this.is_resident) return;
    this.summary();
    this.life = { state: 'released' };
    this.dropResidency();
    this.tail_ = undefined;
  }

  /** Drops the read, the views and everything derived from them: the next look reads and derives afresh. */
  private dropResidency(): void {
    this.residency_ = null;
  }

  /** Finds the end of the WAL from its end, once per read from the start: the service asks for it before that
   *  read's first slice, so a big session shows its tail at once. A sealed lineage (an archive member) has none. */
  findTail(): void {
    if (this.tail_ !== undefined || this.target.member !== undefined) return;
    try {
      this.tail_ = findTail(this.target, this.read?.valid_bytes ?? 0, this.payloads());
    } catch (error) {
      // Only a head start: the read from the start says what is wrong with the file.
      process.emitWarning(`walscope: cannot read the end of ${this.target.wal_path}: ${describe(error)}`);
      this.tail_ = null;
    }
  }

  /** The provisional tail while the read from the start is under way; null once it is complete. */
  tail(): SessionTail | null {
    if (this.is_resident || this.tail_ === undefined || this.tail_ === null) return null;
    return { key: this.key, head_bytes_read: this.read?.valid_bytes ?? 0, ...this.tail_ };
  }

  /** Takes a summary made earlier (the summary cache) instead of reading the WAL; the session stays released. */
  adopt(summary: SessionSummary): void {
    // The cache is keyed on the WAL alone, and never holds an archive's refusal (summaryExtent): the archive is
    // judged again here, as verify would judge it now.
    const archive = this.archiveError();
    const run = archive === null || summary.run === null ? summary.run : refusedRun(summary.run, archiveRefusal(archive), this.target.is_export);
    const laid = run === null ? {} : { status: run.status, status_detail: run.detail, attention: run.attention, run };
    this.summary_ = { ...summary, key: this.key, last_activity_ms: lookedAt(this.target.wal_path, this.io)?.mtime_ms ?? null, ...laid };
    this.life = { state: 'released' };
  }

  /** The extent of the file this session's summary was made from, when that summary may be kept in the
   *  summary cache: not while a writer is live (it changes under us), not after an I/O error (it may pass). */
  summaryExtent(): { size_bytes: number; verified_end: number } | null {
    const read = this.read;
    if (!this.is_resident || read === null || this.failure_ !== null || read.error?.kind === 'io') return null;
    if (this.lease_.state === 'live' || read.in_progress_tail !== null || this.archiveError() !== null) return null;
    return { size_bytes: read.bytes, verified_end: read.valid_bytes };
  }

  /** The file changed under a released session: its summary is re-made by the next refresh. */
  markStale(): void {
    if (this.is_released) this.life = { state: 'stale' };
  }

  get failure(): WalErrorInfo | null {
    return this.failure_;
  }

  /** Tool outputs and other payloads read back from disk (cache misses) since this model was made: what
   *  showing the session cost beyond the read itself. */
  payloads_read = 0;

  /** Row texts the timeline and transcript searches made (not found kept), for the tests that count them. */
  get search_texts_made(): number {
    return this.residency.builder.search_texts.made;
  }

  /** Rows the Timeline filter's last walk went over, for the tests that count them. */
  get filter_rows_walked(): number {
    return this.residency.searches.filter_rows_walked;
  }

  /** Episodes whose fold copy or views were rebuilt in this residency: the work appends cost. */
  get episodes_rebuilt(): { fold: number; views: number } {
    return { fold: this.tailer.episodes_rebuilt, views: this.residency.builder.episodes_rebuilt };
  }

  /** Episodes added to the session's sums of class counts and tokens (taken on across builds): what a build cost. */
  get episodes_summed(): number {
    return this.residency.builder.class_totals.episodes_added + this.residency.builder.token_totals.episodes_added;
  }

  /** Inside those episodes, the parts (steps, batches, steers, approvals) the fold copied anew and the steps
   *  whose timeline rows were laid out anew: an append to a long open episode costs the parts it changed. */
  get parts_rebuilt(): { copied: number; steps_laid_out: number } {
    return { copied: this.tailer.parts_copied, steps_laid_out: this.residency.builder.step_rows.steps_laid_out };
  }

  /** The request's turns checked for provider validity, over this residency's views. */
  get turns_checked(): number {
    return this.residency.builder.turns_checked;
  }

  get lease(): LeaseView {
    return this.lease_;
  }

  get read_only(): boolean {
    return this.target.is_export;
  }

  /** Re-probes the lease; true when live/free changed. Exports are never probed: they have no writer. */
  probeLease(): boolean {
    const before = this.lease_.state;
    this.lookAtLease();
    return before !== this.lease_.state;
  }

  /** The lease as probed now; null when it is not probed (an export) or cannot be read (kept as the failure). */
  private lookAtLease(): LeaseProbe | null {
    if (this.target.is_export || this.target.session_dir === null) return null;
    const before = this.lease_.state;
    let probed: LeaseProbe | null = null;
    try {
      probed = this.lease_ = probeLease(this.target.session_dir, this.io);
    } catch (error) {
      this.lease_ = { state: 'absent' };
      this.failure_ ??= ioError(`cannot read the lease of ${this.target.session_dir}: ${describe(error)}`);
    }
    // Only live or not changes a status: a cached summary stays good when the lease is merely found free.
    if ((before === 'live') !== (this.lease_.state === 'live')) {
      if (this.is_released) this.life = { state: 'stale' };
      else this.summary_ = null;
    }
    return probed;
  }

  /** Reads what was appended, the lease looked at once for it (the read takes that probe, not one of its own).
   *  Never throws: a failure is kept as this session's `failure` and the session's views start over from an
   *  empty fold, so the next refresh reads it afresh. */
  refresh(on_progress?: (progress: TailProgress) => void, plan: ReadPlan = {}, summary_only = false): TailUpdate {
    const failed_before = this.failure_ !== null;
    this.failure_ = null;
    const lease = this.lookAtLease();
    let update: TailUpdate;
    try {
      update = this.tailer.refresh(on_progress, lease === null ? plan : { ...plan, lease });
      // A slice short of the end: the session is still being read, and its last summary (if any) stands.
      if (!update.complete) return update;
      this.residency.reread(update.restarted);
      if (update.frames_added > 0 || update.restarted || failed_before) this.residency.views = null;
      this.settle(summary_only);
      // The real rows are here: the provisional tail gives way to them.
      this.tail_ = undefined;
      this.derived();
    } catch (error) {
      this.settle(summary_only);
      this.tail_ = undefined;
      this.fail(error);
      update = { frames_added: 0, restarted: true, complete: true };
    }
    this.summary_ = null;
    return update;
  }

  private settle(summary_only: boolean): void {
    this.life = { state: 'resident', summary_only };
  }

  private fail(error: unknown): void {
    this.failure_ = ioError(`cannot show ${this.target.wal_path}: ${describe(error)}`);
    this.dropResidency();
  }

  private derived(): SessionViews {
    const residency = this.residency;
    if (residency.views !== null) return residency.views;
    const { tailer } = residency;
    const fold = this.failure_ !== null ? new SessionFolder().snapshot() : this.life.state === 'resident' && this.life.summary_only ? tailer.finalFold() : tailer.fold();
    const read = this.failure_ !== null ? null : tailer.read;
    const end = { torn_tail: read?.torn_tail ?? null, error: this.withMissingWal(this.failure_ ?? read?.error ?? null) };
    const recoveries = this.failure_ !== null ? [] : residency.records.recoveries();
    const resume = end.error !== null ? refusedPlan() : planFor(fold, 'resume', residency.sums);
    // The lease and the archive change without the WAL: the summary lays them over this (`status`).
    const run = runSignal(fold, { end, is_export: this.target.is_export, resume_action: resume.action, resume_message: resume.message, recoveries, live: null }, residency.sums);
    residency.views = residency.builder.build(fold, residency.payloads(), { run, recoveries, resume });
    return residency.views;
  }

  /** An I/O refusal of a session folder that holds no `wal`, said in words. */
  private withMissingWal(error: WalErrorInfo | null): WalErrorInfo | null {
    const missing = error?.kind === 'io' ? missingWalMessage(this.target, this.io) : null;
    return missing === null ? error : { ...error!, message: missing };
  }

  /** Tool outputs read back from this session's WAL (the fold keeps only where they are), the last few kept. */
  payloads(): PayloadReader {
    return this.residency.payloads();
  }

  /** One step's request as the model saw it (the Context view), its payloads read through one open file: it
   *  reads every message of the conversation so far, in file order, and a read apiece (an open, a read and a
   *  close) was ~60 µs of a million-record session's ~700,000. */
  context(episode: number | null, step_id: number | null): StepContext {
    return withPayloadPass(this.target.wal_path, (read) => stepContext(this.fold(), this.counted(read), episode, step_id, this.sums), this.io);
  }

  /** `read`, each read counted in `payloads_read`. */
  private counted(read: PayloadReader): PayloadReader {
    return (offset, projection) => {
      this.payloads_read += 1;
      return read(offset, projection);
    };
  }

  /** What `verify` refuses this session's archive for (its headers read from offset 0, the index not trusted),
   *  or null: no archive, or one that reads. A sealed lineage or a bare file has no archive of its own. */
  private archiveError(): ArchiveError | null {
    const dir = this.target.session_dir;
    if (dir === null || this.target.member !== undefined) return null;
    const stamp = `${statStamp(archivePath(dir), this.io)}|${statStamp(archiveIndexPath(dir), this.io)}`;
    if (this.archive_check?.stamp !== stamp) {
      this.archive_check = { stamp, error: stamp === '-|-' ? null : readArchive(dir, { trust_index: false }).error };
    }
    return this.archive_check.error;
  }

  /** What verify refuses this session's archive for, or null (see `archiveError`). */
  get archive_error(): ArchiveError | null {
    return this.archiveError();
  }

  /** The reader's refusal, or this model's own failure. */
  private error(): WalErrorInfo | null {
    return this.failure_ ?? this.read?.error ?? null;
  }

  fold(): SessionFold {
    return this.derived().fold;
  }

  /** Numeric usage fields summed over every episode. */
  tokens(): Record<string, number> {
    return this.derived().tokens;
  }

  /** What every episode's steps cost, by the shipped price table. */
  cost(): Cost {
    return this.derived().cost;
  }

  /** The list's line for this session; kept until a refresh or a lease change makes it stale. */
  summary(): SessionSummary {
    this.summary_ ??= this.makeSummary();
    return this.summary_;
  }

  private makeSummary(): SessionSummary {
    const read = this.read;
    const views = this.life.state === 'unread' ? null : this.derived();
    const last = views?.fold.episodes.at(-1) ?? null;
    const run = views === null ? null : this.runNow(views.run);
    return {
      key: this.key,
      session_id: this.target.session,
      status: run?.status ?? 'loading',
      status_detail: run?.detail ?? 'reading the WAL',
      torn_tail: read?.torn_tail == null ? null : { offset: read.torn_tail.offset, bytes: read.torn_tail.bytes },
      attention: run?.attention ?? null,
      plan: views === null ? null : { action: views.resume.action, message: views.resume.message },
      last_activity_ms: lookedAt(this.target.wal_path, this.io)?.mtime_ms ?? null,
      episodes: views?.fold.episodes.length ?? 0,
      records: read?.records ?? 0,
      last_seq: read?.last_seq ?? 0,
      size_bytes: read?.bytes ?? sizeOf(this.target.wal_path, this.io),
      episode_state: last?.state ?? null,
      finish_reason: last?.finished?.reason ?? null,
      class_counts: views?.class_counts ?? {},
      run,
      recoveries: views?.recoveries.slice(-RECOVERIES_LISTED_MAX) ?? [],
    };
  }

  /** The WAL's run as it stands now: refused for its archive as verify refuses it, running while a writer holds
   *  the lease. */
  private runNow(run: RunSignal): RunSignal {
    const archive = this.archiveError();
    if (archive !== null && !isRefusedStatus(run.status)) return refusedRun(run, archiveRefusal(archive), this.target.is_export);
    return this.lease_.state === 'live' ? liveRun(run, liveWords(this.lease_.holder)) : run;
  }

  /** While the WAL is being read (first read, or again after a release): what is known so far. The records
   *  read so far can be paged; the timeline, transcript and plan come when the read completes. */
  private readingDetail(): Omit<SessionDetail, 'actions' | 'retire' | 'acknowledge' | 'timing' | 'tokens' | 'cost'> {
    const read = this.read;
    const done_bytes = read?.valid_bytes ?? 0;
    const total_bytes = sizeOf(this.target.wal_path, this.io);
    return {
      summary: { ...this.summary(), status: 'loading', status_detail: `reading the WAL: ${formatBytes(done_bytes)} of ${formatBytes(total_bytes)} (${percent(done_bytes, total_bytes)}); ${this.tail_ ? 'its last records, found from its end, are shown meanwhile, not yet verified in sequence' : 'records read so far can be browsed'}` },
      wal_path: this.target.wal_path,
      wal_id: null,
      read_only: this.read_only,
      lease: this.lease_,
      integrity: { torn_tail: null, in_progress_tail: null, error: null },
      digest_algorithms: read?.digest_algorithms ?? [],
      features: read?.features ?? [],
      rows: { timeline: 0, records: this.tailer.index.length, transcript: 0 },
      resume: {
        kind: 'resume',
        action: 'none',
        episode: null,
        message: 'the WAL is still being read: the plan comes when it is read to its end',
        replayed: { messages: 0, model_steps: 0, tool_results: 0 },
        redone: [],
        indeterminate: [],
        records: [],
      },
      queue: [],
      transcript_valid: true,
      after_damage: null,
      filter_choices: { tools: [], record_types: [] },
    };
  }

  /** The header of the session view; the service adds the action choices (services/actions.ts). */
  detail(): Omit<SessionDetail, 'actions' | 'retire' | 'acknowledge' | 'timing' | 'tokens' | 'cost'> {
    if (!this.is_resident) return this.readingDetail();
    const views = this.derived();
    const read = this.failure_ === null ? this.read : null;
    return {
      summary: this.summary(),
      wal_path: this.target.wal_path,
      wal_id: views.fold.wal_id,
      read_only: this.read_only,
      lease: this.lease_,
      integrity: { torn_tail: read?.torn_tail ?? null, in_progress_tail: read?.in_progress_tail ?? null, error: this.error() },
      digest_algorithms: read?.digest_algorithms ?? [],
      features: read?.features ?? [],
      rows: this.rowCounts(),
      resume: views.resume,
      queue: views.fold.queue.map((entry) => ({ submission_id: entry.submission_id, seq: entry.seq, state: entry.state, delivery: entry.delivery, title: entry.title })),
      transcript_valid: views.transcriptValid(),
      after_damage: this.residency.records.afterDamage(this.damage())?.view ?? null,
      filter_choices: this.residency.filter_choices.of(views.fold.episodes, this.tailer.index.typeNames()),
    };
  }

  /** The read's refusal when it is a damage past which frames may be listed (SessionRecords.afterDamage):
   *  looked past in full reads only. */
  private damage(): WalErrorInfo | null {
    return this.is_resident && this.failure_ === null ? (this.read?.error ?? null) : null;
  }

  rowCounts(): Record<RowList, number> {
    if (!this.is_resident) return { timeline: 0, records: this.tailer.index.length, transcript: 0 };
    const views = this.derived();
    return { timeline: listLength(views, 'timeline'), records: this.residency.records.count(this.damage()), transcript: listLength(views, 'transcript') };
  }

  /** What changed since the last update said (SessionChanges), this one kept for the next: asked once per update. */
  changesSinceShown(): SessionChanges {
    if (!this.is_resident) return EVERYTHING_CHANGED;
    const views = this.derived();
    const verified = this.tailer.index.length;
    const now: Shown = { views, records: { verified, listed: this.residency.records.count(this.damage()) } };
    const before = this.residency.shown;
    this.residency.shown = now;
    const changes = before === null || this.failure_ !== null ? null : this.tailer.changesAgainst(before.views.fold);
    return sessionChanges(before, now, changes, this.residency.builder.step_rows);
  }

  rows<L extends RowList>(list: L, start: number, count: number): RowPage<L> {
    const first = clampInt(start, 0, Number.MAX_SAFE_INTEGER);
    const size = clampInt(count, 0, PAGE_ROWS_MAX);
    const pick = (): RowTypes[RowList][] => {
      if (list === 'records') return this.residency.records.rows(first, size, this.damage());
      if (!this.is_resident) return [];
      return list === 'timeline' ? this.derived().timelineRows(first, size) : this.derived().transcript(first, size);
    };
    return { key: this.key, list, start: first, total: this.rowCounts()[list], rows: pick() as RowTypes[L][] };
  }

  locateSeq(seq: number): number | null {
    return this.tailer.index.frameOfSeq(seq);
  }

  /** One frame re-read from disk: digest re-checked, payload decoded, raw bytes as hex. */
  record(index: number): RecordDetail | null {
    return this.residency.records.record(index, this.damage(), this.is_resident ? (seq) => this.derived().timelineRowOf(seq) : null);
  }

  /** Rows of the output of the tool_result at `seq`; null when no record has that seq. */
  output(seq: number, start: number, count: number): OutputPage | null {
    return this.residency.records.output(seq, start, count);
  }

  /** A search of `list` (a records search reads the WAL whether or not the session is resident). */
  search(list: RowList, query: string, filter: TimelineFilter): SearchResult {
    return this.residency.searches.search(list, query, filter, this.searched());
  }

  /** A window of the timeline's rows `filter` keeps, its walk taken on by one step first. */
  filterTimeline(filter: TimelineFilter, start: number, count: number): FilteredTimeline {
    return this.residency.searches.filterTimeline(this.key, filter, start, count, this.searched());
  }

  private searched(): Searched {
    return { views: this.is_resident ? this.derived() : null, index: this.tailer.index, search_texts: this.residency.builder.search_texts };
  }
}

function missingWalMessage(target: WalTarget, io: FileIO): string | null {
  if (lookedAt(target.wal_path, io) !== null) return null;
  return `the session folder holds no "wal" file yet (${target.wal_path}): a writer that stopped before creating it, or a copy still in progress`;
}

function percent(done: number, total: number): string {
  return `${total === 0 ? 100 : Math.floor((100 * done) / total)} %`;
}

/** What `io.stat` says of `file`; null when nothing is there or it cannot be looked at (the read says why). */
function lookedAt(file: string, io: FileIO): FileStat | null {
  try {
    return io.stat(file);
  } catch {
    return null;
  }
}

function sizeOf(file: string, io: FileIO): number {
  return lookedAt(file, io)?.size_bytes ?? 0;
}

/** Size and mtime of a file, or "-" when there is none. */
function statStamp(file: string, io: FileIO): string {
  const found = lookedAt(file, io);
  return found === null ? '-' : `${found.size_bytes}:${found.mtime_ms}`;
}

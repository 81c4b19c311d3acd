// The session view's rows: a fold flattened into episodes → steps → batches → calls, in WAL order, so the
// renderer can window it. Big values are cut to previews here (the record view has the whole payload), which
// bounds what one page of rows can weigh.
import assert from 'node:assert/strict';
import { appendAll } from '../../src-shared/arrays.js';
import { noteSummary } from '../../src-shared/compaction.js';
import type { BatchHead, CallRow, TimelineRow, TranscriptRow } from '../../src-shared/ipc.js';
import type { Anomaly, ApprovalFold, BatchFold, CallFold, EpisodeFold, JsonPayload, JsonValue, RecordRef, RecoveryEntry, SessionFold, StepFold } from '../../src-shared/replay.js';
import { actionWords } from '../../src-shared/format.js';
import { argsGist, IMAGE_DATA_CHARS_MAX, messageWords, outputLine, shownBlocks, shownOutput, type BlockLimits, type ReadText, type ShownBlock } from '../../src-shared/blocks.js';
import { jsonShapeCut, JsonTextCut } from '../engine/index.js';
import { stepCostIn } from '../replay/cost.js';
import { EpisodeIndex, sharedStepsWithBatches } from '../replay/episode-index.js';
import { intentArgs, stepMessage, terminalOutput, type PayloadProjection, type PayloadReader } from '../replay/payloads.js';
import { episodeTiming } from '../replay/timing.js';
import { EpisodeSum, IncrementalSums } from './incremental-sums.js';
import { textOfJsonHead, valuePreview } from './value-preview.js';

/** A row's text is cut past this; the record view shows the rest. */
export const ROW_TEXT_CHARS_MAX = 4_000;
/** args, outputs and message content longer than this (as JSON) are cut to a preview about this long. */
export const ROW_VALUE_CHARS_MAX = 8_000;

export interface Timeline {
  rows: TimelineRow[];
  /** The first timeline row that shows record seq k, at [k]; -1 where none does. */
  row_of_seq: Int32Array;
}

/** The whole timeline at once (tests, and callers without a live session): the episodes' rows, then the rows
 *  of records outside any episode and of session anomalies. Tool outputs are read back through `payloads` (the
 *  fold keeps where they are, not what). */
export function buildTimeline(fold: SessionFold, payloads: PayloadReader, sums = new IncrementalSums()): Timeline {
  const rows: TimelineRow[] = [];
  const steps = new StepRowCache(sums);
  for (const episode of fold.episodes) appendAll(rows, episodeRows(episode, steps).map((row) => steps.shown(row, payloads)));
  appendAll(rows, outsideRows(fold.outside, []));
  appendAll(rows, sessionAnomalyRows(fold.anomalies));
  const row_of_seq = new Int32Array(fold.last_seq + 1).fill(-1);
  rows.forEach((row, index) => {
    for (const seq of row.seqs) if (seq > 0 && seq <= fold.last_seq && row_of_seq[seq] === -1) row_of_seq[seq] = index;
  });
  return { rows, row_of_seq };
}

/** Rows of the records outside any episode; an operator_action says what it recorded (`recoveries`, by seq). */
export function outsideRows(refs: readonly RecordRef[], recoveries: readonly RecoveryEntry[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const by_seq = new Map(recoveries.map((entry) => [entry.seq, entry]));
  for (const ref of refs) {
    if (ref.seq === 0) continue;
    const entry = ref.type === 'operator_action' ? by_seq.get(ref.seq) : undefined;
    const summary = entry === undefined ? `${ref.type} outside any episode` : `${actionWords(entry)}, by ${entry.operator} via ${entry.via}: ${entry.reason}`;
    rows.push({ kind: 'event', episode: null, type: ref.type, summary, seqs: [ref.seq] });
  }
  return rows;
}

export function sessionAnomalyRows(anomalies: readonly Anomaly[]): TimelineRow[] {
  return anomalies.map((found) => ({ kind: 'anomaly', episode: null, anomaly: found.kind, message: found.message, seqs: [...found.seqs] }));
}

type Keyed = { key: number; order: number; rows: TimelineRow[] };

/** The step and call rows whose text, args or output is still on disk, with the fold part that says where: a
 *  part, not a closure reading it (a closure and its context cost ~120 bytes a row, ~40 MB of a million
 *  records' timeline). Kept by the StepRowCache that laid the rows out, so it lives as long as the session's
 *  views. */
class UnreadRows {
  readonly steps = new WeakMap<TimelineRow, StepFold>();
  readonly calls = new WeakMap<TimelineRow, CallFold>();

  /** `row` as it is shown: a step's text, a call's args and output preview read back from their records. Rows
   *  are laid out without them (a 1 GiB session's outputs are most of its bytes, a million records' assistant
   *  messages and args most of what they weigh once built); only the rows of a page read theirs. */
  shown(row: TimelineRow, payloads: PayloadReader): TimelineRow {
    const step = this.steps.get(row);
    if (step !== undefined && row.kind === 'step') return { ...row, blocks: messageBlocks(stepMessage(step, payloads)) };
    const call = this.calls.get(row);
    return call === undefined || row.kind !== 'call' ? row : shownCall(row, call, payloads);
  }
}

/** A row's seqs in a list of exactly their number: a list made by spreading or filtering keeps 17 slots or
 *  more (~100 bytes of empty slots a row, ~60 MB of a million records' timeline). */
function exactly<T>(list: T[]): T[] {
  return list.slice();
}

/** An episode's rows, call outputs unread (`StepRowCache.shown` reads them); `steps` keeps step rows across snapshots. */
export function episodeRows(episode: EpisodeFold, steps: StepRowCache): TimelineRow[] {
  const { lead: rows, entries, others, stepRows } = rowPlan(episode, steps);
  if (entries.sorted) mergeRows(rows, entries, others, stepRows);
  else for (const entry of [...stepKeyed(entries, stepRows), ...others].sort(byKey)) appendAll(rows, entry.rows);
  for (const found of episode.anomalies) rows.push(anomalyRow(episode.episode, found));
  return rows;
}

/** `episodeRows(episode, steps).slice(start, start + count)`, laying out only those rows when the steps' keys
 *  ascend (as a runtime writes them): a page of a long live episode's timeline costs the page and the episode's
 *  few other entries, not its every step. Laying out every row of a 100k-step episode to show 50 was ~100 ms and
 *  ~20 MB of garbage at every append while its timeline was on screen. */
export function episodeRowsPage(episode: EpisodeFold, steps: StepRowCache, start: number, count: number): TimelineRow[] {
  const { lead, entries, others, stepRows } = rowPlan(episode, steps);
  if (!entries.sorted) return episodeRows(episode, steps).slice(start, start + count);
  const end = start + count;
  const page = lead.slice(start, end);
  const merged_start = lead.length;
  const merged_end = merged_start + entries.rows + others.reduce((sum, other) => sum + other.rows.length, 0);
  if (end > merged_start && start < merged_end) appendAll(page, mergedSlice(entries, others, stepRows, Math.max(start, merged_start) - merged_start, Math.min(end, merged_end) - merged_start));
  for (let at = Math.max(start, merged_end); at < Math.min(end, merged_end + episode.anomalies.length); at++) page.push(anomalyRow(episode.episode, episode.anomalies[at - merged_end]!));
  return page;
}

/** How many of `episode`'s rows come before its first entry (a step, a batch of no step, a steer, an approval,
 *  an event) keyed `key` or more: all of them but the anomalies when `key` is Infinity. The entries keyed less
 *  keep their place when entries keyed `key` or more change, so these rows stay as they were (session-changes.ts).
 *  Steps whose keys do not ascend are not walked: then only the episode's head and input count. */
export function episodeRowsBefore(episode: EpisodeFold, steps: StepRowCache, key: number): number {
  const lead = 1 + asList(episode.input).length;
  const entries = steps.entries.of(episode, steps.sums);
  if (!entries.sorted) return lead;
  let low = 0;
  let high = entries.keys.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (entries.keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  // The other entries counted, not laid out, as `rowPlan` keys them (a step's key before an equal one).
  let rows = lead + (entries.starts[low] ?? entries.rows);
  const below = (seq: number | null | undefined) => (seq ?? Number.MAX_SAFE_INTEGER) < key;
  for (const batch of EpisodeIndex.of(episode, steps.sums).batches_without_step) if (below(batch.started_seq)) rows += batchRowCount(batch);
  for (const list of [episode.steers, episode.cancel_requests, episode.pauses, episode.resumes, episode.shown]) for (const entry of list) if (below(entry.seq)) rows += 1;
  for (const approval of episode.approvals) if (below(entryKey.approval(approval))) rows += 1;
  return rows + (episode.finished !== null && below(episode.finished.seq) ? 1 : 0);
}

/** Where an entry of an episode sorts among its rows (`stepKey` for a step): its first record. */
export const entryKey = {
  step: (step: StepFold): number => stepKey(step),
  approval: (approval: ApprovalFold): number => approval.requested_seq ?? approval.resolved_seq ?? approval.recorded_seq ?? Number.MAX_SAFE_INTEGER,
};

function anomalyRow(episode: number, found: Anomaly): TimelineRow {
  return { kind: 'anomaly', episode, anomaly: found.kind, message: found.message, seqs: [...found.seqs] };
}

/** An episode's rows in their three runs: the head and the input; the steps' rows merged by key with the others
 *  (batches of no step, steers, approvals, events), sorted; the anomalies. */
interface RowPlan {
  lead: TimelineRow[];
  entries: StepEntries;
  others: Keyed[];
  /** Step `index`'s rows, laid out when first asked for (StepRowCache). */
  stepRows: (index: number) => TimelineRow[];
}

function rowPlan(episode: EpisodeFold, steps: StepRowCache): RowPlan {
  const n = episode.episode;
  // The waterfall's clock: every time a row shows is one its records carry, relative to the episode's first.
  const { first_ms, last_ms } = episodeTiming(episode, steps.sums);
  const head: TimelineRow = {
    kind: 'episode',
    episode: n,
    run_id: episode.run_id,
    state: episode.state,
    state_word: episode.state,
    last_durable: null,
    finish_reason: episode.finished?.reason ?? null,
    first_ms,
    last_ms,
    seqs: episode.finished === null ? [episode.started_seq] : [episode.started_seq, episode.finished.seq],
  };
  const input: TimelineRow[] = asList(episode.input).map((message) => ({
    kind: 'input',
    episode: n,
    role: roleOf(message),
    text: messageText(message),
    seqs: [episode.started_seq],
  }));
  const entries = steps.entries.of(episode, steps.sums);
  // The rest come after the steps in the order of the sort below, which keeps the order of equal keys.
  const others: Keyed[] = [];
  const add = (key: number | null, rows: TimelineRow[]) => others.push({ key: key ?? Number.MAX_SAFE_INTEGER, order: entries.keys.length + others.length, rows });
  for (const batch of EpisodeIndex.of(episode, steps.sums).batches_without_step) add(batch.started_seq, batchRows(n, batch, first_ms, steps.unread));
  for (const steer of episode.steers) {
    const text = asList(steer.input).map(messageText).join('\n');
    add(steer.seq, [{ kind: 'steer', episode: n, title: steer.title, delivery: steer.delivery, text: cut(text), seqs: [steer.seq] }]);
  }
  for (const approval of episode.approvals) {
    const seqs = exactly([approval.requested_seq, approval.resolved_seq, approval.recorded_seq].filter((seq): seq is number => seq !== null));
    add(seqs[0] ?? null, [{ kind: 'approval', episode: n, tool_call_id: approval.tool_call_id, decision: approval.decision, seqs }]);
  }
  for (const cancel of episode.cancel_requests) add(cancel.seq, [event(n, 'run_cancel_requested', `cancel requested (at ${cancel.at ?? '?'})`, cancel.seq)]);
  for (const pause of episode.pauses) add(pause.seq, [event(n, 'run_paused', `paused: ${pause.reason ?? 'no reason recorded'}`, pause.seq)]);
  for (const resume of episode.resumes) {
    add(resume.seq, [event(n, 'resume_started', `resumed from seq ${resume.resumed_from_seq ?? '?'}; redone [${resume.redone.join(', ')}]; indeterminate [${resume.indeterminate.join(', ')}]`, resume.seq)]);
  }
  for (const ref of episode.shown) add(ref.seq, [event(n, ref.type, `${ref.type} (shown, not acted on)`, ref.seq)]);
  if (episode.finished !== null) add(episode.finished.seq, [event(n, 'run_finished', `run finished: ${episode.finished.reason ?? 'no reason'}`, episode.finished.seq)]);
  const index = EpisodeIndex.of(episode, steps.sums);
  const stepRows = (at: number): TimelineRow[] => {
    const step = episode.steps.at(at)!;
    const rows = steps.rows(episode, step, index.batch(step.batch_id), first_ms);
    assert.equal(rows.length, (entries.starts[at + 1] ?? entries.rows) - entries.starts[at]!, `step ${step.step_id}'s rows were counted other than laid out`);
    return rows;
  };
  return { lead: [head, ...input], entries, others: others.sort(byKey), stepRows };
}

/** `episodeRows(episode).length` without laying out any row: the session event and a page's total ask for it
 *  when a read ends and on every append, the rows only when a page of them is shown (laying out a 1 GiB
 *  session's step rows to count them took ~0.25 s of its full status, at the end of its read). */
export function episodeRowCount(episode: EpisodeFold, steps: StepRowCache): number {
  let count = 1 + asList(episode.input).length + episode.anomalies.length + steps.entries.of(episode, steps.sums).rows;
  for (const batch of EpisodeIndex.of(episode, steps.sums).batches_without_step) count += batchRowCount(batch);
  count += episode.steers.length + episode.approvals.length + episode.cancel_requests.length + episode.pauses.length + episode.resumes.length + episode.shown.length;
  return count + (episode.finished === null ? 0 : 1);
}

/** `stepRows(…).length`: the step's row, its notes' and its batch's. */
function stepRowCount(step: StepFold, batch: BatchFold | undefined): number {
  return 1 + step.notes.length + (batch === undefined ? 0 : batchRowCount(batch));
}

/** `batchRows(…).length`: the batch's row and its calls' (a batch of one call, its call's row alone). */
function batchRowCount(batch: BatchFold): number {
  return batch.calls.length === 1 ? 1 : 1 + batch.calls.length;
}

const byKey = (a: Keyed, b: Keyed) => a.key - b.key || a.order - b.order;

/** The steps' rows in step order (their keys ascending) merged with the other entries (sorted): what a stable
 *  sort of them all by key gives, a step first on equal keys, in one pass. */
function mergeRows(rows: TimelineRow[], entries: StepEntries, others: readonly Keyed[], stepRows: (index: number) => TimelineRow[]): void {
  let other = 0;
  for (let step = 0; step < entries.keys.length; step++) {
    while (other < others.length && others[other]!.key < entries.keys[step]!) appendAll(rows, others[other++]!.rows);
    appendAll(rows, stepRows(step));
  }
  while (other < others.length) appendAll(rows, others[other++]!.rows);
}

/** `mergeRows`' rows from `from` to `to` (places in the merged rows), without the rows before `from`: the
 *  merge is taken up at the last step whose rows start by `from`, found by a binary search (a step's rows start
 *  after its own and the earlier steps' rows and the others keyed below it). */
function mergedSlice(entries: StepEntries, others: readonly Keyed[], stepRows: (index: number) => TimelineRow[], from: number, to: number): TimelineRow[] {
  const others_rows_below = [0];
  for (const other of others) others_rows_below.push(others_rows_below.at(-1)! + other.rows.length);
  /** How many others sort before a step of key `key`: those of a smaller key. */
  const othersBelow = (key: number): number => {
    let low = 0;
    let high = others.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (others[middle]!.key < key) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const stepStart = (step: number): number => entries.starts[step]! + others_rows_below[othersBelow(entries.keys[step]!)]!;
  let low = 0;
  let high = entries.keys.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (stepStart(middle) <= from) low = middle + 1;
    else high = middle;
  }
  const first_step = Math.max(low - 1, 0);
  let other = low === 0 ? 0 : othersBelow(entries.keys[first_step]!);
  let at = low === 0 ? 0 : stepStart(first_step);
  const out: TimelineRow[] = [];
  /** The rows of one entry, which start at merged place `at`, that fall in [from, to). */
  const take = (rows: readonly TimelineRow[]): void => {
    for (let row = Math.max(0, from - at); row < Math.min(rows.length, to - at); row++) out.push(rows[row]!);
    at += rows.length;
  };
  for (let step = first_step; step < entries.keys.length && at < to; step++) {
    for (; other < others.length && others[other]!.key < entries.keys[step]! && at < to; other++) take(others[other]!.rows);
    take(stepRows(step));
  }
  for (; other < others.length && at < to; other++) take(others[other]!.rows);
  return out;
}

function stepKeyed(entries: StepEntries, stepRows: (index: number) => TimelineRow[]): Keyed[] {
  return entries.keys.map((key, step) => ({ key, order: step, rows: stepRows(step) }));
}

/** Where a step sorts among an episode's rows: its first record. */
function stepKey(step: StepFold): number {
  return step.seq ?? step.attempts[0]?.seq ?? step.turn_finished_seq ?? step.notes[0]?.seq ?? Number.MAX_SAFE_INTEGER;
}

/** An episode's steps in step order: each step's key and where its rows start among the steps' rows, and how
 *  many rows they make; the rows themselves are laid out when a page or a search reaches them. */
interface StepEntries {
  keys: number[];
  starts: number[];
  rows: number;
  /** The keys ascend in step order (a runtime writes them so): the rows merge without a sort. */
  sorted: boolean;
}

/** Step rows kept per step and batch of a fold snapshot: the fold shares the parts no frame touched between
 *  snapshots (SessionFolder.snapshotSince), so an append to a long open episode lays out the rows of the parts
 *  it changed, not the episode's; the steps' keys and row counts are taken on from the last snapshot's
 *  (views/incremental-sums.ts), so it does not walk the episode's steps either; and a step is laid out only when a page
 *  or a search reaches it (the first page of a 100k-step episode laid out all of them: 2.0–2.7 s in serve).
 *  One per session's views. */
export class StepRowCache {
  private readonly kept = new WeakMap<StepFold, { batch: BatchFold | undefined; episode: number; first_ms: number | null; rows: TimelineRow[] }>();
  /** Steps whose rows were laid out, over this cache's life: what an append cost. */
  steps_laid_out = 0;
  /** Where the rows laid out here find what they show (`shown`). */
  readonly unread = new UnreadRows();

  /** `sums`: the session's store (a fresh one computes every sum in full). */
  constructor(readonly sums: IncrementalSums = new IncrementalSums()) {}

  readonly entries = new EpisodeSum<StepFold, StepEntries>({
    items: (episode) => episode.steps,
    initial: () => ({ keys: [], starts: [], rows: 0, sorted: true }),
    copy: (entries) => ({ keys: entries.keys.slice(), starts: entries.starts.slice(), rows: entries.rows, sorted: entries.sorted }),
    rewind: {
      mark: (entries) => ({ steps: entries.keys.length, rows: entries.rows, sorted: entries.sorted }),
      to(entries, mark) {
        const at = mark as { steps: number; rows: number; sorted: boolean };
        entries.keys.length = at.steps;
        entries.starts.length = at.steps;
        entries.rows = at.rows;
        entries.sorted = at.sorted;
      },
    },
    // A step's key and row count change only with the step or its batch (its rows' times with the episode's
    // first time too: `rows` lays a step out again then).
    shared: sharedStepsWithBatches,
    add: (entries, step, episode, sums) => {
      const key = stepKey(step);
      if (key < (entries.keys.at(-1) ?? key)) entries.sorted = false;
      entries.keys.push(key);
      entries.starts.push(entries.rows);
      entries.rows += stepRowCount(step, EpisodeIndex.of(episode, sums).batch(step.batch_id));
    },
  });

  /** A finished episode's step rows are not kept here: no later snapshot shares its steps with a live copy
   *  (a late record lays it out again), and its rows are in its views (~25 MB of a million records' steps). */
  rows(episode: EpisodeFold, step: StepFold, batch: BatchFold | undefined, first_ms: number | null): TimelineRow[] {
    const n = episode.episode;
    const kept = this.kept.get(step);
    if (episode.finished !== null) this.kept.delete(step);
    if (kept !== undefined && kept.batch === batch && kept.episode === n && kept.first_ms === first_ms) return kept.rows;
    this.steps_laid_out += 1;
    const rows = stepRows(n, step, batch, first_ms, stepCostIn(episode, step), this.unread);
    if (episode.finished === null) this.kept.set(step, { batch, episode: n, first_ms, rows });
    return rows;
  }

  /** A row laid out here as it is shown (UnreadRows). */
  shown(row: TimelineRow, payloads: PayloadReader): TimelineRow {
    return this.unread.shown(row, payloads);
  }
}

function stepRows(n: number, step: StepFold, batch: BatchFold | undefined, first_ms: number | null, cost_usd: number | null, unread: UnreadRows): TimelineRow[] {
  const seqs = exactly([...step.attempts.map((a) => a.seq), ...(step.seq === null ? [] : [step.seq]), ...(step.turn_finished_seq === null ? [] : [step.turn_finished_seq])]);
  const rows: TimelineRow[] = [{
    kind: 'step',
    episode: n,
    step_id: step.step_id,
    blocks: [],
    tool_calls: step.tool_use_ids.length,
    usage: step.usage,
    cost_usd,
    attempts: step.attempts.map((a) => ({ attempt: a.attempt, outcome: a.outcome, http_status: a.http_status })),
    ts_ms: lastTime(step.attempts.map((a) => a.ts_ms)),
    episode_first_ms: first_ms,
    in_flight: step.seq === null,
    seqs,
  }];
  const step_row = rows[0]!;
  if (step.seq !== null) unread.steps.set(step_row, step);
  for (const note of step.notes) rows.push({ kind: 'note', episode: n, step_id: step.step_id, type: note.type, summary: cut(noteSummary(note.type, note.payload)), seqs: [note.seq] });
  if (batch !== undefined) appendAll(rows, batchRows(n, batch, first_ms, unread));
  // Kept per step: of its size (pushed to, it has 17 slots or more).
  return exactly(rows);
}

function event(episode: number, type: string, summary: string, seq: number): TimelineRow {
  return { kind: 'event', episode, type, summary, seqs: [seq] };
}

/** A batch's row and its calls' rows; a batch of one call is folded into its call's row (its head and records
 *  with the call's), which says all the batch's row would. */
function batchRows(episode: number, batch: BatchFold, episode_first_ms: number | null, unread: UnreadRows): TimelineRow[] {
  const head: BatchHead = { step_id: batch.step_id, sequential: batch.sequential, finished: batch.finished_seq !== null, committable: batch.committable, mixed_crash: batch.mixed_crash };
  const batch_seqs = batch.finished_seq === null ? [batch.started_seq] : [batch.started_seq, batch.finished_seq];
  const folded = batch.calls.length === 1;
  const calls = batch.calls.map((call): TimelineRow => {
    const row = callRow(call);
    const seqs = folded ? exactly([batch.started_seq, ...row.seqs, ...batch_seqs.slice(1)]) : row.seqs;
    const laid_out: CallTimelineRow = { kind: 'call', episode, batch_id: batch.batch_id, call: row, batch: folded ? head : null, episode_first_ms, seqs };
    if (call.intent !== null || call.terminals[0]?.type === 'tool_result') unread.calls.set(laid_out, call);
    return laid_out;
  });
  return folded ? calls : [{ kind: 'batch', episode, batch_id: batch.batch_id, ...head, seqs: batch_seqs }, ...calls];
}

type CallTimelineRow = Extract<TimelineRow, { kind: 'call' }>;

function shownCall(laid_out: CallTimelineRow, call: CallFold, payloads: PayloadReader): CallTimelineRow {
  const terminal = call.terminals[0];
  const read = terminal === undefined ? null : (terminalOutput(terminal, payloads, OUTPUT_CUT) as JsonValue | JsonTextCut);
  const args = preview(intentArgs(call, payloads, ARGS_CUT));
  // A text output is the output view's to show; any other (Parts: a screenshot and its caption) as its blocks.
  const output_blocks = read === null || readText(read) !== null ? null : shownOutput(read, ROW_BLOCK_LIMITS);
  return {
    ...laid_out,
    call: { ...laid_out.call, args, args_gist: argsGist(args), output: read === null ? null : preview(read), output_blocks, output_line: outputLine(read, readText) },
  };
}

/** A call's row, its args and output left out (null) until `StepRowCache.shown` reads them. */
function callRow(call: CallFold): CallRow {
  const terminal = call.terminals[0] ?? null;
  const seqs = exactly([
    ...(call.intent === null ? [] : [call.intent.seq]),
    ...(call.held === null ? [] : [call.held.seq]),
    ...call.terminals.map((entry) => entry.seq),
  ]);
  return {
    tool_call_id: call.tool_call_id,
    name: call.name,
    class: call.class,
    plan: call.plan,
    safe: call.safe,
    args: null,
    args_gist: null,
    output: null,
    output_blocks: null,
    output_line: null,
    outcome: terminal?.outcome ?? null,
    reason: terminal?.reason ?? null,
    is_error: terminal?.is_error ?? false,
    dispatched_at_ms: call.dispatched_at_ms,
    finished_at_ms: call.finished_at_ms,
    held: call.held === null ? null : { call_key: call.held.call_key, module: call.held.module, reason: call.held.reason, held_at_ms: call.held.held_at_ms, seq: call.held.seq },
    behind: call.behind,
    successors: call.successors,
    seqs,
    output_seq: terminal?.type === 'tool_result' ? terminal.seq : null,
  };
}

export function buildTranscript(messages: readonly JsonPayload[]): TranscriptRow[] {
  return messages.map(transcriptRow);
}

export function transcriptRow(message: JsonPayload, index: number): TranscriptRow {
  return { index, role: roleOf(message), blocks: messageBlocks(message) };
}

/** A row's message: its texts and values share this many characters (a page of rows stays light however many
 *  blocks a message has). */
export const ROW_MESSAGE_CHARS_MAX = 2 * ROW_VALUE_CHARS_MAX;

/** How a row shows blocks: texts cut past ROW_TEXT_CHARS_MAX, values to a preview, both within
 *  ROW_MESSAGE_CHARS_MAX, an image whole up to IMAGE_DATA_CHARS_MAX; a text cut as it was read (OUTPUT_CUT) is
 *  shown as far as it was read. */
const ROW_BLOCK_LIMITS: BlockLimits = {
  text_chars_max: ROW_TEXT_CHARS_MAX,
  message_chars_max: ROW_MESSAGE_CHARS_MAX,
  image_chars_max: IMAGE_DATA_CHARS_MAX,
  textOf: readText,
  shownValue: (value, chars_max) => valuePreview(value as JsonValue | JsonTextCut, Math.min(chars_max, ROW_VALUE_CHARS_MAX), '; open the record'),
};

/** A message's content as a row shows its blocks. */
function messageBlocks(message: JsonValue): ShownBlock[] {
  return message !== null && typeof message === 'object' && !Array.isArray(message) ? shownBlocks(message['content'] ?? null, ROW_BLOCK_LIMITS) : [];
}

/** A text, or a text cut as it was read (its first characters, and its length in all less the JSON quotes: exact
 *  for a text without escapes); null for any other value. */
function readText(value: unknown): ReadText | null {
  if (typeof value === 'string') return { text: value, chars: value.length };
  return value instanceof JsonTextCut && value.head.startsWith('"') ? { text: textOfJsonHead(value.head), chars: value.chars - 2 } : null;
}

function asList(value: JsonValue): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function roleOf(message: JsonValue): string {
  return message !== null && typeof message === 'object' && !Array.isArray(message) && typeof message['role'] === 'string' ? message['role'] : '?';
}

/** What a message says, as plain text: text blocks verbatim, other blocks in a few words (blocks.ts). */
export function messageText(message: JsonValue): string {
  return cut(messageWords(messageBlocks(message)));
}

function cut(text: string): string {
  return text.length > ROW_TEXT_CHARS_MAX ? `${text.slice(0, ROW_TEXT_CHARS_MAX)}… (${text.length - ROW_TEXT_CHARS_MAX} more characters)` : text;
}

/** `value` itself when its JSON text is at most ROW_VALUE_CHARS_MAX characters, else a preview of about that many
 *  (value-preview.ts): a map or list keeps its shape, a text shows its first lines. An output read with
 *  OUTPUT_CUT past that length was cut as it was read (never built whole), and shows as its text. */
function preview(value: JsonValue | JsonTextCut): JsonValue {
  return valuePreview(value, ROW_VALUE_CHARS_MAX, '; open the record');
}

/** A call's output and args as a row shows them: past a preview's length, cut as they are read from their
 *  record's bytes (a 16 MiB output is decoded only as far as the preview shows it), then written by `preview`. */
export const OUTPUT_CUT: PayloadProjection = { output: jsonShapeCut(ROW_VALUE_CHARS_MAX, IMAGE_DATA_CHARS_MAX) };
const ARGS_CUT: PayloadProjection = { args: jsonShapeCut(ROW_VALUE_CHARS_MAX) };

function lastTime(times: readonly (number | null)[]): number | null {
  let last: number | null = null;
  for (const ms of times) if (ms !== null && (last === null || ms > last)) last = ms;
  return last;
}

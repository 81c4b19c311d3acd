// The Timeline's filter, applied here (a session's timeline is up to millions of rows; the renderer gets the
// kept ones a page at a time). It walks the timeline as a search does (stepped-scan.ts): for about SEARCH_STEP_MS
// a request, the rows kept so far in the answer. A kept row keeps its parents too — its episode's row, its
// step's, its batch's — marked as context, so a call reads in place, as Temporal's UI keeps an event's parent.
import type { CallRow, FilterChoices, TimelineRow } from '../../src-shared/ipc.js';
import type { BatchFold, CallClass, EpisodeFold } from '../../src-shared/replay.js';
import { FILTER_ROWS_MAX, FILTER_TOOLS_MAX, sameTimelineFilter, type TimelineFilter } from '../../src-shared/timeline-filter.js';
import { sharedBatches } from '../replay/resumable.js';
import { EpisodeSum, FinishedEpisodesSum, type IncrementalSums } from './incremental-sums.js';
import type { Segments } from './session-views.js';
import { scanStep, sharedParts } from './stepped-scan.js';

/** A call that did not complete as asked: the tool said it failed (is_error), or it has one of these classes. */
const FAILED_CLASSES: ReadonlySet<CallClass> = new Set<CallClass>(['indeterminate', 'no_dispatch', 'interrupted', 'max_steps']);

function callFailed(call: CallRow): boolean {
  return call.is_error || FAILED_CLASSES.has(call.class);
}

/** A row of what went wrong (words.ts ERRORS_ONLY_WORDS says it to people): a failed call, a step whose last
 *  model attempt failed (a retried attempt that then succeeded is not a failed step), a run finished in error,
 *  an anomaly. Held calls and calls never sent are not errors: they wait, or never ran. */
export function isErrorRow(row: TimelineRow): boolean {
  switch (row.kind) {
    case 'call':
      return callFailed(row.call);
    case 'step': {
      const last = row.attempts.at(-1)?.outcome ?? null;
      return last !== null && last !== 'completed';
    }
    case 'episode':
      return row.finish_reason === 'error';
    case 'anomaly':
      return true;
    default:
      return false;
  }
}

/** Whether `filter` keeps `row` for itself (every criterion set holds); `typeOf` is the type of record `seq`. */
export function filterKeeps(filter: TimelineFilter, row: TimelineRow, typeOf: (seq: number) => string | null): boolean {
  if (filter.errors && !isErrorRow(row)) return false;
  if (filter.call_class !== null && (row.kind !== 'call' || row.call.class !== filter.call_class)) return false;
  if (filter.tool !== null && (row.kind !== 'call' || row.call.name !== filter.tool)) return false;
  return filter.record_type === null || row.seqs.some((seq) => typeOf(seq) === filter.record_type);
}

/** A parent row met on the walk: where it is, and whether it was kept already. */
interface Parent {
  at: number;
  kept: boolean;
}

/** The parents of the row the walk is at: the rows before it that it reads under. */
class Parents {
  private episode: (Parent & { episode: number }) | null = null;
  private step: (Parent & { step_id: number }) | null = null;
  private batch: (Parent & { batch_id: string; step_id: number | null }) | null = null;

  /** A new part (an episode's rows, or the session's own): no parent carries over. */
  reset(): void {
    this.episode = this.step = this.batch = null;
  }

  /** The parents of `row` (at `at`) not kept yet, in order, and `row`'s own place as the parent of the rows
   *  under it (null: it is none). */
  of(row: TimelineRow, at: number): { parents: Parent[]; self: Parent | null } {
    const episode = this.episode !== null && this.episode.episode === row.episode ? [this.episode] : [];
    switch (row.kind) {
      case 'episode':
        this.reset();
        this.episode = { at, kept: false, episode: row.episode };
        return { parents: [], self: this.episode };
      case 'step': {
        const parents = unkept(episode);
        this.step = { at, kept: false, step_id: row.step_id };
        this.batch = null;
        return { parents, self: this.step };
      }
      case 'batch': {
        const parents = unkept([...episode, ...this.stepOf(row.step_id)]);
        this.batch = { at, kept: false, batch_id: row.batch_id, step_id: row.step_id };
        return { parents, self: this.batch };
      }
      case 'call': {
        const batch = this.batch !== null && this.batch.batch_id === row.batch_id ? this.batch : null;
        // A call whose batch has no row of its own (a batch of one shown as its call) reads under the step before it.
        const step = batch === null ? (this.step === null ? [] : [this.step]) : this.stepOf(batch.step_id);
        return { parents: unkept([...episode, ...step, ...(batch === null ? [] : [batch])]), self: null };
      }
      case 'note':
        return { parents: unkept([...episode, ...this.stepOf(row.step_id)]), self: null };
      default:
        return { parents: unkept(episode), self: null };
    }
  }

  private stepOf(step_id: number | null): Parent[] {
    return this.step !== null && this.step.step_id === step_id ? [this.step] : [];
  }
}

function unkept(parents: Parent[]): Parent[] {
  return parents.filter((parent) => !parent.kept);
}

/** One filter's walk of one timeline. `rows` holds what it kept, in timeline order: a matched row's index, a
 *  context row's as -(index + 1) (one array of numbers for a million kept rows, not an object each). */
export class FilterScan {
  rows: number[] = [];
  truncated = false;
  context_rows = 0;
  /** Rows walked by this scan: what a request cost (an append's walk starts at the part it reached). */
  walked = 0;
  /** The next row to walk: row `index` of part `part`. */
  private part = 0;
  private index = 0;
  private readonly parents = new Parents();

  constructor(
    readonly filter: TimelineFilter,
    readonly segments: Segments<TimelineRow>,
    private readonly rows_max = FILTER_ROWS_MAX,
  ) {}

  /** The walk of `segments` for `filter`, going on from `known` where it walked the same filter over parts these
   *  segments share (a live append changes the open episode's part only). */
  static of(filter: TimelineFilter, segments: Segments<TimelineRow>, known: FilterScan | null, rows_max = FILTER_ROWS_MAX): FilterScan {
    if (known !== null && known.segments === segments && sameTimelineFilter(known.filter, filter)) return known;
    const scan = new FilterScan(filter, segments, rows_max);
    if (known === null || !sameTimelineFilter(known.filter, filter)) return scan;
    scan.part = sharedParts(known.segments, known.part, segments);
    const end = scan.part === 0 ? 0 : segments.startOf(scan.part);
    scan.rows = known.rows.filter((kept) => placeOf(kept) < end);
    scan.context_rows = scan.rows.filter((kept) => kept < 0).length;
    return scan;
  }

  get done(): boolean {
    return this.truncated || this.part >= this.segments.part_count;
  }

  get matched(): number {
    return this.rows.length - this.context_rows;
  }

  /** Kept row `k`: where it is in the timeline, and whether it is context. */
  kept(k: number): { at: number; context: boolean } {
    const kept = this.rows[k]!;
    return { at: placeOf(kept), context: kept < 0 };
  }

  /** Walks on for about SEARCH_STEP_MS; `typeOf` is the type of record `seq`. */
  step(typeOf: (seq: number) => string | null): void {
    scanStep(this, () => !this.done, () => this.next(typeOf), this.rows_max);
  }

  private next(typeOf: (seq: number) => string | null): number | null {
    const rows = this.segments.part(this.part);
    if (this.index >= rows.length) {
      this.part += 1;
      this.index = 0;
      this.parents.reset();
      return null;
    }
    const row = rows.at(this.index)!;
    this.walked += 1;
    const at = this.segments.startOf(this.part) + this.index++;
    const { parents, self } = this.parents.of(row, at);
    if (!filterKeeps(this.filter, row, typeOf)) return null;
    for (const parent of parents) {
      parent.kept = true;
      this.rows.push(-(parent.at + 1));
      this.context_rows += 1;
    }
    if (self !== null) self.kept = true;
    return at;
  }
}

function placeOf(kept: number): number {
  return kept < 0 ? -kept - 1 : kept;
}

function addCalls(counts: Map<string, number>, name: string, calls: number): void {
  const known = counts.get(name);
  if (known !== undefined) counts.set(name, known + calls);
  else if (counts.size < FILTER_TOOLS_MAX) counts.set(name, calls);
}

/** What the filter offers for one session's views: its tools, summed over its episodes as an append goes on
 *  (the finished episodes' sum kept), and its records' types. One per session's views. */
export class FilterChoiceSums {
  constructor(private readonly sums: IncrementalSums) {}

  /** Calls per tool name of one episode, taken on from the last snapshot's for a live episode; at most
   *  FILTER_TOOLS_MAX names (a hostile WAL may name a tool per call). */
  private readonly calls_by_tool = new EpisodeSum<BatchFold, Map<string, number>>({
    items: (episode) => episode.batches,
    shared: sharedBatches,
    initial: () => new Map(),
    copy: (counts) => new Map(counts),
    add(counts, batch) {
      for (const call of batch.calls) addCalls(counts, call.name, 1);
    },
  });
  private readonly tools = new FinishedEpisodesSum<Map<string, number>>({
    initial: () => new Map(),
    copy: (counts) => new Map(counts),
    add: (counts, episode) => {
      for (const [name, calls] of this.calls_by_tool.of(episode, this.sums)) addCalls(counts, name, calls);
    },
  });

  /** `record_types`: the types of the session's records. A lineage frame (seq 0) shows in no row: not offered. */
  of(episodes: readonly EpisodeFold[], record_types: readonly string[]): FilterChoices {
    const tools = [...this.tools.of(episodes)].map(([name, calls]) => ({ name, calls })).sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name));
    return { tools, record_types: record_types.filter((type) => type !== 'lineage').sort() };
  }
}

// A session's views (timeline, transcript, class counts, search texts) kept per episode, shaped like the log.
// `SessionFolder.snapshotSince` hands back the same episode object for every episode no new frame reached, and
// its views are reused from here by identity: an append to a live session rebuilds the open episode's views,
// never the closed ones (the counters say how much was rebuilt, for the tests that hold this).
import assert from 'node:assert/strict';
import { appendAll } from '../../src-shared/arrays.js';
import type { Parts } from '../../src-shared/parts.js';
import type { RowList, TimelineRow, TranscriptRow } from '../../src-shared/ipc.js';
import type { BatchFold, CallClass, Cost, EpisodeFold, JsonPayload, RecoveryEntry, RecoveryPlan, RenderedMessage, RequestProblem, RunSignal, SessionFold } from '../../src-shared/replay.js';
import { addCost, copyCost, episodeCost, noCost } from '../replay/cost.js';
import { episodeWord } from '../replay/signals.js';
import { EpisodeIndex } from '../replay/episode-index.js';
import { sharedBatches, sharedByIdentityOr } from '../replay/resumable.js';
import { EpisodeSum, FinishedEpisodesSum, IncrementalSums } from './incremental-sums.js';
import { episodeTiming, sumUsage } from '../replay/timing.js';
import type { PayloadReader } from '../replay/payloads.js';
import { finishedPartFacts, renderEpisodeRequest, withOutputsAt } from '../replay/transcript.js';
import { addMessage, newTurnSum, turnsOf, turnsValid, type RequestTurns, type TurnSum } from '../replay/provider-validity.js';
import { episodeRowCount, episodeRows, episodeRowsPage, OUTPUT_CUT, outsideRows, sessionAnomalyRows, StepRowCache, transcriptRow } from './timeline.js';

/** A list made of parts (one per episode, then the session's own rows), indexed as if it were one array. A part
 *  is made when a page or a search first reaches it: its length is known before (a million records' timeline
 *  laid out whole took ~2 s, for the first page or search after a read). */
export class Segments<T> {
  private readonly starts: number[] = [];
  private readonly made: (Parts<T> | undefined)[];
  readonly length: number;

  /** `lengths[i]` is part i's length; `make(i)` makes it (once); `ready(i)` is part i when it costs nothing to
   *  have (made for earlier views), else undefined; `page(i, start, count)` is `make(i).slice(start, start +
   *  count)` made without the rest of part i, or undefined where only `make` serves. */
  constructor(
    private readonly lengths: readonly number[],
    private readonly make: (part: number) => Parts<T>,
    private readonly ready: (part: number) => Parts<T> | undefined = () => undefined,
    private readonly page: (part: number, start: number, count: number) => T[] | undefined = () => undefined,
  ) {
    let total = 0;
    for (const length of lengths) {
      this.starts.push(total);
      total += length;
    }
    this.length = total;
    this.made = new Array<Parts<T> | undefined>(lengths.length).fill(undefined);
  }

  static of<T>(parts: readonly Parts<T>[]): Segments<T> {
    return new Segments(parts.map((part) => part.length), (part) => parts[part]!, (part) => parts[part]);
  }

  get part_count(): number {
    return this.lengths.length;
  }

  part(part: number): Parts<T> {
    let made = this.made[part];
    if (made === undefined) {
      made = this.make(part);
      assert.equal(made.length, this.lengths[part], `part ${part} was counted ${this.lengths[part]} long and made ${made.length} long`);
      this.made[part] = made;
    }
    return made;
  }

  /** The parts had without making any: what search texts kept for them still serve. */
  readyParts(): Parts<T>[] {
    const ready: Parts<T>[] = [];
    for (let part = 0; part < this.lengths.length; part++) {
      const had = this.made[part] ?? this.ready(part);
      if (had !== undefined) ready.push(had);
    }
    return ready;
  }

  slice(start: number, count: number): T[] {
    const out: T[] = [];
    const end = Math.min(this.length, start + count);
    if (start >= end) return out;
    for (let part = this.partOf(start); part < this.lengths.length && this.starts[part]! < end; part++) {
      const from = Math.max(start - this.starts[part]!, 0);
      const to = Math.min(end - this.starts[part]!, this.lengths[part]!);
      if (from >= to) continue;
      const paged = this.made[part] === undefined ? this.page(part, from, to - from) : undefined;
      if (paged !== undefined) assert.equal(paged.length, to - from, `a page of part ${part} from ${from} was ${paged.length} long, not ${to - from}`);
      appendAll(out, paged ?? this.part(part).slice(from, to));
    }
    return out;
  }

  /** Where part `part` starts in the whole list. */
  startOf(part: number): number {
    return this.starts[part]!;
  }

  /** The part holding index `index` (0 ≤ index < length): the last part starting at or before it. */
  partOf(index: number): number {
    let low = 0;
    let high = this.lengths.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/** One episode's views. Rows and messages are laid out when a page first needs them: a session read only for
 *  its line in the list never pays for them. */
interface EpisodeViews {
  rows: TimelineRow[] | null;
  /** How many `rows` has, counted before they are laid out. */
  row_count?: number;
  class_counts: Partial<Record<CallClass, number>>;
  /** The episode's part of the next request, its outputs unread; a transcript page reads the outputs of the
   *  messages it shows. Made for the open episode when counted, for a finished one when a page or a search
   *  reaches it. */
  request: { messages: Parts<RenderedMessage>; problems: readonly RequestProblem[] } | null;
  /** The part split for the provider-validity check: the open episode's summed as it grows, a finished one's
   *  from its facts. */
  turns: RequestTurns | null;
  index: EpisodeIndex | null;
}

export interface SessionViews {
  fold: SessionFold;
  /** Every timeline row, call outputs unread: its length known without layout, an episode laid out when reached. */
  readonly timeline: Segments<TimelineRow>;
  /** A page of the timeline as shown: its calls' outputs read back from disk. */
  timelineRows(start: number, count: number): TimelineRow[];
  /** The next request's messages, their tool outputs unread (`transcript` reads those it shows). */
  readonly messages: Segments<RenderedMessage>;
  resume: RecoveryPlan;
  class_counts: Partial<Record<CallClass, number>>;
  /** Numeric usage fields summed over every episode's steps. */
  readonly tokens: Record<string, number>;
  /** What every episode's steps cost, by the shipped price table. */
  readonly cost: Cost;
  /** How the run stands: finished, cut, open in an export, finished with calls of unknown outcome. */
  run: RunSignal;
  /** Every recovery an operator ran on this WAL (operator_action and the records it wrote). */
  recoveries: RecoveryEntry[];
  /** The provider-validity check of the whole transcript, made when a detail asks for it. */
  transcriptValid(): boolean;
  transcript(start: number, count: number): TranscriptRow[];
  /** The first timeline row showing record `seq`, or null. */
  timelineRowOf(seq: number): number | null;
  /** The lowercased text a search matches row `index` of part `part` of a list against, its outputs, args and
   *  messages read through `payloads`; kept in the builder's bounded cache. */
  searchText(list: SearchedList, part: number, index: number, payloads: PayloadReader): string;
}

export type SearchedList = Exclude<RowList, 'records'>;

/** Search texts kept between searches, in characters: one per row (a preview of its output and args, up to
 *  ~12k characters) would be hundreds of MB for a 1 GiB session. */
export const SEARCH_TEXTS_CACHED_CHARS_MAX = 32 * 1_048_576;

/** The texts searches made, per list part (an episode's rows or request messages, by identity). Past the budget
 *  new texts are not kept rather than older ones dropped: a search walks the parts in order, and dropping the
 *  oldest first would drop exactly what the next search needs first. Parts no longer in the views (an open
 *  episode's rows before an append) are dropped when a search begins. */
export class SearchTexts {
  private readonly parts = new Map<Parts<unknown>, string[]>();
  private chars = 0;
  /** Texts made (not found kept), over this cache's life: what a search cost. */
  made = 0;

  constructor(private readonly chars_max = SEARCH_TEXTS_CACHED_CHARS_MAX) {}

  retainOnly(current: readonly Parts<unknown>[]): void {
    const keep = new Set(current);
    for (const [part, texts] of this.parts) {
      if (keep.has(part)) continue;
      this.parts.delete(part);
      for (const text of texts) this.chars -= text.length;
    }
  }

  text(part: Parts<unknown>, index: number, make: () => string): string {
    const texts = this.parts.get(part);
    const kept = texts?.[index];
    if (kept !== undefined) return kept;
    const text = make();
    this.made += 1;
    if (this.chars + text.length > this.chars_max) return text;
    // A part keeps a prefix of its rows' texts: searches walk a part from its first row.
    if (index !== (texts?.length ?? 0)) return text;
    if (texts === undefined) this.parts.set(part, [text]);
    else texts.push(text);
    this.chars += text.length;
    return text;
  }
}

export class ViewBuilder {
  private readonly per_episode = new WeakMap<EpisodeFold, EpisodeViews>();
  /** Each episode's calls by class, taken on from the last snapshot's for a live episode. */
  private readonly calls_by_class = new EpisodeSum<BatchFold, Partial<Record<CallClass, number>>>({
    items: (episode) => episode.batches,
    shared: sharedBatches,
    initial: () => ({}),
    copy: (counts) => ({ ...counts }),
    add(counts, batch) {
      for (const call of batch.calls) counts[call.class] = (counts[call.class] ?? 0) + 1;
    },
  });
  /** Each episode's turns, taken on from the last snapshot's for a live episode: its request part holds the same
   *  messages for the turns no frame reached (replay/transcript.ts keeps each step's unread turn), so an append
   *  checks the turns it completed. */
  private readonly episode_turns = new EpisodeSum<RenderedMessage, TurnSum>({
    items: (episode, sums) => renderEpisodeRequest(episode, sums).messages,
    initial: newTurnSum,
    add: (sum, rendered) => void (this.turns_checked += addMessage(sum, rendered) ? 1 : 0),
    copy: (sum) => ({ head: sum.head.slice(), inner_valid: sum.inner_valid, tail: sum.tail?.slice() ?? null }),
    // A part takes over the turns of the part before it as the very same rendered messages.
    shared: (_before, _episode, _sums, messages_before, messages) => sharedByIdentityOr(messages_before, messages, (was, now) => was.message === now.message),
  });
  /** Episodes whose views were (re)built, over this builder's life: what a live append cost. */
  episodes_rebuilt = 0;
  /** Turns checked for provider validity, over this builder's life (the tests count them). */
  turns_checked = 0;

  /** `sums`: the session's store, shared with its folder (services/session-tailer.ts), which tells it what each
   *  episode copy was made from; replay's functions of the session's snapshots take their sums from it. */
  constructor(readonly sums: IncrementalSums = new IncrementalSums()) {
    this.step_rows = new StepRowCache(sums);
  }
  /** Step rows kept across builds: a rebuilt episode lays out only the steps a frame changed. */
  readonly step_rows: StepRowCache;
  /** Row texts searches made, kept across builds for the parts (episodes) an append did not touch. */
  readonly search_texts = new SearchTexts();
  /** The session's calls by class and tokens, taken on across builds over the finished episodes. */
  readonly class_totals = new FinishedEpisodesSum<Partial<Record<CallClass, number>>>({
    initial: () => ({}),
    copy: (counts) => ({ ...counts }),
    add: (counts, episode) => addCounts(counts, this.episodeViews(episode).class_counts),
  });
  readonly token_totals = new FinishedEpisodesSum<{ tokens: Record<string, number>; cost: Cost }>({
    initial: () => ({ tokens: {}, cost: noCost() }),
    copy: (sums) => ({ tokens: { ...sums.tokens }, cost: copyCost(sums.cost) }),
    // A finished episode's sums are summed once from its steps' usage, as its timing sums them: the timing of
    // every episode (spans and all) was made for these sums alone, ~85 ms of the 1 GiB session's first status.
    // An open episode's come from its timing, which getSession makes anyway and an append goes on from.
    add: (sums, episode) => {
      addCounts(sums.tokens, episode.finished === null ? episodeTiming(episode, this.sums).tokens : sumUsage(episode.steps.map((step) => step.usage)));
      addCost(sums.cost, episode.finished === null ? episodeTiming(episode, this.sums).cost : episodeCost(episode));
    },
  });

  /** Tool outputs shown in rows and messages are read back through `payloads`. `signals` come from the whole
   *  read (its end, its operator actions, the plan the run's status is decided by), so they are made by the
   *  caller for every build. */
  build(fold: SessionFold, payloads: PayloadReader, signals: { run: RunSignal; recoveries: RecoveryEntry[]; resume: RecoveryPlan }): SessionViews {
    const parts = fold.episodes.map((episode) => this.episodeViews(episode));
    const timelineOf = () => this.timelineOf(fold, parts, signals.run, sessionRows);
    const request = this.request(fold, parts);
    // The message at `index` of the request, its payloads read back: told tool or assistant by its place in its
    // step's turn (withOutputsAt), never by the role the WAL gives it.
    const shown = (index: number, reader = payloads): JsonPayload => {
      const part_number = views.messages.partOf(index);
      const messages = views.messages.part(part_number);
      const at = index - views.messages.startOf(part_number);
      const rendered = messages.at(at)!;
      const episode_at = rendered.origin.episode - 1;
      const part = parts[episode_at];
      if (part === undefined || fold.episodes[episode_at]?.episode !== rendered.origin.episode) return rendered.message;
      return withOutputsAt((part.index ??= EpisodeIndex.of(fold.episodes[episode_at]!, this.sums)), messages, at, reader, OUTPUT_CUT);
    };
    let session_rows: TimelineRow[] | null = null;
    const sessionRows = () => (session_rows ??= [...outsideRows(fold.outside, signals.recoveries), ...sessionAnomalyRows(fold.anomalies)]);
    let timeline: Segments<TimelineRow> | null = null;
    const class_counts = this.class_totals.of(fold.episodes);
    let totals: { tokens: Record<string, number>; cost: Cost } | null = null;
    const tokenTotals = () => (totals ??= this.token_totals.of(fold.episodes));
    const views: SessionViews = {
      fold,
      get timeline() {
        timeline ??= timelineOf();
        return timeline;
      },
      get messages() {
        return request.messages();
      },
      resume: signals.resume,
      class_counts,
      get tokens() {
        return tokenTotals().tokens;
      },
      get cost() {
        return tokenTotals().cost;
      },
      run: signals.run,
      recoveries: signals.recoveries,
      transcriptValid: request.valid,
      timelineRows: (start, count) => views.timeline.slice(start, count).map((row) => this.step_rows.shown(row, payloads)),
      transcript: (start, count) => Array.from({ length: Math.max(0, Math.min(count, views.messages.length - start)) }, (_, offset) => transcriptRow(shown(start + offset), start + offset)),
      timelineRowOf: (seq) => rowOfSeq(fold, views.timeline, seq),
      searchText: (list, part, index, reader) => {
        if (list === 'timeline') {
          const rows = views.timeline.part(part);
          return this.search_texts.text(rows, index, () => JSON.stringify(this.step_rows.shown(rows.at(index)!, reader)).toLowerCase());
        }
        const messages = views.messages.part(part);
        return this.search_texts.text(messages, index, () => JSON.stringify(transcriptRow(shown(views.messages.startOf(part) + index, reader), views.messages.startOf(part) + index)).toLowerCase());
      },
    };
    return views;
  }

  /** The next request as the views show it: its episodes' parts joined (a compaction view in force decides which
   *  turns each part carries), none at all when any part cannot be rendered, as renderSessionRequest makes it.
   *  A part is made when a page or a search reaches it and kept with its episode's views, so an append
   *  re-renders the open episode's part only; until then a finished episode's part is known by its facts. */
  private request(fold: SessionFold, parts: readonly EpisodeViews[]): { messages: () => Segments<RenderedMessage>; valid: () => boolean } {
    const episodeAt = (index: number) => fold.episodes[index]!;
    const partOf = (index: number) => (parts[index]!.request ??= renderEpisodeRequest(episodeAt(index), this.sums));
    const shapeOf = (index: number): { count: number; problems: readonly RequestProblem[] } => {
      const made = parts[index]!.request;
      if (made === null && episodeAt(index).finished !== null) return finishedPartFacts(episodeAt(index), this.sums);
      const { messages, problems } = made ?? partOf(index);
      return { count: messages.length, problems };
    };
    const turnsAt = (index: number): RequestTurns => {
      const episode = episodeAt(index);
      return (parts[index]!.turns ??= episode.finished !== null ? finishedPartFacts(episode, this.sums).turns : turnsOf(this.episode_turns.of(episode, this.sums)));
    };
    let renders: boolean | null = null;
    const requestRenders = () => (renders ??= parts.every((_, index) => shapeOf(index).problems.length === 0));
    let messages: Segments<RenderedMessage> | null = null;
    let valid: boolean | null = null;
    return {
      messages: () =>
        (messages ??= requestRenders()
          ? new Segments(parts.map((_, index) => shapeOf(index).count), (index) => partOf(index).messages, (index) => parts[index]!.request?.messages)
          : Segments.of<RenderedMessage>([])),
      valid: () => (valid ??= requestRenders() && turnsValid(parts.map((_, index) => turnsAt(index)))),
    };
  }

  /** Each episode's rows counted without laying them out, its count kept with its views; an episode's rows are
   *  laid out when a page or a search reaches them. The last episode's are marked with the run signal. */
  private timelineOf(fold: SessionFold, parts: readonly EpisodeViews[], run: RunSignal, sessionRows: () => TimelineRow[]): Segments<TimelineRow> {
    const episodes = fold.episodes.length;
    const rowsOf = (index: number): TimelineRow[] => {
      const rows = (parts[index]!.rows ??= episodeRows(fold.episodes[index]!, this.step_rows));
      // The last episode's row shows the run signal; the kept rows stay as built, since the signal can change
      // (a tail torn later) while the episode does not.
      return index === episodes - 1 ? this.markedLast(rows, fold.episodes[index]!, run) : rows;
    };
    const lengths = [...parts.map((part, index) => part.rows?.length ?? (part.row_count ??= episodeRowCount(fold.episodes[index]!, this.step_rows))), sessionRows().length];
    const make = (index: number) => (index < episodes ? rowsOf(index) : sessionRows());
    // A page of the last episode is laid out alone until its rows are (a search, a jump to a seq): a live
    // episode changes at every append, and its rows would be laid out anew each time.
    const lastPage = (index: number, start: number, count: number): TimelineRow[] | undefined => {
      if (index !== episodes - 1 || parts[index]!.rows !== null) return undefined;
      const last = fold.episodes[index]!;
      const page = episodeRowsPage(last, this.step_rows, start, count);
      const head = start === 0 ? markLastEpisode(page, last, run) : null;
      if (head !== null) page[0] = head;
      return page;
    };
    return new Segments<TimelineRow>(lengths, make, (index) => (index < episodes - 1 ? (parts[index]!.rows ?? undefined) : undefined), lastPage);
  }

  /** The last episode's rows with its own row marked, kept while the rows and the mark are the same: the next
   *  build (a lease probed, a summary asked for) shows the same list, and a search keeps its texts for it. */
  private markedLast(rows: TimelineRow[], last: EpisodeFold, run: RunSignal): TimelineRow[] {
    const head = markLastEpisode(rows, last, run);
    const kept = this.last_marked;
    if (kept?.rows === rows && kept.head?.state_word === head?.state_word && kept.head?.last_durable === head?.last_durable) return kept.marked;
    const marked = rows.slice();
    if (head !== null) marked[0] = head;
    this.last_marked = { rows, head, marked };
    return marked;
  }

  private last_marked: { rows: TimelineRow[]; head: Extract<TimelineRow, { kind: 'episode' }> | null; marked: TimelineRow[] } | null = null;

  private episodeViews(episode: EpisodeFold): EpisodeViews {
    const known = this.per_episode.get(episode);
    if (known !== undefined) return known;
    this.episodes_rebuilt += 1;
    const views: EpisodeViews = { rows: null, class_counts: this.calls_by_class.of(episode, this.sums), request: null, turns: null, index: null };
    this.per_episode.set(episode, views);
    return views;
  }
}

function addCounts<Name extends string>(into: Partial<Record<Name, number>>, counts: Partial<Record<Name, number>>): void {
  for (const [name, count] of Object.entries(counts) as [Name, number][]) into[name] = (into[name] ?? 0) + count;
}

/** The last episode's row says "cut short" or "open in this copy", with its last durable state, instead of the
 *  fold's "running" when nothing is running it: its own row (the first of its rows), marked; null when the
 *  rows hold none. */
function markLastEpisode(rows: readonly TimelineRow[], last: EpisodeFold, run: RunSignal): Extract<TimelineRow, { kind: 'episode' }> | null {
  const row = rows[0];
  if (row?.kind !== 'episode' || row.episode !== last.episode) return null;
  return { ...row, state_word: episodeWord(last, run, last.episode), last_durable: run.last_durable };
}

/** The episode a seq most likely shows in is the last one started at or before it; a late record of an earlier
 *  batch, or one outside every episode, is found by looking through the rest. */
function rowOfSeq(fold: SessionFold, timeline: Segments<TimelineRow>, seq: number): number | null {
  if (!Number.isSafeInteger(seq) || seq < 1) return null;
  let guess = -1;
  for (let low = 0, high = fold.episodes.length - 1; low <= high; ) {
    const middle = (low + high) >> 1;
    if (fold.episodes[middle]!.started_seq <= seq) {
      guess = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  const order = guess < 0 ? [] : [guess];
  for (let part = 0; part < timeline.part_count; part++) if (part !== guess) order.push(part);
  for (const part of order) {
    const found = timeline.part(part).findIndex((row) => row.seqs.includes(seq));
    if (found >= 0) return timeline.startOf(part) + found;
  }
  return null;
}

export function listLength(views: SessionViews, list: Exclude<RowList, 'records'>): number {
  return list === 'timeline' ? views.timeline.length : views.messages.length;
}

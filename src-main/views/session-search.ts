// A session's searches and timeline filter, each taken on step by step across the window's asks (SEARCH_STEP_MS
// a step: a search of a million records answers with the matches so far, and asking again goes on). A search
// holds the views and the record index it walks: it belongs to one residency of the session, and is dropped with
// the views when the session is released or its read starts over. It reads the WAL only through the reads it is
// handed (`SearchReads`: the session model's, services/search-reads.ts), one open file a step.
import type { FilteredRow, FilteredTimeline, RecordRow, RowList, SearchResult } from '../../src-shared/ipc.js';
import { PAGE_ROWS_MAX, SEARCH_MATCHES_MAX, SEARCH_QUERY_CHARS_MAX } from '../../src-shared/ipc.js';
import { filterSet, type TimelineFilter } from '../../src-shared/timeline-filter.js';
import type { PayloadReader } from '../replay/payloads.js';
import type { SearchedList, SearchTexts, Segments, SessionViews } from './session-views.js';
import { scanStep, sharedParts } from './stepped-scan.js';
import { FilterScan } from './timeline-filter.js';

/** The records a search walks, as the session's record index has them (services/record-index.ts). */
export interface SearchedRecords {
  readonly length: number;
  row(index: number): RecordRow;
  frameOfSeq(seq: number): number | null;
  typeName(index: number): string;
}

/** The reads a search step makes, each through one open file of the session's WAL. */
export interface SearchReads {
  /** `use` with the WAL's payloads read back. */
  payloadPass<T>(use: (read: PayloadReader) => T): T;
  /** `use` with each record's payload map as stored, its bytes as latin1 text, by frame offset (null for a frame
   *  that no longer reads back); null, with `use` not called, when the WAL cannot be opened. */
  recordPass<T>(use: (storedBody: (offset: number) => string | null) => T): T | null;
}

/** What a search walks: the session's views (null: not resident), its record index and the texts its views
 *  keep for searches. */
export interface Searched {
  views: SessionViews | null;
  index: SearchedRecords;
  search_texts: SearchTexts;
}

interface ListSearch {
  list: SearchedList;
  needle: string;
  views: SessionViews;
  /** The list searched, as parts: an append makes new views, and the parts they share with these are kept. */
  segments: Segments<unknown>;
  /** The filter whose rows are searched (its walk complete): `index` is then the next of its kept rows. */
  filtered: FilterScan | null;
  /** The next row to match: row `index` of part `part`. */
  part: number;
  index: number;
  rows: number[];
  truncated: boolean;
}

interface RecordsSearch {
  needle: string;
  /** The index searched: a restarted read makes a new one, and the search starts over. */
  index: SearchedRecords;
  next: number;
  rows: number[];
  truncated: boolean;
}

export class SessionSearch {
  private records: RecordsSearch | null = null;
  private list: ListSearch | null = null;
  private filter_scan: FilterScan | null = null;

  constructor(private readonly reads: SearchReads) {}

  /** Rows the timeline filter walked: what a filter cost (the tests count it). */
  get filter_rows_walked(): number {
    return this.filter_scan?.walked ?? 0;
  }

  /** A timeline search with a filter set searches the rows the filter keeps, once it has walked the timeline
   *  (until then it answers incomplete, with no match), and its matches are places in the filtered timeline. */
  search(list: RowList, query: string, filter: TimelineFilter, searched: Searched): SearchResult {
    const needle = query.slice(0, SEARCH_QUERY_CHARS_MAX).toLowerCase();
    if (list === 'records') return this.searchRecords(needle, searched.index);
    const views = searched.views;
    if (needle.length === 0 || views === null) return { list, query: needle, rows: [], truncated: false, complete: true };
    const filtered = list === 'timeline' && filterSet(filter) ? this.filterScan(filter, views) : null;
    if (filtered !== null && !filtered.done) {
      filtered.step(recordTypeIn(searched.index));
      return { list, query: needle, rows: [], truncated: false, complete: false };
    }
    const search = this.listSearch(list, needle, views, filtered, searched.search_texts);
    if (!listSearchDone(search)) this.listSearchStep(search);
    return { list, query: needle, rows: [...search.rows], truncated: search.truncated, complete: listSearchDone(search) };
  }

  /** A window of the timeline's rows `filter` keeps, its walk taken on by one step first. */
  filterTimeline(key: string, filter: TimelineFilter, start: number, count: number, searched: Searched): FilteredTimeline {
    const first = clampInt(start, 0, Number.MAX_SAFE_INTEGER);
    const size = clampInt(count, 0, PAGE_ROWS_MAX);
    const views = searched.views;
    if (views === null) return { key, filter, start: first, total: 0, matched: 0, of: 0, complete: false, truncated: false, rows: [] };
    const scan = this.filterScan(filter, views);
    if (!scan.done) scan.step(recordTypeIn(searched.index));
    const rows: FilteredRow[] = [];
    for (let k = first; k < Math.min(scan.rows.length, first + size); k++) {
      const { at, context } = scan.kept(k);
      rows.push({ at, context, row: views.timelineRows(at, 1)[0]! });
    }
    return { key, filter, start: first, total: scan.rows.length, matched: scan.matched, of: views.timeline.length, complete: scan.done, truncated: scan.truncated, rows };
  }

  private filterScan(filter: TimelineFilter, views: SessionViews): FilterScan {
    return (this.filter_scan = FilterScan.of(filter, views.timeline, this.filter_scan));
  }

  /** The search of `list` for `needle` in `views` (over the rows `filtered` keeps, when set): the one under way
   *  when it is the same search; when the views changed (an append), an unfiltered search goes on from the first
   *  part they no longer share with the ones searched, keeping the matches before it. */
  private listSearch(list: SearchedList, needle: string, views: SessionViews, filtered: FilterScan | null, search_texts: SearchTexts): ListSearch {
    const segments = list === 'timeline' ? views.timeline : views.messages;
    const known = this.list;
    if (known?.list === list && known.needle === needle && known.segments === segments && known.filtered === filtered) return known;
    search_texts.retainOnly(segments.readyParts());
    const search: ListSearch = { list, needle, views, segments, filtered, part: 0, index: 0, rows: [], truncated: false };
    if (known?.list === list && known.needle === needle && known.filtered === null && filtered === null) {
      search.part = sharedParts(known.segments, known.part, segments);
      const end = search.part === 0 ? 0 : segments.startOf(search.part);
      search.rows = known.rows.filter((row) => row < end);
    }
    return (this.list = search);
  }

  /** One step of a list search, its payloads read through one open file. */
  private listSearchStep(search: ListSearch): void {
    this.reads.payloadPass((read) => scanStep(search, () => !listSearchDone(search), () => {
      if (search.filtered !== null) {
        const k = search.index++;
        const { at } = search.filtered.kept(k);
        const part = search.segments.partOf(at);
        return search.views.searchText(search.list, part, at - search.segments.startOf(part), read).includes(search.needle) ? k : null;
      }
      const rows = search.segments.part(search.part);
      if (search.index >= rows.length) {
        search.part += 1;
        search.index = 0;
        return null;
      }
      const at = search.index++;
      return search.views.searchText(search.list, search.part, at, read).includes(search.needle) ? search.segments.startOf(search.part) + at : null;
    }, SEARCH_MATCHES_MAX));
  }

  /** Records match on their type, seq and payload text. Payloads are on disk, so a search over many records
   *  runs in steps of SEARCH_STEP_MS: each answer carries the matches so far, and asking again with the same
   *  query goes on from where the last step stopped (over records appended meanwhile too). */
  private searchRecords(needle: string, index: SearchedRecords): SearchResult {
    let search = this.records;
    if (search === null || search.needle !== needle || search.index !== index) {
      search = this.records = { needle, index, next: 0, rows: [], truncated: false };
    }
    if (needle.length > 0 && search.next < index.length && !search.truncated) this.recordsSearchStep(search);
    return { list: 'records', query: needle, rows: [...search.rows], truncated: search.truncated, complete: search.truncated || search.next >= index.length };
  }

  private recordsSearchStep(search: RecordsSearch): void {
    // Payload bytes are matched as they are stored (CBOR text is UTF-8), compared through the same latin1
    // lowercasing on both sides: no decoding per record.
    const needle_bytes = Buffer.from(search.needle, 'utf8').toString('latin1').toLowerCase();
    const stepped = this.reads.recordPass((storedBody) => scanStep(search, () => search.next < search.index.length, () => {
      const at = search.next++;
      const row = search.index.row(at);
      if (`${row.type} seq ${row.seq}`.toLowerCase().includes(search.needle)) return at;
      return storedBody(row.offset)?.toLowerCase().includes(needle_bytes) === true ? at : null;
    }, SEARCH_MATCHES_MAX));
    if (stepped === null) search.next = search.index.length;
  }
}

function listSearchDone(search: ListSearch): boolean {
  return search.truncated || (search.filtered === null ? search.part >= search.segments.part_count : search.index >= search.filtered.rows.length);
}

/** The type of record `seq` in `index`, or null when the WAL holds none. */
function recordTypeIn(index: SearchedRecords): (seq: number) => string | null {
  return (seq) => {
    const at = index.frameOfSeq(seq);
    return at === null ? null : index.typeName(at);
  };
}

/** A window's start or size from the wire: a whole number within [min, max] (NaN and the infinities: min). */
export function clampInt(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

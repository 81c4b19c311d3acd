// The Timeline's filter: which rows it keeps (errors only, a call class, a tool, a record type; all set ones at
// once), as the API carries it, the address keeps it and the service applies it. Plain data: the service decides
// what a row is (src-main/views/timeline-filter.ts), the renderer only asks.
import type { CallClass } from './replay.js';
import { CLASS_WORDS } from './words.js';

export interface TimelineFilter {
  /** Only the rows of what went wrong (`ERRORS_ONLY_WORDS` says which). */
  errors: boolean;
  /** Only the calls of this §10 class. */
  call_class: CallClass | null;
  /** Only the calls of this tool. */
  tool: string | null;
  /** Only the rows showing a record of this type. */
  record_type: string | null;
}

/** The filter that keeps every row. */
export const ALL_ROWS: TimelineFilter = { errors: false, call_class: null, tool: null, record_type: null };

/** A tool name or record type longer than this is no name a WAL of ours holds: refused, not cut. */
export const FILTER_NAME_CHARS_MAX = 200;
/** Tools listed for choice at most (their calls counted); a session of more distinct names lists these. */
export const FILTER_TOOLS_MAX = 200;
/** Rows one filter keeps at most (matched and context): past it the answer says `truncated`. */
export const FILTER_ROWS_MAX = 1_000_000;

export function filterSet(filter: TimelineFilter): boolean {
  return filter.errors || filter.call_class !== null || filter.tool !== null || filter.record_type !== null;
}

export function sameTimelineFilter(left: TimelineFilter, right: TimelineFilter): boolean {
  return left.errors === right.errors && left.call_class === right.call_class && left.tool === right.tool && left.record_type === right.record_type;
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= FILTER_NAME_CHARS_MAX;
}

function isCallClass(value: unknown): value is CallClass {
  return typeof value === 'string' && Object.hasOwn(CLASS_WORDS, value);
}

/** Why `value` is not a TimelineFilter, or null: what the API's argument check says. */
export function filterProblem(value: unknown): string | null {
  const filter = value as TimelineFilter;
  const ok = typeof filter === 'object' && filter !== null && Object.keys(filter).length === 4 && typeof filter.errors === 'boolean'
    && (filter.call_class === null || isCallClass(filter.call_class)) && (filter.tool === null || isName(filter.tool)) && (filter.record_type === null || isName(filter.record_type));
  return ok ? null : `{errors: true or false, call_class: a call class or null, tool: a name or null, record_type: a name or null} (names of 1 to ${FILTER_NAME_CHARS_MAX} characters)`;
}

/** The address's parameters of a filter (location.ts), by field. */
const PARAMS = { errors: 'errors', call_class: 'class', tool: 'tool', record_type: 'type' } as const;

/** The parameters naming `filter`: only the ones set. */
export function filterParams(filter: TimelineFilter): [string, string][] {
  const params: [string, string][] = [];
  if (filter.errors) params.push([PARAMS.errors, '1']);
  if (filter.call_class !== null) params.push([PARAMS.call_class, filter.call_class]);
  if (filter.tool !== null) params.push([PARAMS.tool, filter.tool]);
  if (filter.record_type !== null) params.push([PARAMS.record_type, filter.record_type]);
  return params;
}

/** The filter the parameters name (`param` gives one by name, null when absent); one naming nothing a filter
 *  takes is left out. */
export function filterFromParams(param: (name: string) => string | null): TimelineFilter {
  const name = (value: string | null) => (isName(value) ? value : null);
  const call_class = param(PARAMS.call_class);
  return { errors: param(PARAMS.errors) === '1', call_class: isCallClass(call_class) ? call_class : null, tool: name(param(PARAMS.tool)), record_type: name(param(PARAMS.record_type)) };
}

// The service's data through react-query, kept fresh by the service's events: a change to a session
// invalidates only that session's queries, and only mounted ones (the visible pages) refetch.
import { keepPreviousData, mutationOptions, queryOptions, skipToken, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { OUTPUT_PAGE_ROWS_MAX, withChangedSummaries, type ActionKind, type ActionPreview, type CallRef, type HostView, type Progress, type RetirePreview, type RowList, type RowPage, type SessionDetail, type SessionFilter, type SessionChanges, type SessionSummary, type SessionTail, type WalscopeEvent } from '../src-shared/ipc.js';
import type { Finding } from '../src-shared/replay.js';
import type { ComparePage } from '../src-shared/compare.js';
import type { RedactClass } from '../src-shared/bundle.js';
import { filterSet, sameTimelineFilter, type TimelineFilter } from '../src-shared/timeline-filter.js';
import { api } from './api/api.js';

export const PAGE_ROWS = 100;
/** Steps of a comparison per page the compare view asks for: a step's word diffs can be tens of kilobytes. */
export const COMPARE_VIEW_PAGE_STEPS = 20;
/** Rows of a tool output per page the output view asks for. */
export const OUTPUT_VIEW_PAGE_ROWS = 200;
const READING_POLL_MS = 500;
/** How often a search still in progress is asked for more matches. */
const SEARCH_POLL_MS = 150;

/** Prefixes of the keys below, for what invalidates many queries at once (a session's every view, every page). */
export const keys = {
  sessions: ['sessions'] as const,
  sessionPages: ['session-pages'] as const,
  alerts: ['alerts'] as const,
  /** Everything of one session that changes when it grows: its detail, pages, timing, context, history, tail. */
  session: (key: string) => ['session', key] as const,
  /** Every page of one comparison: a comparison is a snapshot of both WALs, asked for again by "Compare again"
   *  (not at every append: it reads both WALs whole). */
  comparison: (a: string, b: string, episode: number | null) => ['compare', a, b, episode] as const,
};

/** Every read of the service: each query's key and function defined once, beside each other (TanStack's
 *  `queryOptions`). Components use these with useQuery, or `readOnce` for an answer asked for once. */
export const queries = {
  workspace: () => queryOptions({ queryKey: ['workspace'], queryFn: () => api.getWorkspace() }),
  /** The whole list, kept current by the service's pushed events (not by refetching on focus: an answer in flight
   *  when an event comes is older than it, see `onListEvent`). A fleet is never listed whole. */
  sessions: (listed: boolean) => queryOptions({ queryKey: keys.sessions, queryFn: listed ? () => api.listSessions() : skipToken, refetchOnWindowFocus: false }),
  /** One page of the filtered session list (a fleet's list is only ever read this way). */
  sessionPage: (filter: SessionFilter, page: number) => queryOptions({
    queryKey: [...keys.sessionPages, filter, page] as const,
    queryFn: () => api.listPage(filter, page * PAGE_ROWS, PAGE_ROWS),
    // While a page loads, keep showing the one before it, but never another filter's rows.
    placeholderData: (previous) => (previous !== undefined && sameFilter(previous.filter, filter) ? previous : undefined),
  }),
  /** While a big session is still being read its detail says `loading`: it is asked again until it is read (the
   *  service's event also says so, but may overtake the answer it follows). Its pages are refetched then. */
  session: (client: QueryClient, key: string | null) => queryOptions({
    queryKey: [...keys.session(key ?? ''), 'detail'] as const,
    queryFn: key === null ? skipToken : async (): Promise<SessionDetail> => {
      const before = client.getQueryData<SessionDetail>([...keys.session(key), 'detail']);
      const detail = await api.getSession(key);
      if (before?.summary.status === 'loading' && detail.summary.status !== 'loading') void client.invalidateQueries({ queryKey: [...keys.session(key), 'rows'] });
      return detail;
    },
    refetchInterval: (query) => (query.state.data?.summary.status === 'loading' ? READING_POLL_MS : false),
  }),
  /** A big session's provisional tail while it is read from its start (null once read), asked again with its
   *  detail so its progress moves. A tail once shown is kept when the service says the read is done (null): the
   *  detail saying so may come a poll later, and the session view hands over to the real list only then. */
  tail: (client: QueryClient, key: string, reading: boolean) => queryOptions({
    queryKey: [...keys.session(key), 'tail'] as const,
    queryFn: reading ? async () => (await api.getTail(key)) ?? client.getQueryData<SessionTail | null>([...keys.session(key), 'tail']) ?? null : skipToken,
    refetchInterval: reading ? READING_POLL_MS : false,
    // Dropped with the view that showed it: a session opened again later is not shown a tail it no longer has.
    gcTime: 0,
  }),
  page: <L extends RowList>(key: string, list: L, page: number) => queryOptions({
    queryKey: [...keys.session(key), 'rows', list, page] as const,
    queryFn: () => api.getRows(key, list, page * PAGE_ROWS, PAGE_ROWS) as Promise<RowPage<L>>,
    // While a page loads, keep showing the one before it, but never another list's or session's rows.
    placeholderData: (previous) => (previous?.list === list && previous.key === key ? previous : undefined),
  }),
  /** A page of the filtered timeline; asked again while the filter's walk is under way, as a search is. */
  filtered: (key: string, filter: TimelineFilter, page: number) => queryOptions({
    queryKey: [...keys.session(key), 'filtered', filter, page] as const,
    queryFn: filterSet(filter) ? () => api.filterTimeline(key, filter, page * PAGE_ROWS, PAGE_ROWS) : skipToken,
    refetchInterval: (current) => (current.state.data?.complete === false ? SEARCH_POLL_MS : false),
    // While a page loads, keep showing the one before it, but never another filter's rows.
    placeholderData: (previous) => (previous?.key === key && sameTimelineFilter(previous.filter, filter) ? previous : undefined),
  }),
  /** Frames never change once written: a record is not refetched when its session grows. */
  record: (key: string, index: number | null) => queryOptions({ queryKey: ['record', key, index] as const, queryFn: index === null ? skipToken : () => api.getRecord(key, index) }),
  /** A page of a tool output's rows: a written output never changes, so it is not refetched as its session grows. */
  outputPage: (key: string, seq: number, page: number) => queryOptions({
    queryKey: ['output', key, seq, page] as const,
    queryFn: () => api.getOutput(key, seq, page * OUTPUT_VIEW_PAGE_ROWS, OUTPUT_VIEW_PAGE_ROWS),
  }),
  /** The largest page the API gives, for a copy of the whole output: asked once, not kept. */
  outputCopyPage: (key: string, seq: number, start: number) => queryOptions({
    queryKey: ['output-copy', key, seq, start] as const,
    queryFn: () => api.getOutput(key, seq, start, OUTPUT_PAGE_ROWS_MAX),
    gcTime: 0,
  }),
  /** A search over payloads on disk comes in steps: asked again until every row was searched. */
  search: (key: string, list: RowList, query: string, filter: TimelineFilter, last_seq: number) => queryOptions({
    queryKey: [...keys.session(key), 'search', list, query, filter, last_seq] as const,
    queryFn: query.trim().length === 0 ? skipToken : () => api.search(key, list, query, filter),
    refetchInterval: (current) => (current.state.data?.complete === false ? SEARCH_POLL_MS : false),
  }),
  /** The last episode's waterfall is asked for again when its bars change (the detail's digest of them), not at
   *  every append; an earlier episode's is refreshed with the session's other queries. A live episode's earlier
   *  waterfalls are not kept: each is up to ~200 KB. */
  timing: (key: string, episode: number | null, last: { episode: number; spans_digest: string } | null) => queryOptions({
    queryKey: last !== null && episode === last.episode ? (['last-timing', key, episode, last.spans_digest] as const) : ([...keys.session(key), 'timing', episode] as const),
    queryFn: episode === null ? skipToken : () => api.getTiming(key, episode),
    placeholderData: (previous) => previous,
    gcTime: 0,
  }),
  /** The live lineage grows: asked again when the session's last seq moves, and when its first read completes. */
  history: (key: string, last_seq: number, reading: boolean) => queryOptions({
    queryKey: [...keys.session(key), 'history', last_seq, reading] as const,
    queryFn: () => api.getHistory(key),
    placeholderData: keepPreviousData,
  }),
  /** One step's request: asked again when an episode up to the one shown changes (`moved`), and when an episode
   *  is added (the picker's list, keyed on their count), not at every append to a later episode. */
  context: (key: string, episode: number | null, step_id: number | null, episodes: number) => queryOptions({
    queryKey: [...keys.session(key), 'context', episode, step_id, episodes] as const,
    queryFn: () => api.getContext(key, episode, step_id),
    placeholderData: (previous) => previous,
  }),
  acknowledgePreview: (key: string, call: CallRef, finding: Finding | null) => queryOptions({
    queryKey: [...keys.session(key), 'acknowledge-preview', call, finding] as const,
    queryFn: finding === null ? skipToken : () => api.previewAcknowledge(key, call, finding),
    gcTime: 0,
  }),
  /** Asked once, when the user jumps or saves: never kept. */
  locate: (key: string, seq: number) => queryOptions({ queryKey: [...keys.session(key), 'locate', seq] as const, queryFn: () => api.locateSeq(key, seq), gcTime: 0 }),
  /** The workspace's alerts, asked again at each `alerts` event. */
  alerts: () => queryOptions({ queryKey: keys.alerts, queryFn: () => api.getAlerts() }),
  /** A page of a comparison's steps; the first (page 0) carries the outline every row is drawn from. */
  comparePage: (a: string, b: string, episode: number | null, page: number) => queryOptions({
    queryKey: [...keys.comparison(a, b, episode), page] as const,
    queryFn: (): Promise<ComparePage> => api.compareSessions(a, b, episode, page * COMPARE_VIEW_PAGE_STEPS, COMPARE_VIEW_PAGE_STEPS),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  }),
  report: (key: string) => queryOptions({ queryKey: [...keys.session(key), 'report'] as const, queryFn: () => api.getReport(key), gcTime: 0, staleTime: 0 }),
  /** The session's bundle page (getBundle), `redact`'s classes redacted: made anew each time, never kept. */
  bundle: (key: string, redact: RedactClass[]) => queryOptions({ queryKey: [...keys.session(key), 'bundle', redact] as const, queryFn: () => api.getBundle(key, redact), gcTime: 0, staleTime: 0, retry: false }),
};

function sameFilter(left: SessionFilter, right: SessionFilter): boolean {
  return left.status === right.status && left.host === right.host && left.attention === right.attention;
}

/** The service's writes and their previews, as mutation options: each refreshes what it changed. */
export const writes = {
  previewAction: (key: string) => mutationOptions({ mutationFn: (kind: ActionKind) => api.previewAction(key, kind) }),
  runAction: (client: QueryClient, key: string) => mutationOptions({
    mutationFn: ({ preview, reason, operator }: { preview: ActionPreview; reason: string; operator: string }) => api.runAction(key, preview.kind, preview.based_on_seq, reason, operator),
    onSuccess: () => refreshSession(client, key),
  }),
  previewRetire: (key: string) => mutationOptions({ mutationFn: (reason: 'sealed' | 'deleted') => api.previewRetire(key, reason) }),
  runRetire: (client: QueryClient, key: string) => mutationOptions({
    mutationFn: ({ preview, reason, operator }: { preview: RetirePreview; reason: string; operator: string }) => api.runRetire(key, preview.reason, preview.plan!, reason, operator),
    onSuccess: () => refreshSession(client, key),
  }),
  runAcknowledge: (client: QueryClient, key: string) => mutationOptions({
    mutationFn: ({ call, finding, based_on_seq, reason, operator }: { call: CallRef; finding: Finding; based_on_seq: number; reason: string; operator: string }) => api.runAcknowledge(key, call, finding, based_on_seq, reason, operator),
    onSuccess: () => refreshSession(client, key),
  }),
};

/** After a write: the session's every view, and the list (its status may have changed). */
function refreshSession(client: QueryClient, key: string): void {
  void client.invalidateQueries({ queryKey: keys.session(key) });
  void client.invalidateQueries({ queryKey: keys.sessions });
}

export { notices_from_main } from './api/api.js';

/** A file or folder dropped on the desktop window, opened as the workspace; null where the transport has none. */
export const openDropped = api.openDropped ?? null;

/** A session's bundle saved through the desktop's save dialog; null in a browser (which downloads `queries.bundle`). */
export const saveBundle = api.saveBundle ?? null;

/** Subscribes once to the service's events; returns the latest progress per session. */
export function useServiceEvents(): Map<string, Progress> {
  const client = useQueryClient();
  const [progress, setProgress] = useState(new Map<string, Progress>());
  const online = useRef(new Map<string, boolean>());
  useEffect(() => followEvents(client, setProgress, online.current), [client]);
  return progress;
}

/** Keeps `client`'s answers current from the service's events from now on; returns the unsubscribe. */
export function followEvents(client: QueryClient, setProgress: (update: (previous: Map<string, Progress>) => Map<string, Progress>) => void, online: Map<string, boolean>): () => void {
  return api.subscribe((event) => onEvent(client, event, setProgress, online));
}

function onEvent(client: QueryClient, event: WalscopeEvent, setProgress: (update: (previous: Map<string, Progress>) => Map<string, Progress>) => void, online: Map<string, boolean>): void {
  switch (event.type) {
    case 'workspace':
      client.setQueryData(queries.workspace().queryKey, event.workspace);
      break;
    case 'sessions':
    case 'summaries':
      onListEvent(client, event);
      break;
    case 'session':
      void client.invalidateQueries({ queryKey: keys.session(event.key), refetchType: 'active', predicate: (query) => event.changes.restart || moved(query.queryKey, event.changes) });
      break;
    case 'missed':
      void client.invalidateQueries({ refetchType: 'active' });
      break;
    case 'progress':
      setProgress((previous) => {
        const next = new Map(previous);
        if (event.progress.finished) next.delete(event.progress.key);
        else next.set(event.progress.key, event.progress);
        return next;
      });
      break;
    case 'fleet':
      onFleetEvent(client, event.hosts, event.changed, online);
      break;
    case 'alerts':
      void client.invalidateQueries({ queryKey: keys.alerts });
      break;
  }
}

/** Whether the session query `key` (['session', session key, what, ...]) shows something `changes` moved: a
 *  page at or after its list's first changed row, or holding an episode's row that changed; a search or filter
 *  over a list that changed; an episode's waterfall that changed; a step's request holding an episode that
 *  changed. The history is keyed on the last seq, which the
 *  detail brings. */
function moved(key: readonly unknown[], changes: SessionChanges): boolean {
  const [, , what, list, page] = key;
  const changed = (of: RowList) => changes.from[of] !== null || (of === 'timeline' && changes.heads.length > 0);
  switch (what) {
    case 'rows': {
      const start = (page as number) * PAGE_ROWS;
      const from = changes.from[list as RowList];
      return (from !== null && from < start + PAGE_ROWS) || (list === 'timeline' && changes.heads.some((row) => row >= start && row < start + PAGE_ROWS));
    }
    case 'filtered':
      return changed('timeline');
    case 'search':
      return changed(list as RowList);
    case 'timing':
      return changes.episodes.includes(list as number);
    case 'context':
      // A step's request holds its own episode and every earlier one; no episode shown (null) is the last one.
      return list === null ? changes.episodes.length > 0 : changes.episodes.some((episode) => episode <= (list as number));
    case 'history':
      return false;
    default:
      return true;
  }
}

/** A list answer still on its way may have been made before this event (the answer and the events come by two
 *  connections) and would undo it when it lands: the list is then asked for again once that answer is in. With
 *  no list yet the event was dropped, and sessions whose last summary it carried stayed "loading" for good (a
 *  root of 1,000 sessions read while its first list was in flight). */
function onListEvent(client: QueryClient, event: Extract<WalscopeEvent, { type: 'sessions' | 'summaries' }>): void {
  if (client.getQueryData(keys.sessions) === undefined || client.isFetching({ queryKey: keys.sessions }) > 0) {
    askListAgain(client);
    return;
  }
  if (event.type === 'sessions') client.setQueryData(keys.sessions, event.sessions);
  else client.setQueryData<SessionSummary[]>(keys.sessions, (listed) => (listed === undefined ? listed : withChangedSummaries(listed, event.changed)));
}

/** One more list request after the one in flight (never cancelling it: events come faster than a big list's
 *  answer, which would then never land), however many events come meanwhile. */
const list_asked_again = new WeakSet<QueryClient>();
function askListAgain(client: QueryClient): void {
  if (list_asked_again.has(client)) return;
  list_asked_again.add(client);
  void client.invalidateQueries({ queryKey: keys.sessions }, { cancelRefetch: false }).finally(() => {
    list_asked_again.delete(client);
    void client.invalidateQueries({ queryKey: keys.sessions });
  });
}

/** The list's visible pages refetch; an open session refetches when it changed or its host went on or offline
 *  (its actions are then disabled or enabled again). */
function onFleetEvent(client: QueryClient, hosts: HostView[], changed: string[] | null, online: Map<string, boolean>): void {
  void client.invalidateQueries({ queryKey: keys.sessionPages, refetchType: 'active' });
  const flipped = hosts.some((host) => online.has(host.host) && online.get(host.host) !== host.online);
  for (const host of hosts) online.set(host.host, host.online);
  if (changed === null || flipped) {
    void client.invalidateQueries({ queryKey: ['session'], refetchType: 'active' });
    return;
  }
  for (const key of changed) void client.invalidateQueries({ queryKey: keys.session(key), refetchType: 'active' });
}

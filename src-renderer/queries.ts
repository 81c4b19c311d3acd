// The service's data through react-query, kept fresh by the service's events: a change to a session
// invalidates only that session's queries, and only mounted ones (the visible pages) refetch.
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { withChangedSummaries, type HostView, type Progress, type RowList, type RowPage, type SessionDetail, type SessionFilter, type SessionSummary, type SessionTail, type WalscopeEvent } from '../src-shared/ipc.js';
import { api } from './api/api.js';

export const PAGE_ROWS = 100;
const READING_POLL_MS = 500;

export const keys = {
  workspace: ['workspace'] as const,
  sessions: ['sessions'] as const,
  sessionPages: ['session-pages'] as const,
  sessionPage: (filter: SessionFilter, page: number) => ['session-pages', filter.status, filter.host, filter.attention, page] as const,
  session: (key: string) => ['session', key] as const,
  page: (key: string, list: RowList, page: number) => ['session', key, 'rows', list, page] as const,
  // Frames never change once written: a record is not refetched when its session grows.
  record: (key: string, index: number) => ['record', key, index] as const,
  // The last episode's waterfall is asked for again when its bars change (the detail's digest of them), not at
  // every append; an earlier episode's is refreshed with the session's other queries.
  lastTiming: (key: string, episode: number, spans_digest: string) => ['last-timing', key, episode, spans_digest] as const,
  timing: (key: string, episode: number) => ['session', key, 'timing', episode] as const,
};

export function useWorkspace() {
  return useQuery({ queryKey: keys.workspace, queryFn: () => api.getWorkspace() });
}

/** The whole list, kept current by the service's pushed events (not by refetching on focus: an answer in flight
 *  when an event comes is older than it, see `onListEvent`). */
export function useSessions(enabled = true) {
  return useQuery({ queryKey: keys.sessions, queryFn: () => api.listSessions(), enabled, refetchOnWindowFocus: false });
}

/** One page of the filtered session list (a fleet's list is only ever read this way). */
export function useSessionPage(filter: SessionFilter, page: number) {
  return useQuery({
    queryKey: keys.sessionPage(filter, page),
    queryFn: () => api.listPage(filter, page * PAGE_ROWS, PAGE_ROWS),
    // While a page loads, keep showing the one before it, but never another filter's rows.
    placeholderData: (previous) => (previous?.filter.status === filter.status && previous.filter.host === filter.host && previous.filter.attention === filter.attention ? previous : undefined),
  });
}

/** While a big session is still being read its detail says `loading`: it is asked again until it is read (the
 *  service's event also says so, but may overtake the answer it follows). Its pages are refetched then. */
export function useSession(key: string | null) {
  const client = useQueryClient();
  return useQuery({
    queryKey: keys.session(key ?? ''),
    queryFn: async () => {
      const before = client.getQueryData<SessionDetail>(keys.session(key!));
      const detail = await api.getSession(key!);
      if (before?.summary.status === 'loading' && detail.summary.status !== 'loading') void client.invalidateQueries({ queryKey: [...keys.session(key!), 'rows'] });
      return detail;
    },
    enabled: key !== null,
    refetchInterval: (query) => (query.state.data?.summary.status === 'loading' ? READING_POLL_MS : false),
  });
}

/** A big session's provisional tail while it is read from its start (null once read), asked again with its
 *  detail so its progress moves. */
export function useTail(key: string, reading: boolean) {
  const client = useQueryClient();
  const query_key = [...keys.session(key), 'tail'];
  return useQuery({
    queryKey: query_key,
    // A tail once shown is kept when the service says the read is done (null): the detail saying so may come a
    // poll later, and the session view hands over to the real list only then.
    queryFn: async () => (await api.getTail(key)) ?? client.getQueryData<SessionTail | null>(query_key) ?? null,
    enabled: reading,
    refetchInterval: reading ? READING_POLL_MS : false,
    // Dropped with the view that showed it: a session opened again later is not shown a tail it no longer has.
    gcTime: 0,
  });
}

export function usePage<L extends RowList>(key: string, list: L, page: number) {
  return useQuery({
    queryKey: keys.page(key, list, page),
    queryFn: () => api.getRows(key, list, page * PAGE_ROWS, PAGE_ROWS) as Promise<RowPage<L>>,
    // While a page loads, keep showing the one before it, but never another list's or session's rows.
    placeholderData: (previous) => (previous?.list === list && previous.key === key ? previous : undefined),
  });
}

export function useRecord(key: string, index: number | null) {
  return useQuery({ queryKey: keys.record(key, index ?? -1), queryFn: () => api.getRecord(key, index!), enabled: index !== null });
}

/** Subscribes once to the service's events; returns the latest progress per session. */
export function useServiceEvents(): Map<string, Progress> {
  const client = useQueryClient();
  const [progress, setProgress] = useState(new Map<string, Progress>());
  const online = useRef(new Map<string, boolean>());
  useEffect(() => api.subscribe((event) => onEvent(client, event, setProgress, online.current)), [client]);
  return progress;
}

function onEvent(client: QueryClient, event: WalscopeEvent, setProgress: (update: (previous: Map<string, Progress>) => Map<string, Progress>) => void, online: Map<string, boolean>): void {
  switch (event.type) {
    case 'workspace':
      client.setQueryData(keys.workspace, event.workspace);
      break;
    case 'sessions':
    case 'summaries':
      onListEvent(client, event);
      break;
    case 'session':
      void client.invalidateQueries({ queryKey: keys.session(event.key), refetchType: 'active' });
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

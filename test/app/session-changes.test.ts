// A live session's update says what changed (issue 29, item 6), and the window asks again for only that. A
// generated session appended record by record by a real writer under its lease, followed by the real service
// (its growth probe and file events, its event emitter): after every append, no row before a list's first
// changed row differs from the whole lists before it; and a window's cache, kept current by those events through
// the renderer's own queries (src-renderer/queries.ts), asks for fewer pages than a refetch of every shown page
// while every page it keeps is the service's page now. Requests are counted, never timed.
import { afterEach, describe, expect, it } from 'vitest';
import { QueryClient, QueryObserver } from '@tanstack/react-query';
import type { RowList, SessionChanges, WalscopeApi, WalscopeEvent } from '../../src-shared/ipc.js';
import { PAGE_ROWS_MAX } from '../../src-shared/ipc.js';
import type { Payload } from '../../src-shared/wal.js';
import { openSessionForWrite, type WritableSession } from '../../src-main/engine/session.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { SESSION } from '../replay/session-script.js';
import { generatedSession, type GeneratedRecord, type SessionShape } from '../views/generated-session.js';
import { expectChangesHold, LISTS, mergedChanges, type Lists } from '../helpers/session-changes.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-session-changes-');
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Long enough that the lists span many pages, short enough that a check of the whole lists per append is cheap. */
const SHAPE: SessionShape = { episodes_max: 6, steps_max: 14, calls_max: 3, records_max: 420 };
/** The records appended one by one, each followed by its update; the ones before are there when the service opens. */
const APPENDED = 90;

interface Followed {
  service: SessionService;
  writer: WritableSession;
  rest: GeneratedRecord[];
  updates: Extract<WalscopeEvent, { type: 'session' }>[];
}

/** A generated session written but for its last APPENDED records by a writer that keeps the lease, and the
 *  service following it, the session open. */
async function followed(seed: number): Promise<Followed> {
  const root = tempDir();
  const records = generatedSession(seed, SHAPE);
  const writer = openSessionForWrite(root, SESSION, { writer_name: 'session-changes-test' });
  cleanup.push(() => writer.close());
  const head = records.slice(0, records.length - APPENDED);
  for (const record of head) writer.writer.append(record.type, record.payload as Payload);
  writer.writer.barrier();
  const service = await SessionService.open(root, { cache: false });
  cleanup.push(() => service.close());
  await service.whenWatching();
  await service.getSession(SESSION);
  const updates: Followed['updates'] = [];
  service.subscribe((event) => {
    if (event.type === 'session' && event.key === SESSION) updates.push(event);
  });
  return { service, writer, rest: records.slice(head.length), updates };
}

/** Appends the next record durably; resolves with the changes of the updates that brought it (the service
 *  sees it by its growth probe or a file event). */
async function appendOne(session: Followed, record: GeneratedRecord): Promise<SessionChanges> {
  const first = session.updates.length;
  const { seq } = session.writer.writer.append(record.type, record.payload as Payload);
  session.writer.writer.barrier();
  while (session.updates.at(-1)?.last_seq !== seq) await new Promise((resolve) => setTimeout(resolve, 2));
  return session.updates.slice(first).map((update) => update.changes).reduce(mergedChanges);
}

async function wholeList(api: WalscopeApi, list: RowList): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (;;) {
    const page = await api.getRows(SESSION, list, rows.length, PAGE_ROWS_MAX);
    rows.push(...page.rows);
    if (page.rows.length === 0 || rows.length >= page.total) return rows;
  }
}

async function listsOf(api: WalscopeApi): Promise<Lists> {
  return { timeline: await wholeList(api, 'timeline'), records: await wholeList(api, 'records'), transcript: await wholeList(api, 'transcript') };
}

describe("a live session's update says which rows moved", () => {
  it.each([1, 2, 3])('seed %i: after every append, the rows before each first changed row are as they were', async (seed) => {
    const session = await followed(seed);
    let lists = await listsOf(session.service);
    let asked = 0;
    let shown = 0;
    for (const [at, record] of session.rest.entries()) {
      const changes = await appendOne(session, record);
      const now = await listsOf(session.service);
      const rows = expectChangesHold(lists, now, changes, `seed ${seed}, appended record ${at + 1} (${record.type})`);
      for (const list of LISTS) {
        asked += rows[list];
        shown += now[list].length;
      }
      lists = now;
    }
    // What it is for: an append asks again for a small part of the rows (all of them: every update restarting).
    expect(asked).toBeLessThan(shown / 4);
  });
});

/** The API the renderer's queries call now: the renderer takes `window.walscope` once, when its module loads, and
 *  each test follows a service of its own. */
let current_api: WalscopeApi | null = null;
const FORWARDED_API = new Proxy({} as WalscopeApi, {
  get(_, name) {
    const value = Reflect.get(current_api!, name) as unknown;
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current_api) : value;
  },
});

/** The renderer's queries over `api` (its transport, as `window.walscope` is under Electron). */
async function rendererQueries(api: WalscopeApi) {
  current_api = api;
  (globalThis as { window?: unknown }).window = { walscope: FORWARDED_API };
  return import('../../src-renderer/queries.js');
}

/** `service` with its getRows calls counted, by list. */
function countedRows(service: SessionService): { api: WalscopeApi; pages: Record<RowList, number> } {
  const pages = { timeline: 0, records: 0, transcript: 0 };
  const api = new Proxy(service, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (name === 'getRows') return (key: string, list: RowList, start: number, count: number) => ((pages[list] += 1), target.getRows(key, list, start, count));
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  }) as WalscopeApi;
  return { api, pages };
}

async function settled(client: QueryClient): Promise<void> {
  do await new Promise((resolve) => setTimeout(resolve, 2));
  while (client.isFetching() > 0);
}

describe('the window asks again for only the pages that moved', () => {
  it('pages of a long session shown at its start and at its end: fewer asked than shown, every kept page current', async () => {
    const session = await followed(4);
    const counted = countedRows(session.service);
    const { queries, followEvents, PAGE_ROWS } = await rendererQueries(counted.api);
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    cleanup.push(() => client.clear());
    const unfollow = followEvents(client, () => {}, new Map());
    cleanup.push(unfollow);
    const detail = await session.service.getSession(SESSION);
    // Pages shown as a window shows them (the page at a scroll position and its two neighbours): the timeline
    // read from its start, the records followed at their end.
    const last_records_page = Math.floor(detail.rows.records / PAGE_ROWS);
    const shown = [...[0, 1].map((page) => ['timeline', page] as const), ...[-1, 0, 1].map((near) => ['records', last_records_page + near] as const)];
    for (const [list, page] of shown) cleanup.push(new QueryObserver(client, queries.page(SESSION, list as RowList, page)).subscribe(() => {}));
    await settled(client);
    const base = { ...counted.pages };
    let refetch_all = 0;
    for (const record of session.rest) {
      await appendOne(session, record);
      refetch_all += shown.length;
      await settled(client);
      for (const query of client.getQueryCache().findAll({ queryKey: ['session', SESSION, 'rows'] })) {
        if (query.state.isInvalidated) continue;
        // A page's total is the list's length when it was asked for: the window takes the length from the detail.
        const [, , , list, page] = query.queryKey as [string, string, string, RowList, number];
        const now = await session.service.getRows(SESSION, list, page * PAGE_ROWS, PAGE_ROWS);
        expect(query.state.data, `${list} page ${page} as kept`).toEqual({ ...now, total: (query.state.data as { total: number }).total });
      }
    }
    const asked = counted.pages.timeline - base.timeline + counted.pages.records - base.records;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(refetch_all / 2);
  });
});

describe('the Context view is asked again only when what it shows moved', () => {
  it("an earlier episode's step and the last episode's: every kept answer is the service's now, fewer asked than appends", async () => {
    const session = await followed(5);
    let contexts = 0;
    const api = new Proxy(session.service, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (name === 'getContext') return (key: string, episode: number | null, step_id: number | null) => ((contexts += 1), target.getContext(key, episode, step_id));
        return (value as (...args: unknown[]) => unknown).bind(target);
      },
    }) as WalscopeApi;
    const { queries, followEvents } = await rendererQueries(api);
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    cleanup.push(() => client.clear());
    cleanup.push(followEvents(client, () => {}, new Map()));
    // As the view asks: keyed on the detail's episode count, so an episode added is a new query.
    let observed: { episodes: number; unsubscribe: () => void } | null = null;
    const observe = async () => {
      const { episodes } = (await session.service.getSession(SESSION)).summary;
      if (observed?.episodes === episodes) return;
      observed?.unsubscribe();
      const unsubscribes = [1, null].map((episode) => new QueryObserver(client, queries.context(SESSION, episode, null, episodes)).subscribe(() => {}));
      observed = { episodes, unsubscribe: () => unsubscribes.forEach((unsubscribe) => unsubscribe()) };
    };
    cleanup.push(() => observed?.unsubscribe());
    await observe();
    await settled(client);
    const before = contexts;
    for (const record of session.rest) {
      await appendOne(session, record);
      await observe();
      await settled(client);
      for (const episode of [1, null]) {
        const query = client.getQueryCache().find({ queryKey: ['session', SESSION, 'context', episode, null, observed!.episodes] })!;
        expect(query.state.isInvalidated, `episode ${episode ?? 'last'}: ${String(query.state.error)}`).toBe(false);
        expect(query.state.data, `episode ${episode ?? 'last'} as kept`).toEqual(await session.service.getContext(SESSION, episode, null));
      }
    }
    const asked = contexts - before;
    // The last episode's is asked again at most once an append; the first episode's only when an episode is added.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(session.rest.length * 1.5);
  });
});

// The app's figures for `npm run bench` (issue 9), measured through the real `walscope serve` child process
// and its HTTP API, as the browser sees it: the URL, the first list, every status, a second open from the
// summary cache, peak resident memory of the whole process (its worker included), the tail page (found from
// the end), the first records page and the full status of a 1 GiB session beside `walscope verify` on the
// same file, and the live tail (append → event, append → new row) on sessions of 100,000 and 1,000,000 records
// and on 100,000 records in one open episode (a long run still going: every append lands in it), and the
// search of each list of the million-record session and of the 1 GiB session, and the history of a session of
// thousands of sealed lineages beside `walscope verify` of the same folder, and the Context view of the
// million-record and the 1 GiB sessions.
// Run alone: `npx tsx scripts/bench-service.ts [root|big|live|live-100k|live-long|live-1m|live-long-1m|live-1m-steps|live-long-steps|live-long-1m-steps|search|search-big|history|context|context-big]…`
// (root, big, live, search, search-big, history, context and context-big by default).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { RowPage, SearchResult, SessionDetail, SessionSummary, SessionTail, StepContext, TimelineRow, WalscopeEvent } from '../src-shared/ipc.js';
import { sessionDir, walPath } from '../src-main/engine/state-root.js';
import { ALL_ROWS } from '../src-shared/timeline-filter.js';
import { spendLink } from '../test/app/serve-harness.js';
import { BIG_SESSION_ID, bigSessionRoot, CHAIN_NEIGHBOUR_ID, CHAIN_SESSION_ID, lineageChainRoot, LiveAppender, LONG_EPISODE_SESSION_ID, longEpisodeMillionRoot, manySessionsRoot, MILLION_SESSION_ID, millionSessionRoot, smallOutputBytes, writeSessionWal } from './bench-data.js';

const REPO = path.resolve(import.meta.dirname, '..');
/** Appends per live line: enough that a long session's major collections fall inside the run, as they do in a
 *  live session followed for minutes (over 60, a million records in one open episode passed or failed by where
 *  the one collection fell). */
const LIVE_APPENDS = 400;
/** The timeline rows asked for after an append: the episode's anomalies and the session's own rows may follow the new one. */
const TIMELINE_TAIL_ROWS = 20;
/** Polls of the whole list are spaced: each answer is the list of 2,000 sessions, made by the worker. */
const POLL_MS = 250;
const QUIET_MS = 2_000;
const WAIT_MS_MAX = 15 * 60_000;

interface Served {
  child: ChildProcess;
  started_ms: number;
  url_ms: number;
  call<T>(method: string, args?: unknown[]): Promise<T>;
  origin: string;
  token: string;
  stop(): Promise<void>;
}

async function serve(target: string, cache_dir: string): Promise<Served> {
  const started_ms = performance.now();
  const child = spawn(process.execPath, [path.join(REPO, 'bin/walscope.js'), 'serve', target, '--port', '0'], {
    env: { ...process.env, WALSCOPE_CACHE_DIR: cache_dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?open=\S+)/.exec(line);
      if (found !== null) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
  });
  const url_ms = performance.now() - started_ms;
  const parsed = new URL(url);
  const token = await spendLink(url);
  const call = async <T>(method: string, args: unknown[] = []): Promise<T> => {
    const response = await fetch(`${parsed.origin}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-walscope-token': token }, body: JSON.stringify({ args }) });
    const value = (await response.json()) as T;
    if (!response.ok) throw new Error(`${method}: ${JSON.stringify(value)}`);
    return value;
  };
  return {
    child,
    started_ms,
    url_ms,
    call,
    origin: parsed.origin,
    token,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Peak resident memory of the whole serve process (main thread and session worker), MB. */
function peakRssMb(child: ChildProcess): number {
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1_024;
}

async function until<T>(probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + WAIT_MS_MAX;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const seconds = (ms: number) => `${(ms / 1_000).toFixed(2)} s`;

/** Asks `settled` until it says so: again at each event `wakes` picks out, and every POLL_MS. */
async function untilSettled(served: Served, wakes: (event: WalscopeEvent) => boolean, settled: () => Promise<boolean>): Promise<void> {
  let wake: () => void = () => {};
  const stop = await followEvents(served, (event) => {
    if (wakes(event)) wake();
  });
  try {
    const deadline = Date.now() + WAIT_MS_MAX;
    while (!(await settled())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => (clearTimeout(timer), resolve());
      });
    }
  } finally {
    stop();
  }
}

/** Resolves once session `key` has a status (its read ended). Asked at each of its `session` events (sent when
 *  its read ends, not per slice) and every POLL_MS: a poll alone put up to 250 ms of the bench's own wait into
 *  the figure, and asking at every progress event would take the worker's time from the read it measures. */
async function untilStatus(served: Served, key: string): Promise<void> {
  await untilSettled(
    served,
    (event) => event.type === 'session' && event.key === key,
    async () => (await served.call<SessionDetail>('getSession', [key])).summary.status !== 'loading',
  );
}

/** Drops the page cache of `files` (GNU dd's `nocache`: posix_fadvise DONTNEED), so that a cold open reads
 *  them from the disk; false where that is not possible here. Only these files: other work keeps its cache. */
function evictFromPageCache(files: readonly string[]): boolean {
  return files.every((file) => spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']).status === 0);
}

/** Resolves once every session has a status, as the app's list learns them: the list once, then the summaries
 *  pushed as they change. (Polling the whole list, as this did before, took ~0.5 s of the worker's time from the
 *  read it measures: 2,000 summaries cloned four times a second.) */
async function untilEveryStatus(served: Served): Promise<void> {
  const statuses = new Map<string, string>();
  const learn = (sessions: SessionSummary[], over: boolean) => {
    for (const session of sessions) if (over || !statuses.has(session.key)) statuses.set(session.key, session.status);
  };
  let listed = false;
  const learned = (event: WalscopeEvent) => {
    if (event.type === 'sessions') learn(event.sessions, true);
    else if (event.type === 'summaries') learn(event.changed, true);
    else return false;
    return true;
  };
  await untilSettled(served, learned, async () => {
    // A summary pushed before the list's answer is newer than the answer's.
    if (!listed) learn(await served.call<SessionSummary[]>('listSessions'), false);
    listed = true;
    return ![...statuses.values()].includes('loading');
  });
}

/** A cold open of `root` with an empty summary cache: when the list came and when every status was known. */
async function coldOpen(root: string, cache_dir: string): Promise<{ url_ms: number; first_ms: number; all_ms: number; listed: number; known_at_first: number; rss_mb: number }> {
  const cold = await serve(root, cache_dir);
  const first = await cold.call<SessionSummary[]>('listSessions');
  const first_ms = performance.now() - cold.started_ms;
  const known_at_first = first.filter((session) => session.status !== 'loading').length;
  await untilEveryStatus(cold);
  const all_ms = performance.now() - cold.started_ms;
  const rss_mb = peakRssMb(cold.child);
  await cold.stop();
  return { url_ms: cold.url_ms, first_ms, all_ms, listed: first.length, known_at_first, rss_mb };
}

async function benchRoot(): Promise<void> {
  const root = manySessionsRoot();
  const wals = fs.readdirSync(path.join(root, 'sessions')).map((id) => walPath(path.join(root, 'sessions', id)));
  const disk_cache_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-cache-'));
  const cache_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-cache-'));
  try {
    const evicted = evictFromPageCache(wals);
    const from_disk = evicted ? await coldOpen(root, disk_cache_dir) : null;
    const cold = await coldOpen(root, cache_dir);
    const warm = await serve(root, cache_dir);
    await untilEveryStatus(warm);
    const second_ms = performance.now() - warm.started_ms;
    const warm_rss_mb = peakRssMb(warm.child);
    await warm.stop();
    console.log(`\nwalscope serve on a root of ${cold.listed} sessions (${(dirBytes(root) / 1_048_576).toFixed(0)} MiB)`);
    console.log(`  URL printed          ${seconds(cold.url_ms)}  (aim: < 1 s)`);
    console.log(`  first list           ${seconds(cold.first_ms)}  (aim: < 1 s; ${cold.known_at_first} statuses known then)`);
    console.log(`  every status, cold   ${seconds(cold.all_ms)}  from the page cache (aim: < 10 s)`);
    if (from_disk === null) console.log('  every status, cold   from the disk: not measured (the WALs could not be dropped from the page cache here)');
    else console.log(`  every status, cold   ${seconds(from_disk.all_ms)}  from the disk (the WALs dropped from the page cache first; first list ${seconds(from_disk.first_ms)})`);
    console.log(`  second open          ${seconds(second_ms)}  (aim: < 1 s, from the summary cache)`);
    console.log(`  peak RSS cold / warm ${cold.rss_mb.toFixed(0)} / ${warm_rss_mb.toFixed(0)} MB`);
  } finally {
    fs.rmSync(disk_cache_dir, { recursive: true, force: true });
    fs.rmSync(cache_dir, { recursive: true, force: true });
  }
}

function dirBytes(root: string): number {
  let total = 0;
  const sessions = path.join(root, 'sessions');
  for (const id of fs.readdirSync(sessions)) total += fs.statSync(walPath(path.join(sessions, id))).size;
  return total;
}

async function benchBig(): Promise<void> {
  const root = bigSessionRoot();
  const wal = walPath(sessionDir(root, BIG_SESSION_ID));
  const verify_started = performance.now();
  spawnSync(process.execPath, [path.join(REPO, 'bin/walscope.js'), 'verify', wal, '--json'], { stdio: 'ignore' });
  const verify_ms = performance.now() - verify_started;
  const cache_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-cache-'));
  try {
    const served = await serve(root, cache_dir);
    let first_page_ms = 0;
    let status_ms = 0;
    let tail_ms = 0;
    let tail: SessionTail | null = null;
    let outcome = 'ok';
    try {
      // Asked first, as the session view does on opening: the tail's records and timeline come from the end.
      tail = await served.call<SessionTail | null>('getTail', [BIG_SESSION_ID]);
      tail_ms = performance.now() - served.started_ms;
      await until(async () => {
        const page = await served.call<RowPage<'records'>>('getRows', [BIG_SESSION_ID, 'records', 0, 100]);
        return page.rows.length > 0 ? page : null;
      });
      first_page_ms = performance.now() - served.started_ms;
      await untilStatus(served, BIG_SESSION_ID);
      status_ms = performance.now() - served.started_ms;
    } catch (error) {
      outcome = `failed: ${(error as Error).message.slice(0, 200)}`;
    }
    const rss_mb = peakRssMb(served.child);
    await served.stop();
    console.log(`\nwalscope serve on one ${(fs.statSync(wal).size / 1_048_576).toFixed(0)} MiB session`);
    console.log(`  URL printed          ${seconds(served.url_ms)}  (aim: < 1 s)`);
    console.log(`  tail page            ${seconds(tail_ms)}  (aim: < 1 s; last page of records and timeline, from start: ${tailWords(tail)})`);
    console.log(`  first records page   ${seconds(first_page_ms)}  (the head)`);
    console.log(`  full status          ${seconds(status_ms)}  = ${(status_ms / verify_ms).toFixed(2)} × verify (${seconds(verify_ms)})  (aim: ≤ 1.5 ×)`);
    console.log(`  peak RSS             ${rss_mb.toFixed(0)} MB  (aim: < 500 MB)  ${outcome}`);
  } finally {
    fs.rmSync(cache_dir, { recursive: true, force: true });
  }
}

/** Reads the server's event stream, calling `on_event` for each event. */
function tailWords(tail: SessionTail | null): string {
  if (tail === null) return 'no tail: the session was already read';
  const read = `${(tail.scanned_at_head_bytes / 1_048_576).toFixed(0)} MiB of the head read then`;
  return `${tail.records.length} records, ${tail.timeline.length} timeline rows from ${tail.timeline_from === 'episode_start' ? 'the last episode\'s start' : 'the last records'}; ${read}`;
}

async function followEvents(served: Served, on_event: (event: WalscopeEvent) => void): Promise<() => void> {
  const controller = new AbortController();
  const response = await fetch(`${served.origin}/api/events`, { headers: { 'x-walscope-token': served.token }, signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          if (block.startsWith('data: ')) on_event(JSON.parse(block.slice(6)) as WalscopeEvent);
        }
      }
    } catch {
      // aborted
    }
  })();
  return () => controller.abort();
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** What each append of a live line writes: one record attached to no step (`run_paused`, the smallest change),
 *  or one whole step of the run (its model step, batch, intents, results and commit, one barrier), which changes
 *  the episode's steps, batches and request part as a running agent does. */
type LiveAppend = 'record' | 'step';

async function benchLive(label: string, make_root: (dir: string) => string, session_id: string, start_run = true, appending: LiveAppend = 'record'): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-live-'));
  const cache_dir = path.join(dir, 'cache');
  try {
    const root = make_root(dir);
    const served = await serve(root, cache_dir);
    await until(async () => ((await served.call<SessionDetail>('getSession', [session_id])).summary.status === 'loading' ? null : true));
    let last_seq = 0;
    let event_at = 0;
    /** Resolved by the event that carries a seq past the one awaited: the new row is asked for at once, not
     *  at the next poll (polling every 250 ms put up to 250 ms of the bench's own wait into each figure). */
    let awaited: { seq: number; resolve: () => void } | null = null;
    const stop_events = await followEvents(served, (event) => {
      if (event.type === 'session' && event.key === session_id && event.last_seq > last_seq) {
        last_seq = event.last_seq;
        event_at = performance.now();
        if (awaited !== null && last_seq > awaited.seq) awaited.resolve();
      }
    });
    const appender = new LiveAppender(root, session_id, 9, start_run);
    const to_event: number[] = [];
    const to_row: number[] = [];
    const to_timeline_row: number[] = [];
    let first_timeline_ms = 0;
    try {
      // The appender's lineage frame and run_started come first: wait until their events have settled.
      const opened = performance.now();
      await until(async () => (event_at > opened && performance.now() - event_at > QUIET_MS ? true : null));
      // The timeline's last page once before the appends, as with the tab open: its first page lays out every
      // step's rows once (reported apart), each append's then only what changed.
      const timeline_asked = performance.now();
      const rows_before = (await served.call<SessionDetail>('getSession', [session_id])).rows.timeline;
      await served.call<RowPage<'timeline'>>('getRows', [session_id, 'timeline', Math.max(0, rows_before - TIMELINE_TAIL_ROWS), TIMELINE_TAIL_ROWS]);
      first_timeline_ms = performance.now() - timeline_asked;
      for (let round = 0; round < LIVE_APPENDS; round++) {
        // Appended and made durable at once (no event is handled in between): the event awaited is the one that
        // carries the append's last seq (a step's first records may be read, and shown, before its last are written).
        if (appending === 'record') appender.appendRecord();
        else appender.appendStep();
        const appended_at = performance.now();
        const target = appender.last_seq;
        const arrived = new Promise<void>((resolve) => (awaited = { seq: target - 1, resolve }));
        await Promise.race([arrived, until(async () => (last_seq >= target ? true : null))]);
        awaited = null;
        to_event.push(event_at - appended_at);
        const detail = await served.call<SessionDetail>('getSession', [session_id]);
        const page = await served.call<RowPage<'records'>>('getRows', [session_id, 'records', detail.rows.records - 1, 1]);
        if (page.rows[0]?.type !== (appending === 'record' ? 'run_paused' : 'turn_finished')) throw new Error(`the new row is not there: ${JSON.stringify(page.rows[0])}`);
        to_row.push(performance.now() - appended_at);
        // The timeline's new row too, as the window asks when that tab is open (its last page).
        const timeline = await served.call<RowPage<'timeline'>>('getRows', [session_id, 'timeline', Math.max(0, detail.rows.timeline - TIMELINE_TAIL_ROWS), TIMELINE_TAIL_ROWS]);
        const shown = (row: TimelineRow) => (appending === 'record' ? row.kind === 'event' && row.seqs.includes(last_seq) : row.kind === 'step' && row.step_id === appender.last_step_id);
        if (!timeline.rows.some(shown)) throw new Error(`the new timeline row is not there: ${JSON.stringify(timeline.rows)}`);
        to_timeline_row.push(performance.now() - appended_at);
      }
    } finally {
      appender.close();
      stop_events();
    }
    const rss_mb = peakRssMb(served.child);
    await served.stop();
    console.log(`  ${label.padEnd(26)} append → event p50 ${percentile(to_event, 50).toFixed(0)} ms, p99 ${percentile(to_event, 99).toFixed(0)} ms; append → new row p50 ${percentile(to_row, 50).toFixed(0)} ms, p99 ${percentile(to_row, 99).toFixed(0)} ms; and its timeline row p50 ${percentile(to_timeline_row, 50).toFixed(0)} ms, p99 ${percentile(to_timeline_row, 99).toFixed(0)} ms (aim p99 < 100 ms); the timeline's first page ${seconds(first_timeline_ms)}; peak RSS ${rss_mb.toFixed(0)} MB`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function liveHeading(): void {
  console.log(`\nlive tail through walscope serve (${LIVE_APPENDS} appends each, of one record or of one whole step, through the writer under the lease)`);
}

async function benchLiveTail(): Promise<void> {
  liveHeading();
  await benchLive100k();
  await benchLiveLongEpisode();
  await benchLive1m();
  await benchLiveLongEpisode1m();
  await benchLive1mSteps();
  await benchLiveLongEpisodeSteps();
  await benchLiveLongEpisode1mSteps();
}

async function benchLive100k(): Promise<void> {
  await benchLive('100,000 records', (dir) => {
    const root = path.join(dir, 'root');
    writeSessionWal(walPath(sessionDir(root, 'live')), { seed: 5, records_target: 100_000, outputBytes: smallOutputBytes, text_chars_max: 80 });
    return root;
  }, 'live');
}

/** 100,000 records in one run still going: every append lands in that open episode. */
async function benchLiveLongEpisode(): Promise<void> {
  await benchLive('100,000 in 1 open episode', (dir) => {
    const root = path.join(dir, 'root');
    writeSessionWal(walPath(sessionDir(root, 'live')), { seed: 5, records_target: 100_000, steps_per_run: Number.MAX_SAFE_INTEGER, leave_open: true, outputBytes: smallOutputBytes, text_chars_max: 80 });
    return root;
  }, 'live', false);
}

async function benchLive1m(): Promise<void> {
  await benchLive('1,000,000 records', (dir) => copiedRoot(dir, millionSessionRoot(), MILLION_SESSION_ID), MILLION_SESSION_ID);
}

/** 1,000,000 records in one run still going: every append lands in an open episode of a million records. */
async function benchLiveLongEpisode1m(): Promise<void> {
  await benchLive('1,000,000 in 1 open episode', (dir) => copiedRoot(dir, longEpisodeMillionRoot(), LONG_EPISODE_SESSION_ID), LONG_EPISODE_SESSION_ID, false);
}

async function benchLive1mSteps(): Promise<void> {
  await benchLive('1,000,000 records, steps', (dir) => copiedRoot(dir, millionSessionRoot(), MILLION_SESSION_ID), MILLION_SESSION_ID, true, 'step');
}

async function benchLiveLongEpisodeSteps(): Promise<void> {
  await benchLive('100,000 in 1 open ep., steps', (dir) => {
    const root = path.join(dir, 'root');
    writeSessionWal(walPath(sessionDir(root, 'live')), { seed: 5, records_target: 100_000, steps_per_run: Number.MAX_SAFE_INTEGER, leave_open: true, outputBytes: smallOutputBytes, text_chars_max: 80 });
    return root;
  }, 'live', false, 'step');
}

async function benchLiveLongEpisode1mSteps(): Promise<void> {
  await benchLive('1,000,000 in 1 open ep., steps', (dir) => copiedRoot(dir, longEpisodeMillionRoot(), LONG_EPISODE_SESSION_ID), LONG_EPISODE_SESSION_ID, false, 'step');
}

/** A root in `dir` holding a copy of session `session_id`'s WAL from the cached `source` root: the bench appends to it. */
function copiedRoot(dir: string, source: string, session_id: string): string {
  const root = path.join(dir, 'root');
  fs.mkdirSync(sessionDir(root, session_id), { recursive: true });
  fs.copyFileSync(walPath(sessionDir(source, session_id)), walPath(sessionDir(root, session_id)));
  return root;
}

/** A query no record holds: every row is searched, the worst case. */
const SEARCH_MISS = 'no record holds this';

/** Searches of the million-record session through the API, as the search box asks: again at each answer that
 *  says it is not complete (the renderer waits SEARCH_POLL_MS between; here the next ask is sent at once). */
/** Searches each list of session `key` under `root` through serve, as the search box asks (again at each answer
 *  that says it is not complete), for each of `queries`. */
async function benchSearchOf(root: string, key: string, title: string, queries: readonly string[]): Promise<void> {
  const cache_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-cache-'));
  try {
    const served = await serve(root, cache_dir);
    await untilStatus(served, key);
    const read_rss_mb = peakRssMb(served.child);
    const lines: string[] = [];
    for (const list of ['records', 'timeline', 'transcript'] as const) {
      for (const query of queries) {
        const started_ms = performance.now();
        let result = await served.call<SearchResult>('search', [key, list, query, ALL_ROWS]);
        const first_ms = performance.now() - started_ms;
        let asks = 1;
        for (; !result.complete; asks++) result = await served.call<SearchResult>('search', [key, list, query, ALL_ROWS]);
        const all_ms = performance.now() - started_ms;
        const found = `${result.rows.length}${result.truncated ? '+' : ''} matches`;
        lines.push(`  ${list.padEnd(10)} ${JSON.stringify(query).padEnd(24)} first answer ${seconds(first_ms)}, complete ${seconds(all_ms)} (${asks} asks, ${found})`);
      }
    }
    const rss_mb = peakRssMb(served.child);
    await served.stop();
    console.log(`\nsearch of ${title} through walscope serve (aim: < 1 s, or streamed with the first matches in < 300 ms)`);
    for (const line of lines) console.log(line);
    console.log(`  peak RSS             ${read_rss_mb.toFixed(0)} MB after the read, ${rss_mb.toFixed(0)} MB after the searches`);
  } finally {
    fs.rmSync(cache_dir, { recursive: true, force: true });
  }
}

const benchSearch = () => benchSearchOf(millionSessionRoot(), MILLION_SESSION_ID, `the ${MILLION_SESSION_ID} session (1,000,000 records)`, [SEARCH_MISS, 'tool_result']);
/** The 1 GiB session's rows carry previews of outputs up to 4 MiB: what a search of it holds at once. */
const benchSearchBig = () => benchSearchOf(bigSessionRoot(), BIG_SESSION_ID, 'the 1 GiB session (peak RSS aim: < 500 MB)', [SEARCH_MISS]);

/** The Context view of session `key` under `root` through serve, as the view asks once the session is open: the
 *  first look (the last episode's first step), the same look again, a step change (that episode's last step) and
 *  an episode change (the middle episode), each timed from the ask to the answer, with the peak RSS after. */
async function benchContextOf(root: string, key: string, title: string): Promise<void> {
  const cache_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-cache-'));
  try {
    const served = await serve(root, cache_dir);
    await untilStatus(served, key);
    const read_rss_mb = peakRssMb(served.child);
    const look = async (episode: number | null, step_id: number | null) => {
      const started_ms = performance.now();
      const context = await served.call<StepContext>('getContext', [key, episode, step_id]);
      return { context, ms: performance.now() - started_ms };
    };
    const first = await look(null, null);
    const again = await look(null, null);
    const step = await look(first.context.episode, first.context.steps.at(-1) ?? null);
    const middle = first.context.episodes[Math.floor(first.context.episodes.length / 2)]!;
    const episode = await look(middle.episode, null);
    const rss_mb = peakRssMb(served.child);
    await served.stop();
    const shown = (context: StepContext) => `${(context.messages.length + context.messages_left_out).toLocaleString()} messages, ${context.messages.length} shown`;
    console.log(`\nthe Context view of ${title} through walscope serve (${first.context.episodes.length.toLocaleString()} episodes)`);
    console.log(`  first look           ${seconds(first.ms)}  (aim: < 1 s; ${shown(first.context)})`);
    console.log(`  the same look again  ${seconds(again.ms)}`);
    console.log(`  a step change        ${seconds(step.ms)}  (aim: < 1 s; ${shown(step.context)})`);
    console.log(`  an episode change    ${seconds(episode.ms)}  (aim: < 1 s; ${shown(episode.context)})`);
    console.log(`  peak RSS             ${read_rss_mb.toFixed(0)} MB after the read, ${rss_mb.toFixed(0)} MB after the looks  (aim: < 500 MB)`);
  } finally {
    fs.rmSync(cache_dir, { recursive: true, force: true });
  }
}

const benchContext = () => benchContextOf(millionSessionRoot(), MILLION_SESSION_ID, `the ${MILLION_SESSION_ID} session (1,000,000 records)`);
const benchContextBig = () => benchContextOf(bigSessionRoot(), BIG_SESSION_ID, 'the 1 GiB session');

/** Sessions retired hourly hold 8,760 lineages after a year. */
const HISTORY_LINEAGES = [2_000, 8_000, 20_000];

/** `walscope lineages` of a chain of sealed lineages beside `walscope verify` of the same folder (each a process,
 *  node's start included), then serve's getHistory of it, with a call for the other session made over and over
 *  while it runs: how many are answered meanwhile, and the slowest. */
async function benchHistory(): Promise<void> {
  console.log('\nthe history of a session of sealed lineages in one chain');
  const cli = (args: string[]) => {
    const started_ms = performance.now();
    const result = spawnSync(process.execPath, [path.join(REPO, 'bin/walscope.js'), ...args], { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`walscope ${args.join(' ')} exited ${result.status}`);
    return performance.now() - started_ms;
  };
  for (const lineages of HISTORY_LINEAGES) {
    const root = lineageChainRoot(lineages);
    const dir = sessionDir(root, CHAIN_SESSION_ID);
    const verify_ms = cli(['verify', dir, '--json']);
    const lineages_ms = cli(['lineages', dir, '--json']);
    const cache_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-cache-'));
    const served = await serve(root, cache_dir);
    try {
      await untilEveryStatus(served);
      await served.call('getSession', [CHAIN_NEIGHBOUR_ID]);
      const started_ms = performance.now();
      let history_ms: number | null = null;
      const history = served.call('getHistory', [CHAIN_SESSION_ID]).then(() => (history_ms = performance.now() - started_ms));
      const waits_ms: number[] = [];
      while (history_ms === null) {
        const asked_ms = performance.now();
        await served.call('getSession', [CHAIN_NEIGHBOUR_ID]);
        waits_ms.push(performance.now() - asked_ms);
      }
      await history;
      const archive_mb = fs.statSync(path.join(dir, 'archive')).size / 1e6;
      console.log(`  ${lineages.toLocaleString('en-US').padStart(6)} lineages (${archive_mb.toFixed(1)} MB archive)  lineages ${seconds(lineages_ms)} = ${(lineages_ms / verify_ms).toFixed(2)} × verify (${seconds(verify_ms)});  serve getHistory ${seconds(history_ms!)}, ${waits_ms.length} getSession of another session meanwhile, slowest ${percentile(waits_ms, 100).toFixed(0)} ms`);
    } finally {
      await served.stop();
      fs.rmSync(cache_dir, { recursive: true, force: true });
    }
  }
}

const SECTIONS: Record<string, () => Promise<void>> = {
  root: benchRoot,
  big: benchBig,
  live: benchLiveTail,
  'live-100k': async () => (liveHeading(), await benchLive100k()),
  'live-long': async () => (liveHeading(), await benchLiveLongEpisode()),
  'live-1m': async () => (liveHeading(), await benchLive1m()),
  'live-long-1m': async () => (liveHeading(), await benchLiveLongEpisode1m()),
  'live-1m-steps': async () => (liveHeading(), await benchLive1mSteps()),
  'live-long-steps': async () => (liveHeading(), await benchLiveLongEpisodeSteps()),
  'live-long-1m-steps': async () => (liveHeading(), await benchLiveLongEpisode1mSteps()),
  search: benchSearch,
  'search-big': benchSearchBig,
  history: benchHistory,
  context: benchContext,
  'context-big': benchContextBig,
};

/** The sections `npm run bench` runs: `live` is every live line, each of which also runs alone by name. */
const DEFAULT_SECTIONS = ['root', 'big', 'live', 'search', 'search-big', 'history', 'context', 'context-big'];

export async function benchService(names: readonly string[] = DEFAULT_SECTIONS): Promise<void> {
  for (const name of names) {
    const section = SECTIONS[name];
    if (section === undefined) throw new Error(`unknown section ${name}: use ${Object.keys(SECTIONS).join(', ')}`);
    await section();
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await benchService(process.argv.slice(2).length > 0 ? process.argv.slice(2) : undefined);
}

// The fleet at scale (docs/fleet.md, docs/performance.md): a real nats-server with JetStream, 200 simulated
// hosts × 500 sessions (100,000 realistic summaries and heartbeats, written by simulated agents over one
// connection of this process), then two viewers: a FleetIndex in this process, and the real `walscope serve
// --fleet` in a child process, asked over HTTP as the renderer asks. Measured: time to the first page, a
// status filter over all 100,000, 1,000 summary changes a second absorbed (from put to the served list showing
// it), the serve process's memory (RSS), and what the bucket and the streams cost in the server per session.
// Run by `npm run bench` after its own sections.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import type { SessionPage } from '../src-shared/ipc.js';
import { attentionOf, type ListedStatus } from '../src-shared/status.js';
import type { AuditEntry, FleetSummary, HostBeat } from '../src-main/fleet/agent.js';
import { FleetIndex } from '../src-main/fleet/index.js';
import { AUDIT_STREAM, auditSubject, EVENTS_STREAM, eventSubject, hostKey, HOSTS_BUCKET, sessionKey, SESSIONS_BUCKET } from '../src-main/fleet/names.js';
import { initTopology } from '../src-main/fleet/topology.js';
import { spendLink } from '../test/app/serve-harness.js';

const REPO_DIR = path.resolve(import.meta.dirname, '..');
/** Messages published to each stream to measure its cost per message. */
const STREAM_SAMPLE_MESSAGES = 2_000;

const HOSTS = 200;
const SESSIONS_PER_HOST = 500;
const CHANGES_PER_S = 1_000;
const CHANGE_SECONDS = 5;
const PUTS_IN_FLIGHT = 2_000;
const STATUSES: ListedStatus[] = ['completed', 'completed', 'failed', 'idle', 'running', 'needs_operator', 'finished_unconfirmed', 'paused_held', 'damaged'];

function summary(host: number, session: number, seq: number): FleetSummary {
  const status = STATUSES[(host * 7 + session * 13 + seq) % STATUSES.length]!;
  return {
    host: `host-${String(host).padStart(4, '0')}`,
    session: `01J${String(host).padStart(4, '0')}${String(session).padStart(6, '0')}ABCDEFGHJK`,
    status,
    why: status === 'needs_operator' ? 'calls may have had their side effect: record their outcome as unknown, close the batch and seal the episode Interrupted' : 'episode 1 is finished (completed): nothing to do',
    attention: attentionOf(status, status === 'needs_operator' ? 'close_out' : 'none', false),
    torn_tail: null,
    episodes: 1 + (session % 4),
    records: 40 + seq,
    class_counts: { completed: 12, indeterminate: status === 'needs_operator' ? 1 : 0 },
    last_seq: 40 + seq,
    size_bytes: 12_000 + seq * 300,
    last_activity_ms: Date.now(),
    plan: { action: status === 'needs_operator' ? 'close_out' : 'none', message: 'the run ended naturally; write its run_finished without calling the model' },
    written_ms: Date.now(),
  };
}

/** `walscope serve --fleet` as a child process; resolves with its URL once it listens. */
async function startServe(url: string): Promise<{ child: ChildProcess; port: number; token: string }> {
  const child = spawn(process.execPath, ['bin/walscope.js', 'serve', '--fleet', '--nats', url, '--port', '0'], { cwd: REPO_DIR, stdio: ['ignore', 'pipe', 'inherit'] });
  const printed = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?open=\S+)/.exec(line);
      if (found !== null) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve --fleet exited (${code})`)));
  });
  return { child, port: Number(new URL(printed).port), token: await spendLink(printed) };
}

async function listPage(served: { port: number; token: string }, status: ListedStatus | null, host: string | null, start: number, count: number): Promise<SessionPage> {
  const response = await fetch(`http://127.0.0.1:${served.port}/api/listPage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-walscope-token': served.token },
    body: JSON.stringify({ args: [{ status, host, attention: false }, start, count] }),
  });
  if (!response.ok) throw new Error(`listPage: ${response.status} ${await response.text()}`);
  return (await response.json()) as SessionPage;
}

/** Resident and peak resident memory of a process, in MiB, from /proc. */
function rssOf(pid: number): { rss_mb: number; peak_mb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1_024;
  return { rss_mb: kib('VmRSS'), peak_mb: kib('VmHWM') };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export async function benchFleet(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bench-fleet-'));
  const port = await freePort();
  const server = spawn('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(dir, 'store')], { stdio: 'ignore' });
  const url = `nats://127.0.0.1:${port}`;
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    const agents = await connect({ servers: url });
    await initTopology(agents);
    const kv = await new Kvm(agents).open(SESSIONS_BUCKET);
    let started = performance.now();
    const puts: Promise<number>[] = [];
    for (let host = 0; host < HOSTS; host++) {
      for (let session = 0; session < SESSIONS_PER_HOST; session++) {
        const value = summary(host, session, 0);
        puts.push(kv.put(sessionKey(value.host, value.session), JSON.stringify(value)));
        if (puts.length >= PUTS_IN_FLIGHT) await Promise.all(puts.splice(0));
      }
    }
    await Promise.all(puts);
    const hosts_kv = await new Kvm(agents).open(HOSTS_BUCKET);
    const beat = () => Promise.all(Array.from({ length: HOSTS }, (_, host) => {
      const name = `host-${String(host).padStart(4, '0')}`;
      const value: HostBeat = { host: name, version: '0.1.0', root: `/var/lib/agent/${name}`, sessions: SESSIONS_PER_HOST, started_ms: Date.now(), beat_ms: Date.now() };
      return hosts_kv.put(hostKey(name), JSON.stringify(value));
    }));
    await beat();
    const beating = setInterval(() => void beat(), 5_000);
    const load_s = (performance.now() - started) / 1_000;
    const rss_before_mb = process.memoryUsage().rss / 1_048_576;

    const viewer = await connect({ servers: url });
    started = performance.now();
    const index = await FleetIndex.open(viewer, () => undefined, 100);
    const first = index.page({}, 0, 100);
    const first_page_ms = performance.now() - started;
    await index.complete;
    const complete_ms = performance.now() - started;
    started = performance.now();
    const needs = index.page({ status: 'needs_operator' }, 0, 100);
    const filter_ms = performance.now() - started;

    // 1,000 changes a second for CHANGE_SECONDS; the lag is from the last put of each second to its arrival.
    const lags: number[] = [];
    for (let second = 0; second < CHANGE_SECONDS; second++) {
      const tick = performance.now();
      const batch: Promise<number>[] = [];
      for (let change = 0; change < CHANGES_PER_S; change++) {
        const n = second * CHANGES_PER_S + change;
        const value = summary(n % HOSTS, (n * 31) % SESSIONS_PER_HOST, second + 1);
        batch.push(kv.put(sessionKey(value.host, value.session), JSON.stringify(value)));
      }
      const revisions = await Promise.all(batch);
      const last = Math.max(...revisions);
      while (index.revision < last) await new Promise((r) => setTimeout(r, 5));
      lags.push(performance.now() - tick);
      const rest = 1_000 - (performance.now() - tick);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
    const rss_mb = process.memoryUsage().rss / 1_048_576;
    index.close();

    // The real serve process, asked over HTTP as the renderer asks; node's start-up measured beside it.
    started = performance.now();
    await new Promise((r) => spawn(process.execPath, ['bin/walscope.js', '--help'], { cwd: REPO_DIR, stdio: 'ignore' }).once('exit', r));
    const node_start_ms = performance.now() - started;
    started = performance.now();
    const served = await startServe(url);
    const serve_first = await listPage(served, null, null, 0, 100);
    const serve_first_ms = performance.now() - started;
    let serve_total = serve_first.total;
    while (!(await listPage(served, null, null, 0, 1)).complete) await new Promise((r) => setTimeout(r, 50));
    const serve_complete_ms = performance.now() - started;
    serve_total = (await listPage(served, null, null, 0, 1)).total;
    started = performance.now();
    const serve_needs = await listPage(served, 'needs_operator', null, 0, 100);
    const serve_filter_ms = performance.now() - started;
    const serve_lags: number[] = [];
    for (let second = 0; second < CHANGE_SECONDS; second++) {
      const tick = performance.now();
      const batch: Promise<number>[] = [];
      let last: FleetSummary | null = null;
      for (let change = 0; change < CHANGES_PER_S; change++) {
        const n = second * CHANGES_PER_S + change;
        last = summary(n % HOSTS, (n * 17) % SESSIONS_PER_HOST, CHANGE_SECONDS + second + 1);
        batch.push(kv.put(sessionKey(last.host, last.session), JSON.stringify(last)));
      }
      await Promise.all(batch);
      // Current: the served list shows the second's last change (its host's page holds it).
      for (;;) {
        const shown = await listPage(served, null, last!.host, 0, SESSIONS_PER_HOST);
        if (shown.rows.some((row) => row.session_id === last!.session && row.last_seq === last!.last_seq)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      serve_lags.push(performance.now() - tick);
      const rest = 1_000 - (performance.now() - tick);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
    const serve_memory = rssOf(served.child.pid!);
    served.child.kill('SIGTERM');
    await new Promise((r) => served.child.once('exit', r));
    clearInterval(beating);

    // What each stream costs per message: realistic events and audit entries.
    const js = jetstream(agents);
    const jsm = await jetstreamManager(viewer);
    for (let n = 0; n < STREAM_SAMPLE_MESSAGES; n++) {
      const value = summary(n % HOSTS, n % SESSIONS_PER_HOST, 0);
      await js.publish(eventSubject(value.host, value.session), JSON.stringify({ host: value.host, session: value.session, from: 'live', to: 'needs_operator', why: value.why, at_ms: Date.now() }));
      const audit: AuditEntry = { phase: n % 2 === 0 ? 'request' : 'outcome', at_ms: Date.now(), host: value.host, session: value.session, action: 'resume', operator: 'operator', declared_operator: 'ops-1', nats_user: 'operator', reason: 'ticket 4242: close out after the deploy', based_on_seq: 40, records_written: n % 2 === 0 ? null : 6, result: n % 2 === 0 ? 'requested' : 'written' };
      await js.publish(auditSubject(value.host, value.session), JSON.stringify(audit));
    }
    const per_message = async (stream: string) => {
      const state = (await jsm.streams.info(stream)).state;
      return state.bytes / state.messages;
    };
    const event_bytes = await per_message(EVENTS_STREAM);
    const audit_bytes = await per_message(AUDIT_STREAM);
    const hosts_info = await jsm.streams.info(`KV_${HOSTS_BUCKET}`);
    const info = await jsm.streams.info(`KV_${SESSIONS_BUCKET}`);

    console.log(`\nfleet: ${HOSTS} hosts × ${SESSIONS_PER_HOST} sessions on a real nats-server (JetStream, file store)`);
    console.log(`  simulated agents wrote ${HOSTS * SESSIONS_PER_HOST} summaries in ${load_s.toFixed(1)} s`);
    console.log(`  viewer: first page of ${first.rows.length} in ${first_page_ms.toFixed(0)} ms  (aim: < 1000 ms); index of all ${index.summaries.size} complete in ${complete_ms.toFixed(0)} ms`);
    console.log(`  status filter needs_operator over ${index.summaries.size}: ${needs.total} rows in ${filter_ms.toFixed(1)} ms  (aim: < 1000 ms)`);
    console.log(`  ${CHANGES_PER_S} changes/s for ${CHANGE_SECONDS} s: index current after ${Math.max(...lags).toFixed(0)} ms at worst (each second's puts and their arrival)  (aim: < 2000 ms)`);
    console.log(`  process RSS ${rss_mb.toFixed(0)} MB (agents + viewer in one process; ${rss_before_mb.toFixed(0)} MB before the index)  (aim: < 500 MB)`);
    console.log(`  walscope serve --fleet (child process, over HTTP): first page of ${serve_first.rows.length} ${serve_first_ms.toFixed(0)} ms after spawn, of which node's start-up (walscope --help) ${node_start_ms.toFixed(0)} ms (${serve_first.complete ? 'complete' : `${serve_first.total} in so far`})  (aim: < 1000 ms after connecting); all ${serve_total} in after ${serve_complete_ms.toFixed(0)} ms`);
    console.log(`    status filter needs_operator over ${serve_total}: ${serve_needs.total} rows, page of ${serve_needs.rows.length} in ${serve_filter_ms.toFixed(1)} ms over HTTP  (aim: < 1000 ms)`);
    console.log(`    ${CHANGES_PER_S} changes/s for ${CHANGE_SECONDS} s: the served list showed each second's last change ${Math.max(...serve_lags).toFixed(0)} ms at worst after the second began  (aim: < 2000 ms)`);
    console.log(`    serve process RSS ${serve_memory.rss_mb.toFixed(0)} MB, peak ${serve_memory.peak_mb.toFixed(0)} MB  (aim: < 500 MB)`);
    console.log(`  server: sessions bucket ${info.state.messages} values, ${(info.state.bytes / 1_048_576).toFixed(1)} MiB, ${(info.state.bytes / info.state.messages).toFixed(0)} bytes per session; hosts bucket ${(hosts_info.state.bytes / hosts_info.state.messages).toFixed(0)} bytes per host`);
    console.log(`    streams: ${event_bytes.toFixed(0)} bytes per event (WALSCOPE_EVENTS), ${audit_bytes.toFixed(0)} bytes per audit entry (WALSCOPE_AUDIT)`);
    await viewer.close();
    await agents.close();
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFleet();

// The fleet at scale (docs/fleet.md, docs/performance.md): a real nats-server with JetStream, 200 simulated
// hosts × 500 sessions (100,000 realistic summaries, written by simulated agents over one connection of this
// process), then a viewer's FleetIndex on its own connection: time to the first page, a status filter over all
// 100,000, 1,000 summary changes a second absorbed (lag from put to index), the process's memory, and what the
// bucket costs in the server. Run by `npm run bench` after its own sections.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { SessionStatus } from '../src-shared/ipc.js';
import type { FleetSummary } from '../src-main/fleet/agent.js';
import { FleetIndex } from '../src-main/fleet/index.js';
import { sessionKey, SESSIONS_BUCKET } from '../src-main/fleet/names.js';
import { initTopology } from '../src-main/fleet/topology.js';

const HOSTS = 200;
const SESSIONS_PER_HOST = 500;
const CHANGES_PER_S = 1_000;
const CHANGE_SECONDS = 5;
const PUTS_IN_FLIGHT = 2_000;
const STATUSES: SessionStatus[] = ['finished', 'finished', 'finished', 'idle', 'live', 'needs_operator', 'torn_tail', 'paused_held', 'refused'];

function summary(host: number, session: number, seq: number): FleetSummary {
  const status = STATUSES[(host * 7 + session * 13 + seq) % STATUSES.length]!;
  return {
    host: `host-${String(host).padStart(4, '0')}`,
    session: `01J${String(host).padStart(4, '0')}${String(session).padStart(6, '0')}ABCDEFGHJK`,
    status,
    why: status === 'needs_operator' ? 'calls may have had their side effect: record their outcome as unknown, close the batch and seal the episode Interrupted' : 'episode 1 is finished (completed): nothing to do',
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
    const load_s = (performance.now() - started) / 1_000;
    const rss_before_mb = process.memoryUsage().rss / 1_048_576;

    const viewer = await connect({ servers: url });
    started = performance.now();
    const index = await FleetIndex.open(viewer, 100);
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
    const info = await (await jetstreamManager(viewer)).streams.info(`KV_${SESSIONS_BUCKET}`);

    console.log(`\nfleet: ${HOSTS} hosts × ${SESSIONS_PER_HOST} sessions on a real nats-server (JetStream, file store)`);
    console.log(`  simulated agents wrote ${HOSTS * SESSIONS_PER_HOST} summaries in ${load_s.toFixed(1)} s`);
    console.log(`  viewer: first page of ${first.rows.length} in ${first_page_ms.toFixed(0)} ms  (aim: < 1000 ms); index of all ${index.summaries.size} complete in ${complete_ms.toFixed(0)} ms`);
    console.log(`  status filter needs_operator over ${index.summaries.size}: ${needs.total} rows in ${filter_ms.toFixed(1)} ms  (aim: < 1000 ms)`);
    console.log(`  ${CHANGES_PER_S} changes/s for ${CHANGE_SECONDS} s: index current after ${Math.max(...lags).toFixed(0)} ms at worst (each second's puts and their arrival)  (aim: < 2000 ms)`);
    console.log(`  process RSS ${rss_mb.toFixed(0)} MB (agents + viewer in one process; ${rss_before_mb.toFixed(0)} MB before the index)  (aim: < 500 MB)`);
    console.log(`  server: ${info.state.messages} values, ${(info.state.bytes / 1_048_576).toFixed(1)} MiB, ${(info.state.bytes / info.state.messages).toFixed(0)} bytes per session`);
    index.close();
    await viewer.close();
    await agents.close();
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFleet();

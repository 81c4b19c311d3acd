// `walscope fetch` against an agent it cannot trust: a real nats-server with the sample config, the real CLI as
// support, and a responder on `walscope.fetch.<host>` (as fleet-admin) that claims what it likes and answers as
// slowly as it likes. A claimed size above a WAL's ceiling is refused before anything is written; a copy stopped
// by a signal, or killed outright, leaves no temporary folder for good.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FetchRequest } from '../../src-main/fleet/fetch.js';
import { fetchSubject } from '../../src-main/fleet/names.js';
import { connectAs, fleetConfig, login, NatsServer, REPO_DIR, until } from './nats-harness.js';

let dir: string;
let server: NatsServer;
let admin: NatsConnection;

const CONTENT = randomBytes(600 * 1024);
const SHA256 = createHash('sha256').update(CONTENT).digest('hex');

/** Answers `host`'s fetch requests: stat with `claimed_bytes`, chunks of CONTENT until `hold_from` (then none). */
async function responder(host: string, claimed_bytes: number, hold_from = Number.POSITIVE_INFINITY): Promise<{ chunks: number; stop(): void }> {
  const state = { chunks: 0, stop: () => sub.unsubscribe() };
  const sub = admin.subscribe(fetchSubject(host), {
    callback: (error, msg) => {
      if (error !== null) return;
      const request = msg.json<FetchRequest>();
      if (request.op === 'stat') return void msg.respond(JSON.stringify({ ok: true, size_bytes: claimed_bytes, sha256: SHA256 }));
      state.chunks += 1;
      if (request.offset >= hold_from) return;
      msg.respond(CONTENT.subarray(request.offset, request.offset + request.length));
    },
  });
  await admin.flush();
  return state;
}

function fetchChild(host: string, out: string): ChildProcess {
  return spawn(process.execPath, ['bin/walscope.js', 'fetch', host, 's1', out, '--nats', server.url, ...login('support')], { cwd: REPO_DIR, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** `walscope fetch HOST s1 OUT` as support, run to its end while this process's responder answers. */
async function fetchOnce(host: string, out: string): Promise<{ status: number | null; stderr: string }> {
  const child = fetchChild(host, out);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await exited(child);
  return { status: child.exitCode, stderr };
}

const partials = (out: string) => (fs.existsSync(out) ? fs.readdirSync(out).filter((name) => name.includes('.partial-')) : []);
const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

/** A fetch from `host` into `out` sent `signal` once its first chunk is written and the next is asked for (and
 *  never answered). */
async function stoppedMidCopy(host: string, out: string, signal: NodeJS.Signals): Promise<ChildProcess> {
  const slow = await responder(host, CONTENT.length, 256 * 1024);
  const child = fetchChild(host, out);
  await until('the copy under way', 10_000, async () => partials(out).length === 1 && slow.chunks >= 2);
  child.kill(signal);
  await exited(child);
  slow.stop();
  return child;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-fleet-fetch-'));
  server = await NatsServer.start(dir, fleetConfig([]));
  admin = await connectAs(server.url, 'fleet-admin');
}, 60_000);

afterAll(async () => {
  await admin?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('walscope fetch trusts no agent', () => {
  it('a claimed size above the 1 GiB ceiling is refused before anything is written', async () => {
    const claims = await responder('huge', 4 * 1024 ** 3);
    const out = path.join(dir, 'huge');
    const run = await fetchOnce('huge', out);
    claims.stop();
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('the agent claims 4294967296 bytes, over a WAL\'s ceiling of 1073741824 (wal-format §9)');
    expect(claims.chunks).toBe(0);
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);

  it('a copy whose agent sends what it claimed lands whole and verified', async () => {
    const honest = await responder('honest', CONTENT.length);
    const out = path.join(dir, 'honest');
    const run = await fetchOnce('honest', out);
    honest.stop();
    expect(run.stderr).toBe('');
    expect(fs.readFileSync(path.join(out, 'honest.s1', 'wal')).equals(CONTENT)).toBe(true);
  }, 60_000);

  it('a fetch stopped by SIGTERM mid-copy removes its temporary folder', async () => {
    const out = path.join(dir, 'term');
    const child = await stoppedMidCopy('slow-term', out, 'SIGTERM');
    expect(child.signalCode).toBe('SIGTERM');
    expect(partials(out)).toEqual([]);
  }, 60_000);

  it('a fetch killed mid-copy leaves its temporary folder only until the next fetch into the same folder', async () => {
    const out = path.join(dir, 'kill');
    const child = await stoppedMidCopy('slow-kill', out, 'SIGKILL');
    expect(partials(out)).toEqual([`slow-kill.s1.partial-${child.pid}`]);
    const honest = await responder('honest', CONTENT.length);
    const run = await fetchOnce('honest', out);
    honest.stop();
    expect(run.stderr).toBe('');
    expect(fs.readdirSync(out)).toEqual(['honest.s1']);
  }, 60_000);
});

// A real nats-server (Debian's, installed by scripts/ensure-test-deps.mjs) with JetStream on a free port and a
// temporary store, and real `walscope agent` child processes: what the fleet tests stand on.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { AuditEntry } from '../../src-main/fleet/agent.js';
import { AUDIT_STREAM, encodeToken, inboxPrefix } from '../../src-main/fleet/names.js';

export const REPO_DIR = path.resolve(import.meta.dirname, '../..');
export const NATS_SERVER = '/usr/sbin/nats-server';
const READY_TIMEOUT_MS = 10_000;

/** docs/fleet-server.conf as shipped: the server config every fleet test runs. */
export const SAMPLE_CONFIG = fs.readFileSync(path.join(REPO_DIR, 'docs/fleet-server.conf'), 'utf8');
const PASSWORDS: Record<string, string> = { operator: 'OPERATOR_PASSWORD', support: 'SUPPORT_PASSWORD', 'fleet-admin': 'ADMIN_PASSWORD' };
const AGENT_PASSWORD = 'AGENT_ALPHA_PASSWORD';

/** The NATS user of `host`'s agent, as docs/fleet.md names it. */
export const agentUser = (host: string) => `agent-${encodeToken(host)}`;

/** The password of a user of the sample config (every agent keeps agent-alpha's). */
export const passwordOf = (user: string) => PASSWORDS[user] ?? AGENT_PASSWORD;

/** The CLI's login flags for `user` of the sample config. */
export const login = (user: string) => ['--user', user, '--password', passwordOf(user)];

/** The sample config with one agent block per host, each a copy of agent-alpha's with the host's encoded name
 *  and its user's inbox, as docs/fleet-server.conf says to add a host. */
export function fleetConfig(hosts: readonly string[]): string {
  const start = SAMPLE_CONFIG.indexOf('{ user: "agent-alpha"');
  let depth = 0;
  let end = start;
  do {
    if (SAMPLE_CONFIG[end] === '{') depth += 1;
    if (SAMPLE_CONFIG[end] === '}') depth -= 1;
    end += 1;
  } while (depth > 0);
  const block = SAMPLE_CONFIG.slice(start, end);
  const blocks = hosts.map((host) => block
    .replaceAll(inboxPrefix('agent-alpha'), '\u0000INBOX\u0000')
    .replaceAll('"agent-alpha"', '\u0000USER\u0000')
    .replaceAll('alpha', encodeToken(host))
    .replaceAll('\u0000INBOX\u0000', inboxPrefix(agentUser(host)))
    .replaceAll('\u0000USER\u0000', JSON.stringify(agentUser(host))));
  return SAMPLE_CONFIG.slice(0, start) + blocks.join('\n    ') + SAMPLE_CONFIG.slice(end);
}

/** A client connection as `user` of the sample config, its replies on the user's own inbox as walscope's are. */
export function connectAs(url: string, user: string): Promise<NatsConnection> {
  return connect({ servers: url, user, pass: passwordOf(user), inboxPrefix: inboxPrefix(user), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export class NatsServer {
  private child: ChildProcess | null = null;
  private constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** `config`: a server config file's text; `store_dir` is appended as its JetStream store. */
  static async start(dir: string, config?: string): Promise<NatsServer> {
    const port = await freePort();
    const store = path.join(dir, 'store');
    let args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store];
    if (config !== undefined) {
      const file = path.join(dir, 'server.conf');
      fs.writeFileSync(file, config);
      args = ['-c', file, ...args];
    }
    const server = new NatsServer(port, args);
    await server.restart();
    return server;
  }

  /** Starts (again) on the same port and store. */
  async restart(): Promise<void> {
    const child = spawn(NATS_SERVER, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server did not start: ${log}`)), READY_TIMEOUT_MS);
      const read = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log}`)));
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child === null || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

/** A fleet to test on: a real server in a fresh folder with the sample config (an agent block per host), the
 *  fleet's topology made by fleet-admin, and a demo state root per host (no agent started). */
export async function demoFleet(name: string, hosts: readonly string[]): Promise<{ dir: string; server: NatsServer; roots: Map<string, string> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `walscope-${name}-`));
  const server = await NatsServer.start(dir, fleetConfig(hosts));
  const init = walscope(['fleet', 'init', '--nats', server.url, ...login('fleet-admin')]);
  if (init.status !== 0) throw new Error(`fleet init: ${init.stderr}`);
  const roots = new Map<string, string>();
  for (const host of hosts) {
    const root = path.join(dir, `root-${host}`);
    const demo = walscope(['demo', root]);
    if (demo.status !== 0) throw new Error(`demo: ${demo.stderr}`);
    roots.set(host, root);
  }
  return { dir, server, roots };
}

export class AgentProcess {
  output = '';
  private constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (c: Buffer) => (this.output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (this.output += c.toString()));
  }

  static async start(root: string, host: string, url: string, extra: string[] = []): Promise<AgentProcess> {
    const child = spawn(process.execPath, ['bin/walscope.js', 'agent', root, '--host', host, '--nats', url, ...extra], { cwd: REPO_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    const agent = new AgentProcess(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`agent ${host} did not start: ${agent.output}`)), 30_000);
      child.stdout!.on('data', () => {
        if (agent.output.includes('walscope agent: host')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`agent ${host} exited (${code}): ${agent.output}`));
      });
    });
    return agent;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill(signal);
    });
  }
}

export function walscope(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['bin/walscope.js', ...args], { cwd: REPO_DIR, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

export async function until<T>(what: string, timeout_ms: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeout_ms;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== null && value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeout_ms} ms${last === null ? '' : ` (last error: ${String(last)})`}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every entry of the audit stream, in order. */
export async function auditEntries(nc: NatsConnection): Promise<AuditEntry[]> {
  const jsm = await jetstreamManager(nc);
  const { state } = await jsm.streams.info(AUDIT_STREAM);
  const entries: AuditEntry[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) entries.push((await jsm.streams.getMessage(AUDIT_STREAM, { seq }))!.json<AuditEntry>());
  return entries;
}

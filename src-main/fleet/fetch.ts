// Copying a session's WAL from its host through the agent: request/reply on `walscope.fetch.<host>`, in chunks
// below the server's max payload, verified end to end by SHA-256. The agent first fixes a size (a WAL only
// grows at its end, so the prefix up to that size no longer changes) and hashes that prefix; the copy must match.
// The copy lands as a session folder outside any state root — an export, read-only for ever — with the file
// mode 0444 and the folder synced, written under a temporary name and renamed only once verified. The agent's
// word is checked first: a size above a WAL's ceiling (wal-format §9) is refused before anything is written, and
// nothing past the size it claimed is ever written. A copy stopped by a signal removes its temporary folder; one
// killed outright leaves it, and the next fetch into the same DIR removes it (its process is gone).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import type { WalscopeApi } from '../../src-shared/ipc.js';
import { WAL_BYTES_CEILING } from '../../src-shared/wal.js';
import { encodeToken, fetchSubject } from './names.js';
import { natsModules } from './nats-modules.js';

export const FETCH_CHUNK_BYTES_MAX = 256 * 1024;
export const FETCH_TIMEOUT_MS = 10_000;
const CHUNK_MARGIN_BYTES = 4_096;

export type FetchRequest = { op: 'stat'; session: string } | { op: 'chunk'; session: string; offset: number; length: number };
type StatReply = { ok: true; size_bytes: number; sha256: string } | { ok: false; error: string };

/** The agent's side: answers stat and chunk requests for its root's sessions. */
export function answerFetch(nc: NatsConnection, api: WalscopeApi, host: string): { unsubscribe(): void } {
  return nc.subscribe(fetchSubject(host), {
    callback: (error, msg) => {
      if (error === null) void serveFetch(api, msg, nc.info?.max_payload ?? 1_048_576);
    },
  });
}

async function serveFetch(api: WalscopeApi, msg: Msg, max_payload: number): Promise<void> {
  try {
    const request = msg.json<FetchRequest>();
    const wal_path = (await api.getSession(request.session)).wal_path;
    if (request.op === 'stat') {
      const size_bytes = fs.statSync(wal_path).size;
      msg.respond(JSON.stringify({ ok: true, size_bytes, sha256: await hashPrefix(wal_path, size_bytes) } satisfies StatReply));
      return;
    }
    const length = Math.min(request.length, FETCH_CHUNK_BYTES_MAX, max_payload - CHUNK_MARGIN_BYTES);
    if (!Number.isSafeInteger(request.offset) || request.offset < 0 || !(length > 0)) throw new Error('bad chunk request');
    const fd = fs.openSync(wal_path, 'r');
    try {
      const buffer = Buffer.alloc(length);
      const read = fs.readSync(fd, buffer, 0, length, request.offset);
      msg.respond(buffer.subarray(0, read));
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    // Errors travel in a header, so a chunk's bytes are only ever WAL bytes.
    const h = (await natsModules()).transport.headers();
    h.set(ERROR_HEADER, oneLine((error as Error).message));
    msg.respond(new Uint8Array(0), { headers: h });
  }
}

const ERROR_HEADER = 'Walscope-Error';

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 500);
}

function replyError(msg: Msg): string | null {
  return msg.headers?.get(ERROR_HEADER) || null;
}

async function hashPrefix(file: string, size_bytes: number): Promise<string> {
  const hash = createHash('sha256');
  if (size_bytes > 0) for await (const chunk of fs.createReadStream(file, { start: 0, end: size_bytes - 1 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export interface FetchResult {
  path: string;
  size_bytes: number;
  sha256: string;
}

/** The viewer's side: copies HOST's SESSION into DIR/<host>.<session>/wal, or throws saying why. */
export async function fetchSession(nc: NatsConnection, host: string, session: string, dir: string): Promise<FetchResult> {
  const subject = fetchSubject(host);
  const stat_msg = await nc.request(subject, JSON.stringify({ op: 'stat', session } satisfies FetchRequest), { timeout: FETCH_TIMEOUT_MS });
  const stat_error = replyError(stat_msg);
  if (stat_error !== null) throw new Error(`${host} ${session}: ${stat_error}`);
  const stat = statOf(stat_msg);
  if (typeof stat === 'string') throw new Error(`${host} ${session}: ${stat}; nothing was written`);
  const folder = path.join(dir, `${encodeToken(host)}.${encodeToken(session)}`);
  if (fs.existsSync(folder)) throw new Error(`${folder} exists: fetch never overwrites; remove it or pick another DIR`);
  fs.mkdirSync(dir, { recursive: true });
  removeAbandoned(dir);
  const temp = `${folder}${PARTIAL_INFIX}${process.pid}`;
  fs.mkdirSync(temp);
  const stop = removeOnSignal(temp);
  try {
    const file = path.join(temp, 'wal');
    const fd = fs.openSync(file, 'wx', 0o644);
    const hash = createHash('sha256');
    try {
      for (let offset = 0; offset < stat.size_bytes; ) {
        const length = Math.min(FETCH_CHUNK_BYTES_MAX, stat.size_bytes - offset);
        const reply = await nc.request(subject, JSON.stringify({ op: 'chunk', session, offset, length } satisfies FetchRequest), { timeout: FETCH_TIMEOUT_MS });
        const chunk_error = replyError(reply);
        if (chunk_error !== null) throw new Error(`${host} ${session} at offset ${offset}: ${chunk_error}`);
        const bytes = reply.data;
        if (bytes.length === 0 || bytes.length > length) throw new Error(`${host} ${session}: the agent sent ${bytes.length} bytes at offset ${offset} where 1 to ${length} were asked`);
        fs.writeSync(fd, bytes, 0, bytes.length, offset);
        hash.update(bytes);
        offset += bytes.length;
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    const sha256 = hash.digest('hex');
    if (sha256 !== stat.sha256) throw new Error(`${host} ${session}: the copy's SHA-256 ${sha256} is not the agent's ${stat.sha256}; nothing was kept`);
    fs.chmodSync(file, 0o444);
    syncDir(temp);
    fs.renameSync(temp, folder);
    syncDir(dir);
    return { path: folder, size_bytes: stat.size_bytes, sha256 };
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw error;
  } finally {
    stop();
  }
}

const PARTIAL_INFIX = '.partial-';
/** A temporary folder of fetchSession's: `<host>.<session>.partial-<pid>`, both names encoded. */
const PARTIAL_NAME = /^[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]+\.partial-([1-9][0-9]{0,9})$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The agent's stat reply, checked: a size a WAL can have and a SHA-256, or why not. */
function statOf(msg: Msg): { size_bytes: number; sha256: string } | string {
  let stat: unknown;
  try {
    stat = msg.json();
  } catch {
    return 'the agent\'s answer is not JSON';
  }
  const reply = stat as Partial<Record<string, unknown>>;
  if (typeof stat !== 'object' || stat === null) return 'the agent\'s answer is not an object';
  if (reply['ok'] === false) return String(reply['error']).slice(0, 500);
  const size_bytes = reply['size_bytes'];
  if (!Number.isSafeInteger(size_bytes) || (size_bytes as number) < 0) return 'the agent gave no size';
  if ((size_bytes as number) > WAL_BYTES_CEILING) return `the agent claims ${size_bytes} bytes, over a WAL's ceiling of ${WAL_BYTES_CEILING} (wal-format §9): no WAL is that large`;
  if (typeof reply['sha256'] !== 'string' || !SHA256_HEX.test(reply['sha256'])) return 'the agent gave no SHA-256';
  return { size_bytes: size_bytes as number, sha256: reply['sha256'] };
}

/** Removes the temporary folders in `dir` of fetches whose process is gone (killed mid-copy). */
function removeAbandoned(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const pid = PARTIAL_NAME.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Until the returned function is called, a stop signal removes `temp` and then stops the process as it would. */
function removeOnSignal(temp: string): () => void {
  const handler = (signal: NodeJS.Signals) => {
    fs.rmSync(temp, { recursive: true, force: true });
    unhook();
    process.kill(process.pid, signal);
  };
  const unhook = () => {
    for (const signal of STOP_SIGNALS) process.off(signal, handler);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return unhook;
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

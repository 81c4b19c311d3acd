// `walscope serve`'s HTTP side: the renderer's files and the shared API over JSON POSTs, with events as SSE,
// on 127.0.0.1 only. Every request passes the guard (Host and Origin; the token too for the API) before
// anything else happens. The renderer's files hold no data and load without the token; a page gets the token
// by spending the link it was opened with (guard.ts says why).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dispatchApi, isApiMethod, REQUEST_BYTES_MAX, toApiError, type ApiErrorCode, type WalscopeApi } from '../../src-shared/ipc.js';
import { SECURITY_HEADERS } from './csp.js';
import { EventStreams } from './event-stream.js';
import { newToken, OPEN_HEADER, OPEN_PATH, OpenLink, RequestGuard } from './guard.js';
import { decodeUrlPath, staticFile } from './static-files.js';

export const API_PREFIX = '/api/';
const STATUS_OF: Record<ApiErrorCode, number> = { bad_request: 400, not_found: 404, unavailable: 503, internal: 500 };
export const EVENTS_PATH = '/api/events';
/** How much of a too-large body is read and dropped so that its sender can read the 413. */
const REQUEST_DRAIN_BYTES_MAX = 1_048_576;

export interface ServeOptions {
  api: WalscopeApi;
  renderer_dir: string;
  /** 0 picks a free port. */
  port: number;
  /** A page spent the link: `next_url` is the one for the next tab. */
  onLinkSpent?(next_url: string): void;
}

export interface RunningServer {
  /** The link that opens the page in one tab (OpenLink). */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const token = newToken();
  const server = http.createServer();
  server.maxHeadersCount = 64;
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const guard = new RequestGuard(token, port);
  const link = new OpenLink(`http://127.0.0.1:${port}`, token);
  const streams = new EventStreams(options.api);
  server.on('request', (request, response) => {
    handle(options, guard, link, streams, request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: error instanceof Error ? error.message : String(error), code: 'internal' });
      else response.destroy();
    });
  });
  return {
    get url() {
      return link.url;
    },
    port,
    token,
    async close() {
      streams.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(
  options: ServeOptions,
  guard: RequestGuard,
  link: OpenLink,
  streams: EventStreams,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const url = requestUrl(request);
  const is_api = url !== null && url.pathname.startsWith(API_PREFIX);
  const verdict = url !== null && is_api ? guard.checkApi(request, url) : guard.checkOrigin(request);
  if (!verdict.ok) return refuse(request, response, verdict.status, verdict.message);
  if (url === null) return refuse(request, response, 400, 'malformed request target');
  const headers: Record<string, string> = { ...SECURITY_HEADERS };
  if (url.pathname === EVENTS_PATH && request.method === 'GET') {
    if (!streams.add(response, headers)) send(response, 503, { error: 'too many event streams open', code: 'bad_request' });
    return;
  }
  if (is_api) {
    await handleApi(options.api, url.pathname.slice(API_PREFIX.length), request, response, headers);
    return;
  }
  if (url.pathname === OPEN_PATH) return handleOpen(link, request, response, options.onLinkSpent);
  if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(request, response, 405, 'method not allowed');
  const file_path = decodeUrlPath(url.pathname);
  if (file_path === null) return refuse(request, response, 400, 'malformed percent-encoding in the path');
  const file = staticFile(options.renderer_dir, file_path);
  if (file === null) {
    send(response, 404, { error: 'not found', code: 'not_found' });
    return;
  }
  response.writeHead(200, { ...headers, 'content-type': file.content_type, 'cache-control': 'no-cache' });
  response.end(request.method === 'HEAD' ? undefined : file.body);
}

/** A page trades the code of the link it was opened with for the token; the next link is then announced. */
function handleOpen(link: OpenLink, request: http.IncomingMessage, response: http.ServerResponse, onLinkSpent: ServeOptions['onLinkSpent']): void {
  const code = request.headers[OPEN_HEADER];
  const token = request.method === 'POST' && typeof code === 'string' ? link.trade(code) : null;
  if (token === null) return refuse(request, response, 403, 'this link was used already or is not this serve\'s: open the newest link walscope serve printed (each opens one tab)');
  request.resume();
  send(response, 200, { token });
  onLinkSpent?.(link.url);
}

/** The request target as a URL, or null when it is not one (the caller answers 400, not 500). */
function requestUrl(request: http.IncomingMessage): URL | null {
  try {
    return new URL(request.url ?? '/', 'http://127.0.0.1');
  } catch {
    return null;
  }
}

function refuse(request: http.IncomingMessage, response: http.ServerResponse, status: number, message: string): void {
  request.resume();
  send(response, status, { error: message, code: status === 404 ? 'not_found' : 'bad_request' });
}

async function handleApi(api: WalscopeApi, method: string, request: http.IncomingMessage, response: http.ServerResponse, headers: Record<string, string>): Promise<void> {
  if (request.method !== 'POST' || !isApiMethod(method)) {
    send(response, 404, { error: `no API method ${method}`, code: 'not_found' });
    return;
  }
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    send(response, 415, { error: 'send JSON', code: 'bad_request' });
    return;
  }
  const body = await readBody(request);
  if (body === null) {
    // Answered at once; the rest of the body is read and dropped (readBody bounds that too) so the client
    // gets the status instead of a reset connection, and the connection closes after it.
    send(response, 413, { error: `a request body is at most ${REQUEST_BYTES_MAX} bytes`, code: 'bad_request' }, { ...headers, connection: 'close' });
    return;
  }
  let args: unknown;
  try {
    args = (JSON.parse(body) as { args?: unknown }).args;
  } catch {
    args = null;
  }
  if (!Array.isArray(args)) {
    send(response, 400, { error: 'expected {"args": [...]}', code: 'bad_request' });
    return;
  }
  try {
    send(response, 200, (await dispatchApi(api, method, args)) ?? null, headers);
  } catch (error) {
    const failure = toApiError(error);
    send(response, STATUS_OF[failure.code], failure, headers);
  }
}

/** The body as text, or null as soon as it is larger than REQUEST_BYTES_MAX. The rest is then read and dropped,
 *  up to REQUEST_DRAIN_BYTES_MAX more; past that the connection is cut. */
function readBody(request: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > REQUEST_BYTES_MAX + REQUEST_DRAIN_BYTES_MAX) request.destroy();
      else if (size > REQUEST_BYTES_MAX) resolve(null);
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(size > REQUEST_BYTES_MAX ? null : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = SECURITY_HEADERS): void {
  const body = JSON.stringify(value);
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(body);
}

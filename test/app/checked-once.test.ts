// A request's arguments are checked once, by the outermost transport that receives it (issue 29, item 6: the
// window's requests were each checked twice, by the HTTP or IPC handler and again by the session worker). The
// checks are counted where they are made (apiCallProblem, the one check); the worker's hop runs here, through the
// worker's own answerRequest, since a worker thread's count cannot be read from this one.
import { afterEach, describe, expect, it } from 'vitest';
import { registerIpc } from '../../src-main/electron/ipc-handlers.js';
import { startServer } from '../../src-main/server/http-server.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { answerRequest } from '../../src-main/services/worker-protocol.js';
import { api_calls_checked, apiClient, ApiFailure, IPC_REQUEST_CHANNEL, type ApiRequest, type WalscopeApi } from '../../src-shared/ipc.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-checked-once-');
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** What the window asks for after a session changed (queries.ts), and the list. */
const REQUESTS: [string, unknown[]][] = [
  ['getSession', ['s']],
  ['getRows', ['s', 'timeline', 0, 100]],
  ['getRows', ['s', 'timeline', 100, 100]],
  ['getHistory', ['s']],
  ['getTiming', ['s', 1]],
  ['listSessions', []],
];

/** The service behind the session worker's hop: each call answered by the worker's answerRequest, its reply
 *  unwrapped as WorkerApi unwraps it. */
async function behindWorker(): Promise<WalscopeApi> {
  const root = tempDir();
  writeFinished(root, 's');
  const service = await SessionService.open(root, { watch: false, cache: false });
  cleanup.push(() => service.close());
  let id = 0;
  const client = apiClient(async (method, args) => {
    const reply = await answerRequest(service, { id: ++id, ...({ method, args } as ApiRequest) });
    if (reply.kind !== 'reply') throw new Error(`the worker answered ${reply.kind}`);
    if (!reply.ok) throw new ApiFailure(reply.error.code, reply.error.error);
    return reply.value;
  });
  return { ...client, subscribe: (listener) => service.subscribe(listener) };
}

/** The checks `ask` made. */
async function checksOf(ask: () => Promise<unknown>): Promise<number> {
  const before = api_calls_checked.count;
  await ask();
  return api_calls_checked.count - before;
}

describe('arguments are checked once, at the outer transport', () => {
  it('a request over HTTP is checked once, not again by the worker', async () => {
    const server = await startServer({ api: await behindWorker(), renderer_dir: tempDir(), port: 0 });
    cleanup.push(() => server.close());
    const post = async (method: string, args: unknown[]) => {
      const response = await fetch(`http://127.0.0.1:${server.port}/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-walscope-token': server.token },
        body: JSON.stringify({ args }),
      });
      expect(response.status).toBe(200);
    };
    for (const [method, args] of REQUESTS) expect(await checksOf(() => post(method, args)), method).toBe(1);
  });

  it('a request over the Electron IPC is checked once, not again by the worker', async () => {
    const api = await behindWorker();
    const renderer_url = 'app://walscope/index.html';
    const contents = { mainFrame: { url: renderer_url } };
    const handlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
    registerIpc({ handle: (channel: string, handler: never) => handlers.set(channel, handler) } as never, { api: () => api, contents: () => contents as never, renderer_url, openPath: () => Promise.reject(new Error('not here')), saveBundle: () => Promise.reject(new Error('not here')) });
    const event = { sender: contents, senderFrame: contents.mainFrame };
    for (const [method, args] of REQUESTS) expect(await checksOf(() => handlers.get(IPC_REQUEST_CHANNEL)!(event, method, args)), method).toBe(1);
  });

  it('a bad argument is refused by the outer check, naming it', async () => {
    const api = await behindWorker();
    const server = await startServer({ api, renderer_dir: tempDir(), port: 0 });
    cleanup.push(() => server.close());
    const response = await fetch(`http://127.0.0.1:${server.port}/api/getRows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-walscope-token': server.token },
      body: JSON.stringify({ args: ['s', 'constructor', 0, 10] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/list must be one of timeline, records, transcript/);
  });
});

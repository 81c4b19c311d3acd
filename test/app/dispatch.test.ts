// One dispatcher for every transport (issue 9): arguments are checked once where a request enters, a bad one
// is a 400 that names the argument (not a 404, not a 500), an unknown method is a 404, and a failure keeps its
// code across the worker boundary. Through the real HTTP server with a real session service.
import { afterEach, describe, expect, it } from 'vitest';
import type { BundleFile } from '../../src-shared/bundle.js';
import { ApiFailure, dispatchApi, type SessionPage } from '../../src-shared/ipc.js';
import { startServer, type RunningServer } from '../../src-main/server/http-server.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-dispatch-');
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function served(): Promise<{ server: RunningServer; post: (method: string, body: unknown) => Promise<{ status: number; body: { error?: string; code?: string } }> }> {
  const root = tempDir();
  writeFinished(root, 's');
  const service = await SessionService.open(root, { watch: false, cache: false });
  cleanup.push(() => service.close());
  const server = await startServer({ api: service, renderer_dir: tempDir(), port: 0 });
  cleanup.push(() => server.close());
  const post = async (method: string, body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${server.port}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-walscope-token': server.token },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { error?: string; code?: string } };
  };
  return { server, post };
}

describe('the API dispatcher', () => {
  it.each([
    ['getRows', ['s', 'constructor', 0, 10], /list must be one of timeline, records, transcript/],
    ['getRows', ['s', 'records', -1, 10], /start must be a whole number/],
    ['getRows', ['s', 'records', 0], /takes 4 argument/],
    ['search', ['s', 'records', { toString: 1 }, { errors: false, call_class: null, tool: null, record_type: null }], /query must be text/],
    ['search', ['s', 'timeline', 'x'], /search takes 4 argument\(s\)/],
    ['filterTimeline', ['s', { errors: 'yes', call_class: null, tool: null, record_type: null }, 0, 100], /filter must be \{errors: true or false/],
    ['filterTimeline', ['s', { errors: false, call_class: 'done', tool: null, record_type: null }, 0, 100], /filter must be/],
    ['filterTimeline', ['s', { errors: false, call_class: null, tool: 'x'.repeat(201), record_type: null }, 0, 100], /names of 1 to 200 characters/],
    ['filterTimeline', ['s', { errors: false, call_class: null, tool: null }, 0, 100], /filter must be/],
    ['filterTimeline', ['s', { errors: true, call_class: null, tool: null, record_type: null }, -1, 100], /start must be a whole number/],
    ['getSession', [42], /key must be a session key/],
    ['previewAction', ['s', 'stop'], /kind must be one of resume, cancel, seal/],
    ['runAction', ['s', 'seal', 1.5, 'disk replaced', 'ann'], /based_on_seq must be a whole number/],
    ['runAction', ['s', 'seal', 1, 42, 'ann'], /reason must be text/],
    ['runAction', ['s', 'seal', 1, 'disk replaced'], /runAction takes 5 argument\(s\)/],
    ['runAction', ['s', 'seal', 1, 'disk replaced', 7], /operator must be your name/],
    ['runAction', ['s', 'seal', 1, 'disk replaced', 'ann\u001b[2J'], /operator must be your name \(1 to 200 characters of text, no control characters\)/],
    ['runAction', ['s', 'seal', 1, 'disk replaced', '  '], /operator must be your name/],
    ['previewAcknowledge', ['s', { batch_id: 'b', tool_call_id: 'c' }, 'maybe'], /finding must be one of applied, not_applied, unknown_accepted/],
    ['previewAcknowledge', ['s', { tool_call_id: 'c' }, 'applied'], /call must be \{batch_id, tool_call_id\}/],
    ['runAcknowledge', ['s', { batch_id: 'b', tool_call_id: 'c' }, 'applied', 3, 'checked it'], /runAcknowledge takes 6 argument\(s\)/],
    ['runAcknowledge', ['s', { batch_id: 'b', tool_call_id: 5 }, 'applied', 3, 'checked it', 'ann'], /call must be/],
    ['getReport', [42], /key must be a session key/],
    ['getBundle', ['s'], /getBundle takes 2 argument\(s\): key, redact/],
    ['getBundle', ['s', 'secrets'], /redact must be a list of outputs, args, inputs, model-text, secrets/],
    ['getBundle', ['s', ['secrets', 'passwords']], /redact must be a list of/],
    ['getBundle', ['s', ['secrets', 'secrets']], /each at most once/],
    ['getHistory', [], /takes 1 argument/],
    ['previewRetire', ['s', 'archived'], /reason must be one of sealed, deleted/],
    ['runRetire', ['s', 'sealed', null, 'why', 'ann'], /plan must be the plan previewRetire returned/],
    ['runRetire', ['s', 'sealed', [1], 'why', 'ann'], /plan must be the plan previewRetire returned/],
    ['runRetire', ['s', 'sealed', {}], /runRetire takes 5 argument\(s\)/],
    ['runRetire', ['s', 'sealed', {}, 7, 'ann'], /audit_reason must be text/],
    ['getContext', ['s', -1, null], /episode must be a whole number/],
    ['compareSessions', ['a', '', null, 0, 10], /b must be a session key/],
    ['compareSessions', ['a', 'b', 'one', 0, 10], /episode must be an episode number \(≥ 1\) or null/],
    ['compareSessions', ['a', 'b', 0, 0, 10], /episode must be an episode number/],
    ['compareSessions', ['a', 'b', null, 0], /compareSessions takes 5 argument\(s\)/],
    ['listPage', [{ status: 'bogus', host: null, attention: false }, 0, 10], /filter must be \{status: a status or null/],
    ['listPage', [{ status: 'finished', host: null, attention: false }, 0, 10], /filter must be \{status: a status or null/],
    ['listPage', [{ status: null, host: null }, 0, 10], /filter must be \{status, host, attention\}/],
    ['listPage', [{ status: null, host: '', attention: false }, 0, 10], /filter must be/],
    ['listPage', [{ status: null, host: null, attention: 'yes' }, 0, 10], /filter must be/],
    ['listPage', [{ status: null, host: null, attention: false }, 0, -1], /count must be a whole number/],
  ])('%s %j is a 400 naming the argument', async (method, args, reason) => {
    const { post } = await served();
    const answer = await post(method, { args });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('bad_request');
    expect(answer.body.error).toMatch(reason);
  });

  it('listPage of a local workspace: the filtered window of its own list, with the filtered total', async () => {
    const { post } = await served();
    const all = (await post('listPage', { args: [{ status: null, host: null, attention: false }, 0, 10] })).body as unknown as SessionPage;
    expect(all).toMatchObject({ start: 0, total: 1, complete: true, hosts: [] });
    expect(all.rows.map((row) => row.key)).toEqual(['s']);
    const other = (await post('listPage', { args: [{ status: 'needs_operator', host: null, attention: false }, 0, 10] })).body as unknown as SessionPage;
    expect(other).toMatchObject({ total: 0, rows: [] });
    const waiting = (await post('listPage', { args: [{ status: null, host: null, attention: true }, 0, 10] })).body as unknown as SessionPage;
    expect(waiting).toMatchObject({ total: all.rows.filter((row) => row.attention !== null).length });
    const past = (await post('listPage', { args: [{ status: null, host: null, attention: false }, 1, 10] })).body as unknown as SessionPage;
    expect(past).toMatchObject({ start: 1, total: 1, rows: [] });
  });

  it('an unknown method and an unknown session are 404s; a good call answers', async () => {
    const { post } = await served();
    expect((await post('constructor', { args: [] })).status).toBe(404);
    expect(await post('getSession', { args: ['nope'] })).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await post('listSessions', { args: [] })).status).toBe(200);
    expect((await post('getHistory', { args: ['s'] })).status).toBe(200);
    expect(await post('previewRetire', { args: ['s', 'sealed'] })).toMatchObject({ status: 200 });
  });

  it('getBundle answers the session as one page, made as walscope bundle makes it, redacted as asked', async () => {
    const { post } = await served();
    const plain = (await post('getBundle', { args: ['s', []] })).body as unknown as BundleFile;
    expect(plain).toMatchObject({ file_name: 's-bundle.html', classes: [], markers: 0 });
    expect(plain.html).toMatch(/^<!doctype html>/i);
    expect(plain.size_bytes).toBe(Buffer.byteLength(plain.html));
    const redacted = (await post('getBundle', { args: ['s', ['model-text', 'outputs']] })).body as unknown as BundleFile;
    expect(redacted.classes).toEqual(['outputs', 'model-text']);
    expect(redacted.markers).toBeGreaterThan(0);
    expect(redacted.html).toContain('walscope-redactions/1');
    expect(await post('getBundle', { args: ['nope', []] })).toMatchObject({ status: 404 });
  });

  it('dispatchApi itself refuses before calling the service', async () => {
    let called = false;
    const api = { getSession: () => ((called = true), Promise.resolve(null)) } as never;
    await expect(dispatchApi(api, 'getSession', [''])).rejects.toBeInstanceOf(ApiFailure);
    await expect(dispatchApi(api, 'getSession', [''])).rejects.toMatchObject({ code: 'bad_request' });
    expect(called).toBe(false);
  });
});

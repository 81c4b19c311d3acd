// The credential of `walscope serve` stays with its own port, and odd HTTP requests get a status, never a 500 or
// a dropped connection. Real serves (the CLI and renderer in out/, built by test/build-once.ts), a real probe
// server on another local port, and Chromium.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, serve, type LaunchedBrowser, type Served } from './serve-harness.js';
import { writeFinished, writeIndeterminate } from './wal-fixture.js';

const LOAD_MS_MAX = 10_000;

let work: string;
let first: Served;
let second: Served;
let chromium: LaunchedBrowser;
let probe: http.Server;
let probe_port: number;
/** Every request the probe received: its URL and all its headers, as one text to search for a token. */
const probe_seen: string[] = [];

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-serve-security-'));
  const [root_a, root_b] = [path.join(work, 'a'), path.join(work, 'b')];
  for (const root of [root_a, root_b]) fs.mkdirSync(root);
  writeIndeterminate(root_a, 'alpha');
  writeFinished(root_b, 'beta');
  probe = http.createServer((request, response) => {
    probe_seen.push(`${request.method} ${request.url}\n${JSON.stringify(request.headers)}`);
    request.resume();
    response.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
    response.end('<p>probe</p><img src="/pixel.png">');
  });
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  probe_port = (probe.address() as AddressInfo).port;
  [first, second, chromium] = await Promise.all([serve(root_a), serve(root_b), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await Promise.all([first?.stop(), second?.stop()]);
  await new Promise<void>((resolve) => (probe === undefined ? resolve() : probe.close(() => resolve())));
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

const sessionRows = (page: Page) => page.locator('[data-testid=session-row]');

async function openServe(served: Served, session: string): Promise<Page> {
  return openLink(await served.link(), session);
}

async function openLink(link: string, session: string): Promise<Page> {
  const page = await chromium.context.newPage();
  await page.goto(link);
  await expect.poll(() => sessionRows(page).getAttribute('data-session'), { timeout: LOAD_MS_MAX }).toBe(session);
  return page;
}

describe('two serves in one browser', () => {
  it('each tab keeps working after the other opened, and after a reload; the token leaves the URL and the tab history', async () => {
    const page_a = await openServe(first, 'alpha');
    const page_b = await openServe(second, 'beta');
    expect(page_a.url()).toBe(`http://127.0.0.1:${first.port}/`);
    expect(page_b.url()).toBe(`http://127.0.0.1:${second.port}/`);
    for (const [page, session] of [[page_a, 'alpha'], [page_b, 'beta']] as const) {
      await page.reload();
      await expect.poll(() => sessionRows(page).getAttribute('data-session'), { timeout: LOAD_MS_MAX }).toBe(session);
      const history = await page.evaluate(() => window.history.length);
      await page.goBack();
      expect({ history, back: page.url() }).toEqual({ history: 2, back: 'about:blank' });
    }
    // No credential the browser would attach on its own: a cookie would go to every 127.0.0.1 port.
    expect(await chromium.context.cookies()).toEqual([]);
  });

  it('keeps the token out of the browser\'s history database; the link the history keeps is spent', async () => {
    const own = await launchChromium();
    try {
      const link = await first.link();
      const page = await own.context.newPage();
      await page.goto(link);
      await expect.poll(() => sessionRows(page).getAttribute('data-session'), { timeout: LOAD_MS_MAX }).toBe('alpha');
      await page.reload();
      await expect.poll(() => sessionRows(page).getAttribute('data-session'), { timeout: LOAD_MS_MAX }).toBe('alpha');
      // Chromium writes its History database as it closes.
      await own.context.close();
      const history_file = path.join(own.profile, 'Default', 'History');
      const db = new Database(history_file, { readonly: true });
      const urls = (db.prepare('SELECT url FROM urls').all() as { url: string }[]).map((row) => row.url);
      db.close();
      expect(urls).toContain(link);
      expect(urls.filter((url) => url.includes(first.token))).toEqual([]);
      expect(fs.readFileSync(history_file).includes(first.token)).toBe(false);
      const code = new URL(link).searchParams.get('open')!;
      expect(await request(first, { method: 'POST', path: '/open', headers: { 'x-walscope-open': code } })).toMatchObject({ status: 403, body: expect.stringContaining('used already') });
    } finally {
      await own.close();
    }
  });

  it('a spent link opens nothing, and the page says why', async () => {
    const link = await first.link();
    await openLink(link, 'alpha');
    const again = await chromium.context.newPage();
    await again.goto(link);
    await expect.poll(() => again.locator('[data-testid=workspace-error]').textContent(), { timeout: LOAD_MS_MAX }).toContain('this link was used already');
    expect(await sessionRows(again).count()).toBe(0);
    // Host and Origin are checked here as on every request; a GET spends nothing.
    const code = (await first.link()).split('open=')[1]!;
    const headers = { 'x-walscope-open': code };
    expect((await request(first, { method: 'POST', path: '/open', headers: { ...headers, origin: 'http://evil.example' } })).status).toBe(403);
    expect((await request(first, { method: 'POST', path: '/open', headers: { ...headers, host: `evil.example:${first.port}` } })).status).toBe(421);
    expect((await request(first, { method: 'GET', path: '/open', headers })).status).toBe(403);
    expect(JSON.parse((await request(first, { method: 'POST', path: '/open', headers })).body)).toEqual({ token: first.token });
  });

  it('sends nothing of either token to another local server the same browser talks to', async () => {
    await openServe(first, 'alpha');
    await openServe(second, 'beta');
    // The walscope page itself cannot reach another origin (its CSP); what matters is what the browser attaches
    // on its own to requests other pages make to 127.0.0.1: a navigation, a subresource, a credentialed fetch.
    const visit = await chromium.context.newPage();
    await visit.goto(`http://127.0.0.1:${probe_port}/navigation`);
    await visit.evaluate(async () => {
      await fetch('/fetch-with-credentials', { credentials: 'include' });
    });
    await expect.poll(() => probe_seen.some((seen) => seen.startsWith('GET /pixel.png'))).toBe(true);
    const seen = probe_seen.join('\n');
    expect(seen).toContain('/fetch-with-credentials');
    expect(seen).toContain('/navigation');
    expect(seen).not.toContain(first.token);
    expect(seen).not.toContain(second.token);
    expect(seen).not.toContain('walscope');
  });
});

/** One raw request to a serve: its status and body (the connection may close after it). */
function request(served: Served, options: { method: string; path: string; headers?: Record<string, string>; body?: Buffer }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port: served.port, method: options.method, path: options.path, headers: options.headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

describe('HTTP edges', () => {
  it('answers a path with a malformed percent-escape 400, not 500', async () => {
    // With the token, so that the request reaches the path's decoding whatever the guard asks of files.
    const headers = { 'x-walscope-token': first.token };
    expect(await request(first, { method: 'GET', path: '/%E0%A4%A', headers })).toMatchObject({ status: 400, body: expect.stringContaining('percent-encoding') });
    expect(await request(first, { method: 'GET', path: '/assets/%ZZ.js', headers })).toMatchObject({ status: 400 });
  });

  it('answers a 70 KB POST 413 with a status the client reads, not a dropped connection', async () => {
    const body = Buffer.from(JSON.stringify({ args: ['x'.repeat(70 * 1024)] }));
    const headers = { 'content-type': 'application/json', 'x-walscope-token': first.token, 'content-length': String(body.length) };
    expect(await request(first, { method: 'POST', path: '/api/listSessions', headers, body })).toMatchObject({ status: 413, body: expect.stringContaining('at most') });
    expect(await request(first, { method: 'POST', path: '/api/listSessions', headers: { ...headers, 'content-length': '11' }, body: Buffer.from('{"args":[]}') })).toMatchObject({ status: 200 });
  });

  it('asks for the token on the API and the event stream, not on the renderer\'s files', async () => {
    const json = { 'content-type': 'application/json' };
    expect((await request(first, { method: 'POST', path: '/api/listSessions', headers: json, body: Buffer.from('{"args":[]}') })).status).toBe(403);
    expect((await request(first, { method: 'POST', path: '/api/listSessions', headers: { ...json, 'x-walscope-token': second.token }, body: Buffer.from('{"args":[]}') })).status).toBe(403);
    expect((await request(first, { method: 'POST', path: '/api/listSessions', headers: { ...json, cookie: `walscope_token=${first.token}` }, body: Buffer.from('{"args":[]}') })).status).toBe(403);
    expect((await request(first, { method: 'GET', path: '/' })).status).toBe(200);
    expect((await request(first, { method: 'GET', path: '/', headers: { host: `evil.example:${first.port}` } })).status).toBe(421);
  });
});

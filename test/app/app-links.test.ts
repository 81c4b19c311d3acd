// walscope:// links in the desktop app: what a link does (app-links.ts, the pure part of main.ts's handler) and
// that what it opens is read-only (services/read-only.ts over a real service on a state root): no action, no
// acknowledgement and no retire offered or done, nothing written, every read as File › Open's. And the desktop's
// Export bundle (save-bundle.ts): a new file chosen in the dialog, never one that exists or one in a state root.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_METHODS, isWriteMethod, type WalscopeApi } from '../../src-shared/ipc.js';
import { formatLink } from '../../src-shared/links.js';
import { linkInArgv, linkOpening, protocolClient, startTarget } from '../../src-main/electron/app-links.js';
import { RENDERER_URL } from '../../src-main/electron/app-protocol.js';
import { saveBundle } from '../../src-main/electron/save-bundle.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { LINK_READ_ONLY, readOnlyApi } from '../../src-main/services/read-only.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeIndeterminate } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-app-links-');
const opened: SessionService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

describe('a walscope:// link in the desktop app', () => {
  it('opens its path read-only and loads the renderer at what it names', () => {
    const link = formatLink({ path: '/srv/state', session: 's 1', tab: null, step: null, record: 42 });
    expect(linkOpening(link, null)).toEqual({ kind: 'open', path: '/srv/state', reopen: true, renderer_url: `${RENDERER_URL}#session=s%201&tab=records&record=42` });
    expect(linkOpening(formatLink({ path: '/srv/state', session: 's', tab: null, step: { episode: 1, step_id: 3 }, record: null }), null)).toMatchObject({ renderer_url: `${RENDERER_URL}#session=s&tab=context&episode=1&step=3` });
    expect(linkOpening('walscope://open?path=/srv/state', null)).toMatchObject({ renderer_url: RENDERER_URL });
  });

  it('keeps the workspace shown when the link is to it, and opens another one anew', () => {
    const link = 'walscope://open?path=/srv/state&session=s';
    expect(linkOpening(link, '/srv/state')).toMatchObject({ kind: 'open', reopen: false });
    expect(linkOpening(link, '/srv/state/')).toMatchObject({ reopen: false });
    expect(linkOpening(link, '/srv/other')).toMatchObject({ kind: 'open', path: '/srv/state', reopen: true });
  });

  it('refuses a link that does not parse, saying why, and opens nothing', () => {
    for (const [link, why] of [
      ['walscope://open?path=/srv/state&token=abc', /never carries "token"/],
      ['walscope://open?path=state', /absolute/],
      ['walscope://open?path=/x&action=resume', /takes only/],
      ['walscope://run?path=/x', /only opens/],
      ['javascript:alert(1)', /not a walscope:\/\/ link/],
    ] as const) {
      const opening = linkOpening(link, '/srv/state');
      expect(opening.kind, link).toBe('refused');
      expect(opening.kind === 'refused' ? opening.message : '', link).toMatch(why);
    }
  });

  it('finds the link on a command line (the first start, a second instance\'s argv) and opens it before any path', () => {
    const argv = ['/opt/walscope/walscope', '--no-sandbox', 'WALSCOPE://open?path=/x'];
    expect(linkInArgv(argv)).toBe('WALSCOPE://open?path=/x');
    expect(linkInArgv(['/opt/walscope/walscope', '/srv/state'])).toBeNull();
    expect(startTarget(['/srv/state'], ['/recent'])).toEqual({ target: '/srv/state', link: null });
    expect(startTarget([], ['/recent'])).toEqual({ target: '/recent', link: null });
    expect(startTarget(['walscope://open?path=/x'], ['/recent'])).toEqual({ target: undefined, link: 'walscope://open?path=/x' });
  });

  it('registers the scheme for the packaged app, and for `electron ENTRY` in development', () => {
    expect(protocolClient(true, '/opt/walscope/walscope', ['/opt/walscope/walscope'])).toBeNull();
    expect(protocolClient(false, '/usr/bin/electron', ['/usr/bin/electron', 'out/main/main.js'])).toEqual({ path: '/usr/bin/electron', args: [path.resolve('out/main/main.js')] });
  });
});

describe('what a link opens is read-only', () => {
  it('refuses every write, and a write method added later without naming it', async () => {
    const calls: string[] = [];
    const inner = Object.fromEntries(API_METHODS.map((method) => [method, vi.fn(async () => {
      calls.push(method);
      return {};
    })])) as unknown as WalscopeApi;
    inner.subscribe = () => () => undefined;
    const api = readOnlyApi(inner);
    await expect(api.runAction('s', 'resume', 1, 'r', 'me')).resolves.toMatchObject({ ok: false, refusal: { reason: 'read_only' } });
    await expect(api.runAcknowledge('s', { batch_id: 'b', tool_call_id: 't' }, 'applied', 1, 'r', 'me')).resolves.toMatchObject({ ok: false, refusal: { reason: 'read_only' } });
    await expect(api.runRetire('s', 'sealed', {} as never, 'r', 'me')).resolves.toMatchObject({ ok: false, refusal: { code: 'read_only' } });
    expect(calls.filter((method) => isWriteMethod(method as never))).toEqual([]);
  });

  it('over a state root: nothing offered, nothing written, every read answered', async () => {
    const root = tempDir();
    writeIndeterminate(root, 'unsure');
    const wal = walPath(sessionDir(root, 'unsure'));
    const before = fs.readFileSync(wal);
    const service = await SessionService.open(root, { cache: false, watch: false });
    opened.push(service);
    await service.whenRead();
    const writable = await service.getSession('unsure');
    expect(writable.actions.some((choice) => choice.applies)).toBe(true);
    const api = readOnlyApi(service);
    expect(await api.getWorkspace()).toMatchObject({ kind: 'state_root', read_only: true });
    const detail = await api.getSession('unsure');
    expect(detail.read_only).toBe(true);
    expect(detail.actions.length).toBeGreaterThan(0);
    expect(detail.actions.every((choice) => !choice.applies && choice.why === LINK_READ_ONLY)).toBe(true);
    expect(detail.acknowledge).toEqual({ applies: false, why: LINK_READ_ONLY });
    expect(detail.retire).toEqual({ applies: false, why: LINK_READ_ONLY });
    expect(detail.rows).toEqual(writable.rows);
    const preview = await api.previewAction('unsure', 'resume');
    expect(preview.refusal).toEqual({ reason: 'read_only', message: LINK_READ_ONLY });
    const outcome = await api.runAction('unsure', 'resume', preview.based_on_seq, 'asked by a link', 'someone');
    expect(outcome.ok).toBe(false);
    expect((await api.previewRetire('unsure', 'sealed')).plan).toBeNull();
    expect((await api.getRows('unsure', 'records', 0, 5)).rows.length).toBeGreaterThan(0);
    expect(fs.readFileSync(wal)).toEqual(before);
  });
});

describe('Export bundle in the desktop app (save-bundle.ts, the dialog handed in)', () => {
  async function rootService() {
    const root = tempDir();
    writeIndeterminate(root, 'unsure');
    const service = await SessionService.open(root, { cache: false, watch: false });
    opened.push(service);
    await service.whenRead();
    return { root, service };
  }

  it('writes the bundle as the new file chosen, offering the session\'s name, redacted as asked', async () => {
    const { service } = await rootService();
    const out = path.join(tempDir(), 'shared.html');
    const offered: string[] = [];
    const saved = await saveBundle({ api: service, choose: async (name) => (offered.push(name), out) }, 'unsure', ['secrets', 'args']);
    expect(offered).toEqual(['unsure-bundle.html']);
    expect(saved).toMatchObject({ saved: true, path: out, size_bytes: fs.statSync(out).size });
    expect(saved.saved && saved.markers).toBeGreaterThan(0);
    expect(fs.readFileSync(out, 'utf8')).toContain('walscope-redactions/1');
  });

  it('writes nothing when the dialog is closed, over a file that exists, beside the WAL or inside the state root', async () => {
    const { root, service } = await rootService();
    const wal = walPath(sessionDir(root, 'unsure'));
    const before = fs.readdirSync(root, { recursive: true });
    const save = (chosen: string | null) => saveBundle({ api: service, choose: async () => chosen }, 'unsure', []);
    expect(await save(null)).toEqual({ saved: false, canceled: true });
    const existing = path.join(tempDir(), 'taken.html');
    fs.writeFileSync(existing, 'mine');
    expect(await save(existing)).toMatchObject({ saved: false, canceled: false, message: expect.stringMatching(/exists/) });
    expect(fs.readFileSync(existing, 'utf8')).toBe('mine');
    expect(await save(path.join(path.dirname(wal), 'bundle.html'))).toMatchObject({ saved: false, message: expect.stringMatching(/beside the WAL/) });
    expect(await save(path.join(root, 'bundle.html'))).toMatchObject({ saved: false, message: expect.stringMatching(/inside the state root/) });
    expect(fs.readdirSync(root, { recursive: true })).toEqual(before);
  });

  it('checks the window\'s arguments as getBundle\'s are checked, before anything is read', async () => {
    const { service } = await rootService();
    const choose = vi.fn(async () => null);
    await expect(saveBundle({ api: service, choose }, 'unsure', ['everything'])).rejects.toThrow(/redact must be a list/);
    await expect(saveBundle({ api: service, choose }, 42, [])).rejects.toThrow(/key must be a session key/);
    expect(choose).not.toHaveBeenCalled();
  });
});

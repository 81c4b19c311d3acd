// The Electron layer's settings, with electron mocked: webPreferences, the CSP on every response, denied
// permissions, navigation and new windows, the sender check of every IPC handler, a preload that exposes
// functions only, the app:// protocol that serves the renderer, and the fuses flipped in a packaged binary.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { IPC_OPEN_PATH_CHANNEL, IPC_REQUEST_CHANNEL, IPC_SAVE_BUNDLE_CHANNEL, type WalscopeApi, type Workspace } from '../../src-shared/ipc.js';
import { isTrustedSender, registerIpc, type IpcDeps } from '../../src-main/electron/ipc-handlers.js';
import { menuTemplate } from '../../src-main/electron/menu.js';
import { lockContents, secureSession, webPreferences } from '../../src-main/electron/security.js';
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, appResponse, registerAppProtocol, RENDERER_URL } from '../../src-main/electron/app-protocol.js';
import { APP_FUSES, flipAppFuses } from '../../src-main/electron/fuses.js';
import { CONTENT_SECURITY_POLICY } from '../../src-main/server/csp.js';
import { useTempDirs } from '../helpers/temp.js';

const exposed: Record<string, unknown> = {};
const ipcRenderer = { invoke: vi.fn(async () => 'answer'), on: vi.fn(), removeListener: vi.fn() };
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (name: string, value: unknown) => (exposed[name] = value) },
  ipcRenderer,
  webUtils: { getPathForFile: () => '/dropped/root' },
}));

const tempDir = useTempDirs('walscope-electron-');

function fakeContents() {
  const mainFrame = { url: `${RENDERER_URL}#session=x` };
  return { mainFrame };
}

describe('electron security settings', () => {
  it('isolates and sandboxes the renderer, without Node', () => {
    const preferences = webPreferences('/app/out/preload/index.cjs');
    expect(preferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false, webSecurity: true, webviewTag: false, allowRunningInsecureContent: false });
  });

  it('denies every permission but writing to the clipboard, and sets the CSP on every response', () => {
    let request: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
    let check: ((contents: unknown, permission: string) => boolean) | undefined;
    let headers: ((details: { responseHeaders: Record<string, string[]> }, callback: (response: { responseHeaders: Record<string, string[]> }) => void) => void) | undefined;
    const session = {
      setPermissionRequestHandler: (handler: typeof request) => (request = handler),
      setPermissionCheckHandler: (handler: typeof check) => (check = handler),
      webRequest: { onHeadersReceived: (handler: typeof headers) => (headers = handler) },
    };
    secureSession(session as never);
    const granted = vi.fn();
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read']) request!({}, permission, granted);
    expect(granted.mock.calls.every(([value]) => value === false)).toBe(true);
    for (const permission of ['media', 'clipboard-read', 'openExternal']) expect(check!({}, permission), permission).toBe(false);
    // Copy link's one grant: writing sanitized text to the clipboard.
    const copy = vi.fn();
    request!({}, 'clipboard-sanitized-write', copy);
    expect(copy).toHaveBeenCalledWith(true);
    expect(check!({}, 'clipboard-sanitized-write')).toBe(true);
    let csp = '';
    headers!({ responseHeaders: {} }, (response) => (csp = response.responseHeaders['Content-Security-Policy']![0]!));
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/https?:|unsafe-inline|unsafe-eval/);
  });

  it('denies navigation, redirects, webviews and new windows', () => {
    const contents = new EventEmitter() as EventEmitter & { setWindowOpenHandler: (handler: () => { action: string }) => void; opener?: () => { action: string } };
    contents.setWindowOpenHandler = (handler) => (contents.opener = handler);
    lockContents(contents as never);
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const preventDefault = vi.fn();
      contents.emit(event, { preventDefault }, 'javascript:alert(1)');
      expect(preventDefault, event).toHaveBeenCalled();
    }
    expect(contents.opener!()).toEqual({ action: 'deny' });
  });
});

describe('IPC handlers check their sender', () => {
  function setup() {
    const handlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
    const contents = fakeContents();
    const api = { listSessions: vi.fn(async () => ['s']) } as unknown as WalscopeApi;
    const workspace: Workspace = { path: '/x', kind: 'state_root', read_only: false, not_sessions: [] };
    const openPath = vi.fn(async () => workspace);
    const saveBundle = vi.fn(async () => ({ saved: false as const, canceled: true as const }));
    const deps: IpcDeps = { api: () => api, contents: () => contents as never, renderer_url: RENDERER_URL, openPath, saveBundle };
    registerIpc({ handle: (channel: string, handler: never) => handlers.set(channel, handler) } as never, deps);
    return { handlers, contents, api, deps, openPath, saveBundle };
  }

  it('answers our own window', async () => {
    const { handlers, contents } = setup();
    const event = { sender: contents, senderFrame: contents.mainFrame };
    await expect(handlers.get(IPC_REQUEST_CHANNEL)!(event, 'listSessions', [])).resolves.toEqual(['s']);
  });

  it('refuses a subframe, a navigated page, another window and a missing frame', async () => {
    const { handlers, contents, api, deps, openPath, saveBundle } = setup();
    const cases = [
      { sender: contents, senderFrame: { url: RENDERER_URL } },
      { sender: contents, senderFrame: Object.assign(contents.mainFrame, { url: 'https://evil.example/' }) },
      { sender: fakeContents(), senderFrame: fakeContents().mainFrame },
      { sender: contents, senderFrame: null },
    ];
    for (const event of cases) {
      expect(isTrustedSender(event as never, deps)).toBe(false);
      await expect(handlers.get(IPC_REQUEST_CHANNEL)!(event, 'listSessions', [])).rejects.toThrow(/refused/);
      await expect(handlers.get(IPC_OPEN_PATH_CHANNEL)!(event, '/etc')).rejects.toThrow(/refused/);
      await expect(handlers.get(IPC_SAVE_BUNDLE_CHANNEL)!(event, 's', [])).rejects.toThrow(/refused/);
    }
    expect(api.listSessions).not.toHaveBeenCalled();
    expect(openPath).not.toHaveBeenCalled();
    expect(saveBundle).not.toHaveBeenCalled();
  });

  it('refuses unknown methods and oversized requests', async () => {
    const { handlers, contents } = setup();
    const event = { sender: contents, senderFrame: contents.mainFrame };
    await expect(handlers.get(IPC_REQUEST_CHANNEL)!(event, 'constructor', [])).rejects.toThrow(/bad request/);
    await expect(handlers.get(IPC_REQUEST_CHANNEL)!(event, 'search', ['k', 'timeline', 'x'.repeat(70_000)])).rejects.toThrow(/larger/);
  });
});

describe('preload', () => {
  it('exposes functions only, never ipcRenderer', async () => {
    await import('../../src-main/preload/index.js');
    const api = exposed['walscope'] as Record<string, unknown>;
    expect(Object.keys(exposed)).toEqual(['walscope']);
    for (const [name, value] of Object.entries(api)) {
      expect(typeof value, name).toBe('function');
      expect(value).not.toBe(ipcRenderer);
    }
    await (api['getSession'] as (key: string) => Promise<unknown>)('s1');
    expect(ipcRenderer.invoke).toHaveBeenCalledWith(IPC_REQUEST_CHANNEL, 'getSession', ['s1']);
    await (api['openDropped'] as (file: unknown) => Promise<unknown>)({});
    expect(ipcRenderer.invoke).toHaveBeenCalledWith(IPC_OPEN_PATH_CHANNEL, '/dropped/root');
    await (api['saveBundle'] as (key: string, redact: string[]) => Promise<unknown>)('s1', ['secrets']);
    expect(ipcRenderer.invoke).toHaveBeenCalledWith(IPC_SAVE_BUNDLE_CHANNEL, 's1', ['secrets']);
  });
});

describe('menu', () => {
  it('offers Open State Root…, Open WAL Export…, Connect to a Fleet… and recent items', () => {
    const actions = { openRoot: vi.fn(), openExport: vi.fn(), connectFleet: vi.fn(), openRecent: vi.fn() };
    const [file] = menuTemplate(actions, ['/a/root']);
    const items = file!.submenu as { label?: string; click?: () => void; submenu?: { label?: string; click?: () => void }[] }[];
    expect(items.map((item) => item.label)).toEqual(expect.arrayContaining(['Open State Root…', 'Open WAL Export…', 'Connect to a Fleet…', 'Open Recent']));
    items.find((item) => item.label === 'Connect to a Fleet…')!.click!();
    expect(actions.connectFleet).toHaveBeenCalledOnce();
    items.find((item) => item.label === 'Open Recent')!.submenu![0]!.click!();
    expect(actions.openRecent).toHaveBeenCalledWith('/a/root');
  });
});

describe('the app:// protocol', () => {
  /** A built renderer folder, with a secret file beside it that no app:// URL may reach. */
  function rendererDir(): string {
    const base = tempDir();
    const dir = path.join(base, 'renderer');
    fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>walscope</title>');
    fs.writeFileSync(path.join(dir, 'assets', 'index.js'), 'export {};');
    fs.writeFileSync(path.join(dir, 'assets', 'index.css'), 'body {}');
    fs.writeFileSync(path.join(dir, 'assets', 'index.js.map'), '{}');
    fs.writeFileSync(path.join(base, 'secret.json'), '{"secret": true}');
    return dir;
  }

  const get = (url: string, method = 'GET') => ({ url, method });

  it('is registered before ready as a standard, secure scheme, and the window loads from it', () => {
    expect(APP_SCHEME_PRIVILEGES).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true } }]);
    expect(RENDERER_URL).toBe('app://walscope/index.html');
    let registered: { scheme: string; handler: (request: Request) => Response } | undefined;
    registerAppProtocol({ handle: (scheme: string, handler: never) => (registered = { scheme, handler }) } as never, rendererDir());
    expect(registered!.scheme).toBe(APP_SCHEME);
    expect(registered!.handler(new Request(RENDERER_URL)).status).toBe(200);
  });

  it('serves the renderer\'s files with their MIME types and the CSP on every answer', async () => {
    const dir = rendererDir();
    const cases: [string, number, string][] = [
      [RENDERER_URL, 200, 'text/html; charset=utf-8'],
      ['app://walscope/', 200, 'text/html; charset=utf-8'],
      ['app://walscope/assets/index.js', 200, 'text/javascript; charset=utf-8'],
      ['app://walscope/assets/index.css', 200, 'text/css; charset=utf-8'],
      ['app://walscope/assets/index.js.map', 404, 'text/plain; charset=utf-8'],
      ['app://walscope/missing.js', 404, 'text/plain; charset=utf-8'],
    ];
    for (const [url, status, type] of cases) {
      const response = appResponse(get(url), dir);
      expect({ url, status: response.status, type: response.headers.get('content-type') }).toEqual({ url, status, type });
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(await appResponse(get('app://walscope/assets/index.js'), dir).text()).toBe('export {};');
  });

  it('refuses traversal out of the renderer folder, other hosts, other methods and broken escapes', async () => {
    const dir = rendererDir();
    const refused: [string, string, number][] = [
      ['app://walscope/../secret.json', 'GET', 404],
      ['app://walscope/%2e%2e/secret.json', 'GET', 404],
      ['app://walscope/assets/..%2f..%2fsecret.json', 'GET', 404],
      ['app://walscope/..%5csecret.json', 'GET', 404],
      [`app://walscope/${encodeURIComponent(path.join(path.dirname(dir), 'secret.json'))}`, 'GET', 404],
      ['app://evil/index.html', 'GET', 404],
      ['app://walscope/index.html', 'POST', 405],
      ['app://walscope/%E0%A4%A', 'GET', 400],
    ];
    for (const [url, method, status] of refused) {
      const response = appResponse(get(url, method), dir);
      expect({ url, method, status: response.status }).toEqual({ url, method, status });
      expect(await response.text()).not.toContain('secret');
    }
  });
});

describe('fuses of the packaged app', () => {
  const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
  /** Electron's defaults for its first nine fuses ('1' on, '0' off), as an unflipped binary holds them. */
  const DEFAULT_WIRE = '101100011';

  /** A file laid out where the fuses matter like an Electron executable: bytes, the sentinel, version 1,
   *  the wire's length, the wire, bytes. */
  function fakeElectron(version = '1'): { file: string; before: Buffer } {
    const file = path.join(tempDir(), 'walscope');
    const noise = Buffer.alloc(4096, 0xa5);
    const wire = Buffer.concat([Buffer.from(SENTINEL), Buffer.from([version.charCodeAt(0) - 0x30, DEFAULT_WIRE.length]), Buffer.from(DEFAULT_WIRE)]);
    const before = Buffer.concat([noise, wire, noise]);
    fs.writeFileSync(file, before);
    return { file, before };
  }

  it('turns off RunAsNode, NODE_OPTIONS and --inspect, turns on asar-only and asar integrity, and changes nothing else', async () => {
    const { file, before } = fakeElectron();
    await flipAppFuses(file);
    const after = fs.readFileSync(file);
    const at = before.indexOf(SENTINEL) + SENTINEL.length + 2;
    // RunAsNode, CookieEncryption, NodeOptions, Inspect, AsarIntegrity, OnlyAsar, V8Snapshot, GrantFile; the
    // ninth fuse (newer than @electron/fuses 1.8) keeps Electron's default.
    expect(after.subarray(at, at + 9).toString()).toBe('010011001');
    expect(Buffer.concat([after.subarray(0, at), after.subarray(at + 9)]).equals(Buffer.concat([before.subarray(0, at), before.subarray(at + 9)]))).toBe(true);
    expect(APP_FUSES).toMatchObject({ 0: false, 2: false, 3: false, 4: true, 5: true, 7: false });
  });

  it('refuses a binary without the fuse wire or with another wire version', async () => {
    const plain = path.join(tempDir(), 'not-electron');
    fs.writeFileSync(plain, Buffer.alloc(1024));
    await expect(flipAppFuses(plain)).rejects.toThrow(/sentinel/);
    await expect(flipAppFuses(fakeElectron('2').file)).rejects.toThrow(/version/);
  });
});

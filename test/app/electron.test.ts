// The Electron layer's settings, with electron mocked: webPreferences, the CSP on every response, denied
// permissions, navigation and new windows, the sender check of every IPC handler, and a preload that
// exposes functions only.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { IPC_OPEN_PATH_CHANNEL, IPC_REQUEST_CHANNEL, type WalscopeApi, type Workspace } from '../../src-shared/ipc.js';
import { isTrustedSender, registerIpc, type IpcDeps } from '../../src-main/electron/ipc-handlers.js';
import { menuTemplate } from '../../src-main/electron/menu.js';
import { lockContents, secureSession, webPreferences } from '../../src-main/electron/security.js';

const exposed: Record<string, unknown> = {};
const ipcRenderer = { invoke: vi.fn(async () => 'answer'), on: vi.fn(), removeListener: vi.fn() };
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (name: string, value: unknown) => (exposed[name] = value) },
  ipcRenderer,
  webUtils: { getPathForFile: () => '/dropped/root' },
}));

const RENDERER_URL = 'file:///app/out/renderer/index.html';

function fakeContents() {
  const mainFrame = { url: `${RENDERER_URL}#session=x` };
  return { mainFrame };
}

describe('electron security settings', () => {
  it('isolates and sandboxes the renderer, without Node', () => {
    const preferences = webPreferences('/app/out/preload/index.cjs');
    expect(preferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false, webSecurity: true, webviewTag: false, allowRunningInsecureContent: false });
  });

  it('denies every permission and sets the CSP on every response', () => {
    let request: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
    let check: (() => boolean) | undefined;
    let headers: ((details: { responseHeaders: Record<string, string[]> }, callback: (response: { responseHeaders: Record<string, string[]> }) => void) => void) | undefined;
    const session = {
      setPermissionRequestHandler: (handler: typeof request) => (request = handler),
      setPermissionCheckHandler: (handler: typeof check) => (check = handler),
      webRequest: { onHeadersReceived: (handler: typeof headers) => (headers = handler) },
    };
    secureSession(session as never);
    const granted = vi.fn();
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal']) request!({}, permission, granted);
    expect(granted.mock.calls.every(([value]) => value === false)).toBe(true);
    expect(check!()).toBe(false);
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
    const deps: IpcDeps = { api: () => api, contents: () => contents as never, renderer_url: RENDERER_URL, openPath };
    registerIpc({ handle: (channel: string, handler: never) => handlers.set(channel, handler) } as never, deps);
    return { handlers, contents, api, deps, openPath };
  }

  it('answers our own window', async () => {
    const { handlers, contents } = setup();
    const event = { sender: contents, senderFrame: contents.mainFrame };
    await expect(handlers.get(IPC_REQUEST_CHANNEL)!(event, 'listSessions', [])).resolves.toEqual(['s']);
  });

  it('refuses a subframe, a navigated page, another window and a missing frame', async () => {
    const { handlers, contents, api, deps, openPath } = setup();
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
    }
    expect(api.listSessions).not.toHaveBeenCalled();
    expect(openPath).not.toHaveBeenCalled();
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
  });
});

describe('menu', () => {
  it('offers Open State Root…, Open WAL Export… and recent items', () => {
    const actions = { openRoot: vi.fn(), openExport: vi.fn(), openRecent: vi.fn() };
    const [file] = menuTemplate(actions, ['/a/root']);
    const items = file!.submenu as { label?: string; submenu?: { label?: string; click?: () => void }[] }[];
    expect(items.map((item) => item.label)).toEqual(expect.arrayContaining(['Open State Root…', 'Open WAL Export…', 'Open Recent']));
    items.find((item) => item.label === 'Open Recent')!.submenu![0]!.click!();
    expect(actions.openRecent).toHaveBeenCalledWith('/a/root');
  });
});

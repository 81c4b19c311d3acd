// The desktop shell: one window on the renderer, the session service in a worker thread, the File menu with
// recent items, drag-and-drop of a folder or file (through the preload), and walscope:// links (app-links.ts decides
// what one does; here it is carried out). Thin on purpose: everything it shows comes from the same service and
// renderer as `walscope serve`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, session } from 'electron';
import { IPC_EVENT_CHANNEL, type WalscopeApi, type Workspace } from '../../src-shared/ipc.js';
import type { WorkspacePaths } from '../services/session-service.js';
import { WorkerApi } from '../services/worker-client.js';
import { FleetApi } from '../fleet/fleet-api.js';
import { readFleetProfile } from '../fleet/profile.js';
import { DEFAULT_ALERT_THRESHOLDS } from '../../src-shared/alerts.js';
import { watchNotices, type Notice } from './alert-notices.js';
import { APP_SCHEME_PRIVILEGES, registerAppProtocol, RENDERER_URL, rendererUrlOf } from './app-protocol.js';
import { LINK_SCHEME, linkInArgv, linkOpening, protocolClient, startTarget } from './app-links.js';
import { readOnlyApi } from '../services/read-only.js';
import { saveBundle } from './save-bundle.js';
import { registerIpc } from './ipc-handlers.js';
import { menuTemplate } from './menu.js';
import { RecentList } from './recent.js';
import { lockContents, secureSession, webPreferences } from './security.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WORKER_FILE = path.join(HERE, 'session-worker.js');
const COMPARE_WORKER_FILE = path.join(HERE, 'compare-worker.js');
const PRELOAD_FILE = path.join(HERE, '../preload/index.cjs');
const RENDERER_DIR = path.join(HERE, '../renderer');
/** The app icon (resources/, rendered from resources/icon.svg), for the window and the Linux task bar. */
const ICON_FILE = path.join(HERE, '../../resources/icons/512x512.png');

// Before "ready", or the scheme is not a standard, secure origin.
protocol.registerSchemesAsPrivileged(APP_SCHEME_PRIVILEGES);

let window: BrowserWindow | null = null;
/** A state root's or export's worker, or a fleet's connection: the window shows one at a time. */
let api: (WalscopeApi & { close(): Promise<void> }) | null = null;
/** Recent entries that are fleet profiles carry this prefix before the profile's path. */
const FLEET_RECENT_PREFIX = 'fleet:';
let unsubscribe: (() => void) | null = null;
/** Stops the alert notices of the workspace shown (a state root's or a fleet's). */
let stop_notices: (() => void) | null = null;
let recent: RecentList;
/** The path of the workspace shown (null: none yet), which a link to it keeps. */
let shown_path: string | null = null;
/** A link that came before the window (macOS's open-url at launch): followed once it is there. */
let pending_link: string | null = null;

/** One path (a state root, a session, an export, a folder of exports) or several export files. */
async function openWorkspace(target: WorkspacePaths): Promise<Workspace> {
  const next = await WorkerApi.start(WORKER_FILE, typeof target === 'string' ? path.resolve(target) : target.map((file) => path.resolve(file)), DEFAULT_ALERT_THRESHOLDS);
  // Several files chosen together are a set of the moment; a recent entry names one path to open again.
  return show(next, typeof target === 'string' ? 'workspace' : null);
}

/** A recent entry or a command-line target: a fleet profile (`fleet:FILE`) or a path. */
function openEntry(entry: WorkspacePaths): Promise<Workspace> {
  return typeof entry === 'string' && entry.startsWith(FLEET_RECENT_PREFIX) ? connectFleet(entry.slice(FLEET_RECENT_PREFIX.length)) : openWorkspace(entry);
}

async function connectFleet(profile_file: string): Promise<Workspace> {
  const profile = readFleetProfile(profile_file, 'walscope app');
  if (typeof profile === 'string') throw new Error(profile);
  return show(await FleetApi.connect(profile.bus, undefined, COMPARE_WORKER_FILE), `${FLEET_RECENT_PREFIX}${profile_file}`);
}

/** Makes `next` the window's API; `recent_entry`: what Open Recent will open again ('workspace': its own path;
 *  null: nothing). */
async function show(next: WalscopeApi & { close(): Promise<void> }, recent_entry: string | null): Promise<Workspace> {
  const previous = api;
  unsubscribe?.();
  api = next;
  unsubscribe = next.subscribe((event) => window?.webContents.send(IPC_EVENT_CHANNEL, event));
  stop_notices?.();
  stop_notices = null;
  await previous?.close();
  const workspace = await next.getWorkspace();
  shown_path = workspace.path;
  if ((workspace.kind === 'state_root' || workspace.kind === 'fleet') && Notification.isSupported()) stop_notices = watchNotices(next, showNotice);
  if (recent_entry !== null) recent.add(recent_entry === 'workspace' ? workspace.path : recent_entry);
  buildMenu();
  window?.webContents.send(IPC_EVENT_CHANNEL, { type: 'workspace', workspace });
  // A fleet's list is read by pages (listPage); its fleet events keep them current.
  if (workspace.kind !== 'fleet') window?.webContents.send(IPC_EVENT_CHANNEL, { type: 'sessions', sessions: await next.listSessions() });
  window?.setTitle(`walscope — ${workspace.path}`);
  return workspace;
}

/** An alert as a desktop notification; a click brings the window forward, showing the alert's session. */
function showNotice(notice: Notice): void {
  const shown = new Notification({ title: notice.title, body: notice.body });
  shown.on('click', () => {
    window?.show();
    window?.focus();
    if (notice.session !== null) void window?.loadURL(rendererUrlOf(notice.session)).catch(() => undefined);
  });
  shown.show();
}

async function pick(kind: 'root' | 'export' | 'fleet'): Promise<void> {
  if (window === null) return;
  const result = await dialog.showOpenDialog(window, kind === 'root'
    ? { title: 'Open State Root', properties: ['openDirectory'] }
    : kind === 'fleet'
      ? { title: 'Connect to a Fleet: pick its profile', properties: ['openFile'], filters: [{ name: 'Fleet profile', extensions: ['json'] }] }
      : { title: 'Open WAL Export(s)', properties: ['openFile', 'openDirectory', 'multiSelections'] });
  const chosen = result.filePaths;
  if (result.canceled || chosen.length === 0) return;
  if (kind === 'fleet') await openOrSay(`${FLEET_RECENT_PREFIX}${chosen[0]!}`);
  else await openOrSay(chosen.length === 1 ? chosen[0]! : chosen);
}

async function openOrSay(target: WorkspacePaths): Promise<void> {
  try {
    await openEntry(target);
  } catch (error) {
    const named = typeof target === 'string' ? target : `${target.length} files`;
    dialog.showErrorBox('walscope', `Cannot open ${named}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A walscope:// link: its path opened read-only (unless it is the workspace shown), then what it names shown. It
 *  never runs anything: the renderer's actions each wait for the user's confirmation, as ever. */
async function followLink(link: string): Promise<void> {
  if (window === null) {
    pending_link = link;
    return;
  }
  const opening = linkOpening(link, shown_path);
  if (opening.kind === 'refused') {
    dialog.showErrorBox('walscope', opening.message);
    return;
  }
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
  try {
    if (opening.reopen) await show(readOnlyApi(await WorkerApi.start(WORKER_FILE, opening.path, DEFAULT_ALERT_THRESHOLDS)), null);
    await window.loadURL(opening.renderer_url);
  } catch (error) {
    dialog.showErrorBox('walscope', `Cannot open ${opening.path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The save dialog of Export bundle, in the user's documents (never the workspace's folder: a bundle is no
 *  file of a state root's). */
async function chooseBundleFile(file_name: string): Promise<string | null> {
  if (window === null) return null;
  const result = await dialog.showSaveDialog(window, { title: 'Export bundle', defaultPath: path.join(app.getPath('documents'), file_name), filters: [{ name: 'HTML page', extensions: ['html'] }] });
  return result.canceled || result.filePath === undefined || result.filePath === '' ? null : result.filePath;
}

function buildMenu(): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate({
    openRoot: () => void pick('root'),
    openExport: () => void pick('export'),
    connectFleet: () => void pick('fleet'),
    openRecent: (entry) => void openOrSay(entry),
  }, recent.read())));
}

async function start(): Promise<void> {
  await app.whenReady();
  recent = new RecentList(path.join(app.getPath('userData'), 'recent.json'));
  secureSession(session.defaultSession);
  registerAppProtocol(protocol, RENDERER_DIR);
  app.on('web-contents-created', (_event, contents) => lockContents(contents));
  const client = protocolClient(app.isPackaged, process.execPath, process.argv);
  if (client === null) app.setAsDefaultProtocolClient(LINK_SCHEME);
  else app.setAsDefaultProtocolClient(LINK_SCHEME, client.path, client.args);
  const { target, link } = startTarget(process.argv.slice(app.isPackaged ? 1 : 2), recent.read());
  pending_link ??= link;
  if (target === undefined && pending_link === null) throw new Error('usage: walscope-app STATE_ROOT_OR_EXPORT | walscope://open?path=…');
  window = new BrowserWindow({ width: 1400, height: 900, show: false, title: 'walscope', icon: ICON_FILE, webPreferences: webPreferences(PRELOAD_FILE) });
  registerIpc(ipcMain, {
    api: () => {
      if (api === null) throw new Error('no workspace is open');
      return api;
    },
    contents: () => window?.webContents ?? null,
    renderer_url: RENDERER_URL,
    openPath: (dropped) => openWorkspace(dropped),
    saveBundle: (key, redact) => {
      if (api === null) throw new Error('no workspace is open');
      return saveBundle({ api, choose: chooseBundleFile }, key, redact);
    },
  });
  window.once('ready-to-show', () => window?.show());
  if (pending_link !== null) {
    const first = pending_link;
    pending_link = null;
    await followLink(first);
    // A refused first link leaves no workspace: the most recent one, or nothing to show.
    if (shown_path === null && recent.read()[0] !== undefined) await openEntry(recent.read()[0]!);
    if (shown_path === null) throw new Error('the link was not opened, and nothing was opened before');
    if (window.webContents.getURL() === '') await window.loadURL(RENDERER_URL);
  } else {
    await openEntry(target!);
    await window.loadURL(RENDERER_URL);
  }
  app.on('window-all-closed', () => {
    void api?.close().finally(() => app.quit());
  });
}

// One instance: a link opened while the app runs reaches this one (a second instance's argv on Windows and Linux,
// open-url on macOS), which follows it; the second quits.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_event, argv) => {
    const link = linkInArgv(argv);
    if (link !== null) void followLink(link);
    else if (window !== null) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });
  app.on('open-url', (event, url) => {
    event.preventDefault();
    void followLink(url);
  });
  start().catch((error: unknown) => {
    process.stderr.write(`walscope: ${error instanceof Error ? error.message : String(error)}\n`);
    app.exit(1);
  });
}

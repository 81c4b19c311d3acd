// The shared API over Electron IPC. Every handler first checks its sender: the main frame of our own window,
// showing our own renderer page; anything else (another frame, a navigated page) is refused.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { SavedBundle } from '../../src-shared/bundle.js';
import { dispatchApi, IPC_OPEN_PATH_CHANNEL, IPC_REQUEST_CHANNEL, IPC_SAVE_BUNDLE_CHANNEL, isApiMethod, REQUEST_BYTES_MAX, type WalscopeApi, type Workspace } from '../../src-shared/ipc.js';

export interface IpcDeps {
  /** The service of the open workspace (it changes when the user opens another). */
  api: () => WalscopeApi;
  /** The window's web contents and the exact URL of our renderer page. */
  contents: () => WebContents | null;
  renderer_url: string;
  /** Opens a dropped path as the workspace. */
  openPath: (path: string) => Promise<Workspace>;
  /** Saves a session's bundle as a new file the user chooses (save-bundle.ts); its arguments unchecked yet. */
  saveBundle: (key: unknown, redact: unknown) => Promise<SavedBundle>;
}

export class UntrustedSenderError extends Error {
  override name = 'UntrustedSenderError';
}

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>, deps: Pick<IpcDeps, 'contents' | 'renderer_url'>): boolean {
  const frame = event.senderFrame;
  const contents = deps.contents();
  if (frame === null || contents === null || event.sender !== contents) return false;
  if (frame !== contents.mainFrame) return false;
  return stripHash(frame.url) === deps.renderer_url;
}

function stripHash(url: string): string {
  const at = url.indexOf('#');
  return at < 0 ? url : url.slice(0, at);
}

export function registerIpc(ipc: Pick<IpcMain, 'handle'>, deps: IpcDeps): void {
  ipc.handle(IPC_REQUEST_CHANNEL, async (event, method: unknown, args: unknown) => {
    if (!isTrustedSender(event, deps)) throw new UntrustedSenderError('refused: the request did not come from walscope\'s own window');
    if (!isApiMethod(method) || !Array.isArray(args)) throw new Error('bad request');
    if (JSON.stringify(args).length > REQUEST_BYTES_MAX) throw new Error(`request larger than ${REQUEST_BYTES_MAX} bytes`);
    return dispatchApi(deps.api(), method, args);
  });
  ipc.handle(IPC_OPEN_PATH_CHANNEL, async (event, path: unknown) => {
    if (!isTrustedSender(event, deps)) throw new UntrustedSenderError('refused: the request did not come from walscope\'s own window');
    if (typeof path !== 'string' || path.length === 0 || path.length > 4_096) throw new Error('bad path');
    return deps.openPath(path);
  });
  ipc.handle(IPC_SAVE_BUNDLE_CHANNEL, async (event, key: unknown, redact: unknown) => {
    if (!isTrustedSender(event, deps)) throw new UntrustedSenderError('refused: the request did not come from walscope\'s own window');
    if (JSON.stringify([key, redact]).length > REQUEST_BYTES_MAX) throw new Error(`request larger than ${REQUEST_BYTES_MAX} bytes`);
    return deps.saveBundle(key, redact);
  });
}

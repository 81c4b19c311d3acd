// Electron's security checklist, in one place so a test can hold it to account: an isolated, sandboxed
// renderer without Node, our CSP on every response, no navigation, no new windows, no webviews, and every
// permission request denied but one: writing text to the clipboard (Copy link), sanitized, never reading it.
import type { Session, WebContents, WebPreferences } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../server/csp.js';

export function webPreferences(preload_file: string): WebPreferences {
  return {
    preload: preload_file,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  };
}

/** The one permission the window has: Copy link writes a walscope:// link to the clipboard (as sanitized text). */
export const GRANTED_PERMISSION = 'clipboard-sanitized-write';

export function secureSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === GRANTED_PERMISSION));
  session.setPermissionCheckHandler((_contents, permission) => permission === GRANTED_PERMISSION);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
}

/** The window stays on the renderer's page: links in WAL content never open, here or in a browser. */
export function lockContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

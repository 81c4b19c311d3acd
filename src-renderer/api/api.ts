// The one API object the renderer uses: the preload's under Electron, the HTTP client in a browser. Nothing
// else in the renderer knows which transport it runs on.
import type { WalscopeApi } from '../../src-shared/ipc.js';
import { httpApi } from './http-api.js';

declare global {
  interface Window {
    walscope?: WalscopeApi;
  }
}

export const api: WalscopeApi = window.walscope ?? httpApi();

/** Under Electron the main process shows the alerts' notifications (electron/alert-notices.ts); in a browser the
 *  page does, once the user allows it. */
export const notices_from_main = window.walscope !== undefined;

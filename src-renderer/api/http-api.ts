// The shared API over HTTP, for the renderer in a browser (`walscope serve`). The page is opened with a link
// whose code is good for one use (the browser keeps every address it opens in its history database): the page
// takes the code out of the address bar and the tab's history, trades it for the token, keeps the token in
// sessionStorage, which belongs to this origin (this port) and tab alone, and sends it as a header with every
// request. Never a cookie: a browser sends 127.0.0.1's cookies to every port of 127.0.0.1
// (src-main/server/guard.ts).
import { apiClient, ApiFailure, type ApiError, type ApiMethod, type WalscopeApi, type WalscopeEvent } from '../../src-shared/ipc.js';

const TOKEN_HEADER = 'x-walscope-token';
const TOKEN_STORAGE_KEY = 'walscope_token';
const OPEN_QUERY = 'open';
const OPEN_HEADER = 'x-walscope-open';

/** The token: traded for the link's code in the address (then removed from it, keeping the fragment: a deep
 *  link, location.ts), or kept from an earlier load of this tab. */
async function takeToken(): Promise<string> {
  const code = new URLSearchParams(window.location.search).get(OPEN_QUERY);
  if (code === null) return window.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.hash}`);
  const response = await fetch('./open', { method: 'POST', credentials: 'omit', headers: { [OPEN_HEADER]: code } });
  const value = (await response.json()) as { token?: string } & Partial<ApiError>;
  if (!response.ok || typeof value.token !== 'string') throw new ApiFailure(value.code ?? 'bad_request', value.error ?? `the link did not open (${response.status})`);
  window.sessionStorage.setItem(TOKEN_STORAGE_KEY, value.token);
  return value.token;
}

export function httpApi(): WalscopeApi {
  const token = takeToken();
  // A link that did not open fails every call with its reason; it is no unhandled rejection before the first.
  token.catch(() => undefined);
  async function call(method: ApiMethod, args: unknown[]): Promise<unknown> {
    const response = await fetch(`./api/${method}`, {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', [TOKEN_HEADER]: await token },
      body: JSON.stringify({ args }),
    });
    const value = (await response.json()) as unknown;
    if (!response.ok) {
      const failure = value as Partial<ApiError>;
      throw new ApiFailure(failure.code ?? 'internal', failure.error ?? `${method} failed (${response.status})`);
    }
    return value;
  }
  return {
    ...apiClient(call),
    subscribe(listener: (event: WalscopeEvent) => void) {
      let source: EventSource | null = null;
      let closed = false;
      void token.then((value) => {
        if (closed) return;
        // EventSource cannot send a header: the token goes in the query of this same-origin request.
        source = new EventSource(`./api/events?token=${encodeURIComponent(value)}`);
        source.onmessage = (message: MessageEvent<string>) => listener(JSON.parse(message.data) as WalscopeEvent);
        // EventSource connects again by itself after an error: the updates sent meanwhile are lost.
        let opened = false;
        source.onopen = () => {
          if (opened) listener({ type: 'missed' });
          opened = true;
        };
      }, () => undefined);
      return () => {
        closed = true;
        source?.close();
      };
    },
  };
}

// The shared API over HTTP, for the renderer in a browser (`walscope serve`). The token comes in the URL
// walscope serve printed; the page keeps it in sessionStorage, which belongs to this origin (this port) alone,
// takes it out of the address bar and the tab's history, and sends it as a header with every request. Never
// a cookie: a browser sends 127.0.0.1's cookies to every port of 127.0.0.1 (src-main/server/guard.ts).
import { apiClient, ApiFailure, type ApiError, type ApiMethod, type WalscopeApi, type WalscopeEvent } from '../../src-shared/ipc.js';

const TOKEN_HEADER = 'x-walscope-token';
const TOKEN_STORAGE_KEY = 'walscope_token';

/** The token from the URL (then removed from it, keeping the fragment: a deep link, location.ts) or from an
 *  earlier load of this tab. */
function takeToken(): string {
  const from_url = new URLSearchParams(window.location.search).get('token');
  if (from_url !== null) {
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, from_url);
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.hash}`);
    return from_url;
  }
  return window.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
}

export function httpApi(): WalscopeApi {
  const token = takeToken();
  async function call(method: ApiMethod, args: unknown[]): Promise<unknown> {
    const response = await fetch(`./api/${method}`, {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
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
      // EventSource cannot send a header: the token goes in the query of this same-origin request.
      const source = new EventSource(`./api/events?token=${encodeURIComponent(token)}`);
      source.onmessage = (message: MessageEvent<string>) => listener(JSON.parse(message.data) as WalscopeEvent);
      return () => source.close();
    },
  };
}

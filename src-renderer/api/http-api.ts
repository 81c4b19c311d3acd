// The shared API over HTTP, for the renderer in a browser (`walscope serve`). The token came with the first
// page load and rides in an HttpOnly cookie; requests are same-origin JSON POSTs, events an EventSource.
import type { ApiError, ApiMethod, WalscopeApi, WalscopeEvent } from '../../src-shared/ipc.js';

async function call<T>(method: ApiMethod, args: unknown[]): Promise<T> {
  const response = await fetch(`./api/${method}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ args }),
  });
  const value = (await response.json()) as T | ApiError;
  if (!response.ok) throw new Error((value as ApiError).error ?? `${method} failed (${response.status})`);
  return value as T;
}

export function httpApi(): WalscopeApi {
  return {
    getWorkspace: () => call('getWorkspace', []),
    listSessions: () => call('listSessions', []),
    getSession: (key) => call('getSession', [key]),
    getRows: (key, list, start, count) => call('getRows', [key, list, start, count]),
    getRecord: (key, index) => call('getRecord', [key, index]),
    locateSeq: (key, seq) => call('locateSeq', [key, seq]),
    search: (key, list, query) => call('search', [key, list, query]),
    previewAction: (key, kind) => call('previewAction', [key, kind]),
    runAction: (key, kind, based_on_seq, reason) => call('runAction', [key, kind, based_on_seq, reason]),
    getReport: (key) => call('getReport', [key]),
    subscribe(listener: (event: WalscopeEvent) => void) {
      const source = new EventSource('./api/events', { withCredentials: true });
      source.onmessage = (message: MessageEvent<string>) => listener(JSON.parse(message.data) as WalscopeEvent);
      return () => source.close();
    },
  };
}

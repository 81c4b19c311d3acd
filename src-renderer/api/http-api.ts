// The shared API over HTTP, for the renderer in a browser (`walscope serve`). The token came with the first
// page load and rides in an HttpOnly cookie; requests are same-origin JSON POSTs, events an EventSource.
import { apiClient, ApiFailure, type ApiError, type ApiMethod, type WalscopeApi, type WalscopeEvent } from '../../src-shared/ipc.js';

async function call(method: ApiMethod, args: unknown[]): Promise<unknown> {
  const response = await fetch(`./api/${method}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ args }),
  });
  const value = (await response.json()) as unknown;
  if (!response.ok) {
    const failure = value as Partial<ApiError>;
    throw new ApiFailure(failure.code ?? 'internal', failure.error ?? `${method} failed (${response.status})`);
  }
  return value;
}

export function httpApi(): WalscopeApi {
  return {
    ...apiClient(call),
    subscribe(listener: (event: WalscopeEvent) => void) {
      const source = new EventSource('./api/events', { withCredentials: true });
      source.onmessage = (message: MessageEvent<string>) => listener(JSON.parse(message.data) as WalscopeEvent);
      return () => source.close();
    },
  };
}

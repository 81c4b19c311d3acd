// Server-sent events: every subscriber gets the service's events as `data:` lines. Clients are bounded, and a
// client that stops reading is dropped (its socket buffer past a bound) instead of growing our memory.
import type { ServerResponse } from 'node:http';
import type { WalscopeApi, WalscopeEvent } from '../../src-shared/ipc.js';

export const SSE_CLIENTS_MAX = 16;
export const SSE_BUFFERED_BYTES_MAX = 4 * 1_048_576;
const HEARTBEAT_MS = 15_000;

export class EventStreams {
  private readonly clients = new Set<ServerResponse>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(api: WalscopeApi) {
    this.unsubscribe = api.subscribe((event) => this.broadcast(event));
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** false when the client limit is reached (the caller answers 503). */
  add(response: ServerResponse, headers: Record<string, string>): boolean {
    if (this.clients.size >= SSE_CLIENTS_MAX) return false;
    response.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    response.write(': connected\n\n');
    this.clients.add(response);
    response.on('close', () => this.clients.delete(response));
    return true;
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  private broadcast(event: WalscopeEvent): void {
    this.write(`data: ${JSON.stringify(event)}\n\n`);
  }

  private write(text: string): void {
    for (const client of this.clients) {
      if (client.writableLength > SSE_BUFFERED_BYTES_MAX) {
        client.destroy();
        this.clients.delete(client);
        continue;
      }
      client.write(text);
    }
  }
}

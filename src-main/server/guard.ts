// Who may talk to `walscope serve`: only under our own host name (a DNS-rebinding page has another Host) and
// from our own origin; and for the API, only a page that loaded our URL and holds its random token.
//
// The token never rides in a cookie: browsers send a 127.0.0.1 cookie to every port of 127.0.0.1, so any local
// server a page ever talks to would receive it, and a second serve's cookie would overwrite the first's. The
// renderer keeps it in its origin's sessionStorage (which is per port) and sends it as a header; EventSource
// cannot send headers, so the event stream takes it as a query parameter of a same-origin request.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_HEADER = 'x-walscope-token';
export const TOKEN_QUERY = 'token';
const TOKEN_BYTES = 32;

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export type Verdict = { ok: true } | { ok: false; status: 403 | 421; message: string };

export class RequestGuard {
  private readonly hosts: ReadonlySet<string>;

  constructor(
    private readonly token: string,
    port: number,
  ) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  }

  /** Host and Origin: every request, the renderer's own files included. */
  checkOrigin(request: IncomingMessage): Verdict {
    const host = request.headers.host?.toLowerCase();
    if (host === undefined || !this.hosts.has(host)) return { ok: false, status: 421, message: 'unknown Host: walscope serves only 127.0.0.1 and localhost' };
    const origin = request.headers.origin;
    if (origin !== undefined && !this.hosts.has(origin.replace(/^http:\/\//, '').toLowerCase())) {
      return { ok: false, status: 403, message: 'cross-origin request refused' };
    }
    return { ok: true };
  }

  /** Host, Origin and the token: every API request and the event stream. */
  checkApi(request: IncomingMessage, url: URL): Verdict {
    const origin = this.checkOrigin(request);
    if (!origin.ok) return origin;
    const header = request.headers[TOKEN_HEADER];
    if (typeof header === 'string' && this.matches(header)) return { ok: true };
    const query = url.searchParams.get(TOKEN_QUERY);
    if (query !== null && this.matches(query)) return { ok: true };
    return { ok: false, status: 403, message: 'missing or wrong token: open the URL walscope serve printed' };
  }

  private matches(candidate: string): boolean {
    const given = Buffer.from(candidate);
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

// Who may talk to `walscope serve`: only pages that loaded our URL (the random token, carried by a cookie after
// the first load or by a header) and only under our own host name (a DNS-rebinding page has another Host).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'walscope_token';
export const TOKEN_HEADER = 'x-walscope-token';
export const TOKEN_QUERY = 'token';
const TOKEN_BYTES = 32;

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export type Verdict = { ok: true; via_query: boolean } | { ok: false; status: 403 | 421; message: string };

export class RequestGuard {
  private readonly hosts: ReadonlySet<string>;

  constructor(
    private readonly token: string,
    port: number,
  ) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  }

  check(request: IncomingMessage, url: URL): Verdict {
    const host = request.headers.host?.toLowerCase();
    if (host === undefined || !this.hosts.has(host)) return { ok: false, status: 421, message: 'unknown Host: walscope serves only 127.0.0.1 and localhost' };
    const origin = request.headers.origin;
    if (origin !== undefined && !this.hosts.has(origin.replace(/^http:\/\//, '').toLowerCase())) {
      return { ok: false, status: 403, message: 'cross-origin request refused' };
    }
    const query = url.searchParams.get(TOKEN_QUERY);
    if (query !== null && this.matches(query)) return { ok: true, via_query: true };
    const header = request.headers[TOKEN_HEADER];
    if (typeof header === 'string' && this.matches(header)) return { ok: true, via_query: false };
    const cookie = cookieValue(request.headers.cookie, TOKEN_COOKIE);
    if (cookie !== null && this.matches(cookie)) return { ok: true, via_query: false };
    return { ok: false, status: 403, message: 'missing or wrong token: open the URL walscope serve printed' };
  }

  private matches(candidate: string): boolean {
    const given = Buffer.from(candidate);
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of header?.split(';') ?? []) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

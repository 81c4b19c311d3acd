// Who may talk to `walscope serve`: only under our own host name (a DNS-rebinding page has another Host) and
// from our own origin; and for the API, only a page that holds its random token.
//
// The token never rides in an address the browser navigates to: the browser keeps every such address in its
// history database (a redirect's first address too, measured in Chromium), where anyone sharing the profile
// reads it while the serve runs. The printed link carries a code instead, good for one use: the page trades it
// for the token (POST /open) and the serve prints the next link, so the link the history keeps is spent.
// Nor does the token ride in a cookie: browsers send a 127.0.0.1 cookie to every port of 127.0.0.1, so any
// local server a page ever talks to would receive it, and a second serve's cookie would overwrite the first's.
// The renderer keeps it in its origin's sessionStorage (which is per port) and sends it as a header; EventSource
// cannot send headers, so the event stream takes it as a query parameter of a same-origin request (a
// subresource: not in the history).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_HEADER = 'x-walscope-token';
export const TOKEN_QUERY = 'token';
/** Where a page trades a link's code (in OPEN_HEADER) for the token; the link's code is its OPEN_QUERY. */
export const OPEN_PATH = '/open';
export const OPEN_HEADER = 'x-walscope-open';
export const OPEN_QUERY = 'open';
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
    return { ok: false, status: 403, message: 'missing or wrong token: open the newest link walscope serve printed (each opens one tab)' };
  }

  private matches(candidate: string): boolean {
    return sameSecret(candidate, this.token);
  }
}

/** The one link to the page that is not spent yet: each opens one tab. */
export class OpenLink {
  private code = newToken();

  constructor(
    private readonly origin: string,
    private readonly token: string,
  ) {}

  get url(): string {
    return `${this.origin}/?${OPEN_QUERY}=${this.code}`;
  }

  /** The token, once, for the link whose code is `candidate` (the next link then takes its place); null for
   *  any other code. */
  trade(candidate: string): string | null {
    if (!sameSecret(candidate, this.code)) return null;
    this.code = newToken();
    return this.token;
  }
}

function sameSecret(candidate: string, secret: string): boolean {
  const given = Buffer.from(candidate);
  const expected = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// The renderer's own origin, app://walscope/, instead of file://: a file:// page may read any file the user
// can (and every file:// URL is one origin), while this scheme answers only with the built renderer's files,
// through the same path checks and content types as `walscope serve`, with the CSP and the other security
// headers on every response. Registered as privileged (standard, secure) before the app is ready, so the page
// is a secure context with a real origin; file:// gets no extra privileges (fuses.ts).
import type { Protocol } from 'electron';
import { SECURITY_HEADERS } from '../server/csp.js';
import { decodeUrlPath, staticFile } from '../server/static-files.js';

export const APP_SCHEME = 'app';
export const APP_HOST = 'walscope';
export const RENDERER_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** The window's address showing `session` (its key in the workspace): the renderer's fragment (location.ts), so
 *  loading it from main is a same-document move the page follows (hashchange), not a reload. */
export function rendererUrlOf(session: string): string {
  return `${RENDERER_URL}#${new URLSearchParams({ session }).toString()}`;
}

/** For protocol.registerSchemesAsPrivileged, which must run before app "ready". */
export const APP_SCHEME_PRIVILEGES = [{ scheme: APP_SCHEME, privileges: { standard: true, secure: true } }];

export function registerAppProtocol(protocol: Pick<Protocol, 'handle'>, renderer_dir: string): void {
  protocol.handle(APP_SCHEME, (request) => appResponse(request, renderer_dir));
}

/** The answer to one app:// request: a file of `renderer_dir` or an error status, never anything else. */
export function appResponse(request: Pick<Request, 'method' | 'url'>, renderer_dir: string): Response {
  const url = new URL(request.url);
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return refusal(404, 'not found');
  if (request.method !== 'GET' && request.method !== 'HEAD') return refusal(405, 'method not allowed');
  const file_path = decodeUrlPath(url.pathname);
  if (file_path === null) return refusal(400, 'malformed percent-encoding in the path');
  const file = staticFile(renderer_dir, file_path);
  if (file === null) return refusal(404, 'not found');
  return new Response(request.method === 'HEAD' ? null : new Blob([new Uint8Array(file.body)]), { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': file.content_type } });
}

function refusal(status: number, message: string): Response {
  return new Response(message, { status, headers: { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' } });
}

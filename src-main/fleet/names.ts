// The fleet's names on the bus: buckets, streams, subjects, and how a host or session name becomes one token.
// A NATS subject token (and a KV key segment) may not hold '.', '*', '>' or white space; session ids and host
// names may. Encoding: A-Z a-z 0-9 '_' '-' stand for themselves; every other UTF-8 byte (and '=') is '=' and two
// upper-case hex digits. The result is a valid subject token and KV key segment, and decodes back exactly.
import { API_METHOD_ACCESS, isApiMethod, isOperatorName, type ApiAccess, type ApiMethod } from '../../src-shared/ipc.js';

export const SESSIONS_BUCKET = 'walscope-sessions';
export const HOSTS_BUCKET = 'walscope-hosts';
export const EVENTS_STREAM = 'WALSCOPE_EVENTS';
export const AUDIT_STREAM = 'WALSCOPE_AUDIT';
export const EVENTS_SUBJECTS = 'walscope.events.>';
export const AUDIT_SUBJECTS = 'walscope.audit.>';
export const ALERTS_STREAM = 'WALSCOPE_ALERTS';
export const ALERTS_SUBJECTS = 'walscope.alerts.>';
/** A name longer than this (before encoding) is refused: subjects stay well below the server's limits. */
export const NAME_CHARS_MAX = 200;

const PLAIN = /^[A-Za-z0-9_-]$/;

export function encodeToken(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new Error('a host or session name must not be empty');
  if (name.length > NAME_CHARS_MAX) throw new Error(`a host or session name is longer than ${NAME_CHARS_MAX} characters`);
  let out = '';
  for (const char of name) {
    if (PLAIN.test(char)) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, 'utf8')) out += `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function decodeToken(token: string): string {
  if (!/^([A-Za-z0-9_-]|=[0-9A-F]{2})+$/.test(token)) throw new Error(`"${token}" is not an encoded name`);
  const bytes: number[] = [];
  for (let i = 0; i < token.length; ) {
    if (token[i] === '=') {
      bytes.push(Number.parseInt(token.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(token.charCodeAt(i));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

export const sessionKey = (host: string, session: string) => `${encodeToken(host)}.${encodeToken(session)}`;
export const hostKey = (host: string) => encodeToken(host);
export const eventSubject = (host: string, session: string) => `walscope.events.${sessionKey(host, session)}`;
export const auditSubject = (host: string, session: string) => `walscope.audit.${sessionKey(host, session)}`;
export const alertSubject = (host: string, session: string) => `walscope.alerts.${sessionKey(host, session)}`;
/** One API call's subject: `walscope.api.<host>.<access>.<user>.<method>`, its access (read or write) the method's
 *  (API_METHOD_ACCESS) and its user the caller's NATS user. The server's permissions let each user publish only
 *  under its own name, and only operators under `write` (docs/fleet-server.conf): the subject is what the server
 *  vouches for, so it is how the agent knows who asks. */
export const apiSubject = (host: string, method: ApiMethod, user: string) => `walscope.api.${encodeToken(host)}.${API_METHOD_ACCESS[method]}.${encodeToken(user)}.${method}`;
/** Everything an agent answers for its host. */
export const apiSubscription = (host: string) => `walscope.api.${encodeToken(host)}.>`;
/** Where a user's replies go: `_INBOX_<user>.…`, the only inbox the server lets that user subscribe to, so no other
 *  principal (an agent above all) sees them. */
export const inboxPrefix = (user: string) => `_INBOX_${encodeToken(user)}`;
/** The user a connection without one (a server without authorization) calls as. */
export const ANONYMOUS_USER = 'anonymous';
export const fetchSubject = (host: string) => `walscope.fetch.${encodeToken(host)}`;

export interface ApiCall {
  access: ApiAccess;
  user: string;
  method: ApiMethod;
}

/** What an API subject for `host` says, or why it says nothing usable. */
export function parseApiSubject(subject: string, host: string): ApiCall | string {
  const parts = subject.split('.');
  const [walscope, api, host_token, access, user_token, method] = parts as [string, string, string, string, string, string];
  if (parts.length !== 6 || walscope !== 'walscope' || api !== 'api' || host_token !== encodeToken(host)) return `"${subject.slice(0, 200)}" is not walscope.api.${encodeToken(host)}.<access>.<user>.<method>`;
  if (access !== 'read' && access !== 'write') return `"${access.slice(0, 20)}" is neither read nor write`;
  if (!isApiMethod(method)) return `no API method ${method.slice(0, 100)}`;
  let user: string;
  try {
    user = decodeToken(user_token);
  } catch (error) {
    return (error as Error).message;
  }
  if (!isOperatorName(user)) return 'the user in the subject is not a printable name';
  return { access, user, method };
}

/** Splits a `walscope-sessions` key back into host and session. */
export function parseSessionKey(key: string): { host: string; session: string } {
  const parts = key.split('.');
  if (parts.length !== 2) throw new Error(`"${key}" is not a <host>.<session> key`);
  return { host: decodeToken(parts[0]!), session: decodeToken(parts[1]!) };
}

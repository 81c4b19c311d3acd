// How every fleet command reaches the bus: --nats URL (default $NATS_URL) and the operator's credentials
// (--creds FILE, or --user/--password) and TLS CA (--tls-ca FILE). walscope adds nothing to and removes nothing
// from the server's security: what the server's configuration allows is what the command may do.
import fs from 'node:fs';
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import { ANONYMOUS_USER, inboxPrefix } from './names.js';
import { natsModules } from './nats-modules.js';

export interface BusOptions {
  url: string;
  creds: string | null;
  user: string | null;
  password: string | null;
  tls_ca: string | null;
  name: string;
}

export const BUS_FLAGS = {
  nats: { type: 'string' },
  creds: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  'tls-ca': { type: 'string' },
} as const;

export const BUS_USAGE = '--nats URL (default $NATS_URL) [--creds FILE | --user U --password P] [--tls-ca FILE]';

/** Reads the bus flags; a problem is returned as one sentence for a UsageError. */
export function busOptions(values: Partial<Record<keyof typeof BUS_FLAGS, string | undefined>>, name: string): BusOptions | string {
  const url = values.nats ?? process.env['NATS_URL'];
  if (url === undefined || url === '') return 'no NATS server: give --nats URL or set NATS_URL';
  if (values.creds !== undefined && values.user !== undefined) return '--creds and --user are two ways to log in: give one';
  if ((values.user === undefined) !== (values.password === undefined)) return '--user and --password go together';
  return { url, creds: values.creds ?? null, user: values.user ?? null, password: values.password ?? null, tls_ca: values['tls-ca'] ?? null, name };
}

/** The NATS user this connection logs in as: `--user`, or the `name` of a creds file's user JWT; a connection
 *  without either (a server without authorization) is ANONYMOUS_USER. Its API subjects and inbox carry it, and
 *  the server's permissions hold it to them (names.ts apiSubject, inboxPrefix). */
export function busUser(options: BusOptions): string {
  if (options.user !== null) return options.user;
  if (options.creds === null) return ANONYMOUS_USER;
  const name = credsUserName(fs.readFileSync(options.creds, 'utf8'));
  if (name === null) throw new Error(`${options.creds}: no user JWT with a name in it: the fleet's subjects carry the user's name`);
  return name;
}

const CREDS_JWT = /-{3,}BEGIN NATS USER JWT-{3,}\s+([A-Za-z0-9_=.-]+)\s+-{3,}END NATS USER JWT-{3,}/;

function credsUserName(text: string): string | null {
  const jwt = CREDS_JWT.exec(text)?.[1];
  const payload = jwt?.split('.')[1];
  if (payload === undefined) return null;
  try {
    const name = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { name?: unknown }).name;
    return typeof name === 'string' && name.length > 0 ? name : null;
  } catch {
    return null;
  }
}

/** Connects, reconnecting for ever (an agent outlives server restarts); the first connect fails fast. Replies come
 *  to the user's own inbox prefix, the only one its permissions let it read. */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const config: ConnectionOptions = {
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: 5_000,
    inboxPrefix: inboxPrefix(busUser(options)),
  };
  if (options.user !== null) {
    config.user = options.user;
    config.pass = options.password ?? '';
  }
  const { transport } = await natsModules();
  if (options.creds !== null) config.authenticator = transport.credsAuthenticator(fs.readFileSync(options.creds));
  if (options.tls_ca !== null) config.tls = { caFile: options.tls_ca };
  return transport.connect(config);
}

// How every fleet command reaches the bus: --nats URL (default $NATS_URL) and the operator's credentials
// (--creds FILE, or --user/--password) and TLS CA (--tls-ca FILE). walscope adds nothing to and removes nothing
// from the server's security: what the server's configuration allows is what the command may do.
import fs from 'node:fs';
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
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

/** Connects, reconnecting for ever (an agent outlives server restarts); the first connect fails fast. */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const config: ConnectionOptions = {
    servers: options.url,
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: 5_000,
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

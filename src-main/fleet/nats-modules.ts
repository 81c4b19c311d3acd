// The NATS client, loaded the first time a fleet command or view needs it: ~80 ms of module loading that every
// other command of the CLI (verify, replay, a root's serve) would otherwise pay at its start.
import type * as JetStream from '@nats-io/jetstream';
import type * as Kv from '@nats-io/kv';
import type * as Transport from '@nats-io/transport-node';

export interface NatsModules {
  transport: typeof Transport;
  jetstream: typeof JetStream;
  kv: typeof Kv;
}

let loading: Promise<NatsModules> | null = null;

export function natsModules(): Promise<NatsModules> {
  loading ??= Promise.all([import('@nats-io/transport-node'), import('@nats-io/jetstream'), import('@nats-io/kv')]).then(([transport, jetstream, kv]) => ({ transport, jetstream, kv }));
  return loading;
}

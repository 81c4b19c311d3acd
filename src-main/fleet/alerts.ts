// The fleet's alerts (docs/alerts.md): what every host's agent published to WALSCOPE_ALERTS, read through an
// ordered push consumer delivering to the reader's own inbox prefix (the server lets a viewer subscribe there
// and create consumers on the stream, nothing more).
import type { NatsConnection } from '@nats-io/transport-node';
import type { Alert } from '../../src-shared/alerts.js';
import { natsModules } from './nats-modules.js';
import { ALERTS_STREAM } from './names.js';
import { requireTopology } from './topology.js';

/** One alert event as an agent published it. */
export interface FleetAlertEvent {
  host: string;
  type: 'fired' | 'cleared';
  at_ms: number;
  alert: Alert;
}

function isFleetAlertEvent(value: unknown): value is FleetAlertEvent {
  const v = value as Partial<FleetAlertEvent> | null;
  return typeof v === 'object' && v !== null && typeof v.host === 'string' && (v.type === 'fired' || v.type === 'cleared') && typeof v.at_ms === 'number' && typeof v.alert === 'object' && v.alert !== null && typeof v.alert.session === 'string' && typeof v.alert.kind === 'string';
}

/** Hands each stored alert event to `on_event`, oldest first; then, with `follow`, each new one until `stopped`
 *  resolves. A message that is not an alert event is skipped (an agent's bytes are not trusted). */
export async function readFleetAlerts(nc: NatsConnection, deliver_prefix: string, follow: boolean, stopped: Promise<void>, on_event: (event: FleetAlertEvent) => Promise<void>): Promise<void> {
  await requireTopology(nc);
  const { jetstream } = await natsModules();
  const js = jetstream.jetstream(nc);
  const jsm = await jetstream.jetstreamManager(nc);
  if ((await jsm.streams.info(ALERTS_STREAM)).state.messages === 0 && !follow) return;
  const consumer = await js.consumers.getPushConsumer(ALERTS_STREAM, { deliver_prefix });
  const messages = await consumer.consume();
  void stopped.then(() => messages.close());
  for await (const message of messages) {
    let value: unknown;
    try {
      value = message.json();
    } catch {
      value = null;
    }
    if (isFleetAlertEvent(value)) await on_event(value);
    if (!follow && message.info.pending === 0) break;
  }
  await messages.close();
}

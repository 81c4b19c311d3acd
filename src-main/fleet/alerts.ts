// The fleet's alerts (docs/alerts.md): what every host's agent published to WALSCOPE_ALERTS, read through an
// ordered push consumer delivering to the reader's own inbox prefix (the server lets a viewer subscribe there
// and create consumers on the stream, nothing more).
import type { NatsConnection } from '@nats-io/transport-node';
import type { Alert, AlertEvent, AlertsView } from '../../src-shared/alerts.js';
import type { WalscopeEvent } from '../../src-shared/ipc.js';
import { AlertBoard } from '../views/alert-board.js';
import { natsModules } from './nats-modules.js';
import { ALERTS_STREAM, inboxPrefix, sessionKey } from './names.js';
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
 *  resolves, saying `on_caught_up` once the stored ones are all handed (at once for an empty stream). A message
 *  that is not an alert event is skipped (an agent's bytes are not trusted). */
export async function readFleetAlerts(nc: NatsConnection, deliver_prefix: string, follow: boolean, stopped: Promise<void>, on_event: (event: FleetAlertEvent) => Promise<void>, on_caught_up: () => void = () => undefined): Promise<void> {
  await requireTopology(nc);
  const { jetstream } = await natsModules();
  const js = jetstream.jetstream(nc);
  const jsm = await jetstream.jetstreamManager(nc);
  const empty = (await jsm.streams.info(ALERTS_STREAM)).state.messages === 0;
  if (empty) on_caught_up();
  if (empty && !follow) return;
  let caught_up = empty;
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
    if (message.info.pending === 0 && !caught_up) {
      caught_up = true;
      on_caught_up();
    }
    if (!follow && caught_up) break;
  }
  await messages.close();
}

/** The fleet's alerts for `serve --fleet`: every host's, from the stream, on a board keyed as the fleet keys its
 *  sessions; once the stored ones are in (said by an `alerts` event of no events), each new one is handed to
 *  `on_change` as the window's `alerts` event. */
export class FleetAlerts {
  private readonly board = new AlertBoard(null, (host, session) => sessionKey(host ?? '', session));
  private stop: () => void = () => undefined;

  constructor(nc: NatsConnection, user: string, on_change: (event: WalscopeEvent) => void) {
    const stopped = new Promise<void>((resolve) => (this.stop = resolve));
    let caught_up = false;
    const on_event = async (event: FleetAlertEvent): Promise<void> => {
      const events: AlertEvent[] = [{ type: event.type, at_ms: event.at_ms, alert: event.alert }];
      const revision = this.board.take(event.host, events);
      if (caught_up) on_change({ type: 'alerts', revision, host: event.host, events });
    };
    const on_caught_up = (): void => {
      caught_up = true;
      on_change({ type: 'alerts', revision: this.board.take(null, []), host: null, events: [] });
    };
    readFleetAlerts(nc, inboxPrefix(user), true, stopped, on_event, on_caught_up).catch((error: unknown) => {
      process.stderr.write(`walscope fleet: the alerts stream could not be read: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  }

  view(): AlertsView {
    return this.board.view();
  }

  close(): void {
    this.stop();
  }
}

// The viewer's index of the fleet: a KV watch on `walscope-sessions` kept as a map in the viewer's process, so a
// list page or a filter over every host is a scan of memory, never a round of requests. The watch first delivers
// every current value (the index is ready when the server says none are pending), then every change.
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { QueuedIterator } from '@nats-io/nats-core';
import type { KvWatchEntry } from '@nats-io/kv';
import type { FleetSummary } from './agent.js';
import { SESSIONS_BUCKET } from './names.js';
import { requireTopology } from './topology.js';

export const PAGE_ROWS_MAX = 2_000;

export interface FleetFilter {
  status?: string;
  host?: string;
}

export class FleetIndex {
  readonly summaries = new Map<string, FleetSummary>();
  /** Revision of the last change applied: how current the index is. */
  revision = 0;
  /** False while the initial values still stream in: totals and filters are then partial. */
  is_complete = false;
  readonly complete: Promise<void>;
  private mark_complete: () => void = () => undefined;

  private constructor(private readonly watch: QueuedIterator<KvWatchEntry>) {
    this.complete = new Promise((resolve) => (this.mark_complete = resolve));
  }

  /** Resolves once `first_rows` values are in the index (a first page to show) or all of them are; `complete`
   *  resolves once every current value is in. */
  static async open(nc: NatsConnection, first_rows = Number.POSITIVE_INFINITY): Promise<FleetIndex> {
    await requireTopology(nc);
    const kv = await new Kvm(nc).open(SESSIONS_BUCKET);
    const empty = (await kv.status()).values === 0;
    const index = new FleetIndex(await kv.watch({ key: '>' }));
    if (empty) index.setComplete();
    await new Promise<void>((ready) => {
      void index.complete.then(ready);
      void index.follow(() => {
        if (index.summaries.size >= first_rows) ready();
      });
    });
    return index;
  }

  private setComplete(): void {
    this.is_complete = true;
    this.mark_complete();
  }

  private async follow(arrived: () => void): Promise<void> {
    for await (const entry of this.watch) {
      if (entry.operation === 'PUT') this.summaries.set(entry.key, entry.json<FleetSummary>());
      else this.summaries.delete(entry.key);
      this.revision = entry.revision;
      if (entry.delta === 0 && !this.is_complete) this.setComplete();
      arrived();
    }
  }

  /** One page of the rows that pass the filter, in key order of arrival, with the filtered total. */
  page(filter: FleetFilter, start: number, count: number): { total: number; complete: boolean; rows: FleetSummary[] } {
    const limit = Math.min(Math.max(0, count), PAGE_ROWS_MAX);
    const rows: FleetSummary[] = [];
    let total = 0;
    for (const summary of this.summaries.values()) {
      if (filter.status !== undefined && summary.status !== filter.status) continue;
      if (filter.host !== undefined && summary.host !== filter.host) continue;
      if (total >= start && rows.length < limit) rows.push(summary);
      total += 1;
    }
    return { total, complete: this.is_complete, rows };
  }

  close(): void {
    this.watch.stop();
  }
}

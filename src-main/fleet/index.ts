// The viewer's index of the fleet: a KV watch on a bucket kept as a map in the viewer's process, so a list page
// or a filter over every host is a scan of memory, never a round of requests. The watch first delivers every
// current value (the index is complete when the server says none are pending), then every change. The sessions
// bucket is indexed as a FleetIndex (pages, filters); the hosts bucket as a plain BucketIndex of heartbeats.
import type { NatsConnection } from '@nats-io/transport-node';
import type { QueuedIterator } from '@nats-io/nats-core';
import type { KvWatchEntry } from '@nats-io/kv';
import type { FleetSummary } from './agent.js';
import { SESSIONS_BUCKET } from './names.js';
import { natsModules } from './nats-modules.js';
import { requireTopology } from './topology.js';

export const PAGE_ROWS_MAX = 2_000;
export const INDEX_LISTENERS_MAX = 16;
/** While the initial values stream in, the keys are re-sorted at most this often (a page asked meanwhile lists
 *  the keys of the last sort; the page says it is not complete). */
export const LOADING_SORT_MIN_MS = 1_000;

export interface FleetFilter {
  status?: string;
  host?: string;
}

export class BucketIndex<T> {
  readonly values = new Map<string, T>();
  /** Revision of the last change applied: how current the index is. */
  revision = 0;
  /** False while the initial values still stream in: totals and filters are then partial. */
  is_complete = false;
  readonly complete: Promise<void>;
  private mark_complete: () => void = () => undefined;
  private readonly listeners = new Set<(key: string) => void>();

  private constructor(private readonly watch: QueuedIterator<KvWatchEntry>) {
    this.complete = new Promise((resolve) => (this.mark_complete = resolve));
  }

  /** Resolves once `first_rows` values are in the index (a first page to show) or all of them are; `complete`
   *  resolves once every current value is in. */
  static async open<T>(nc: NatsConnection, bucket: string, first_rows = Number.POSITIVE_INFINITY): Promise<BucketIndex<T>> {
    await requireTopology(nc);
    const kv = await new (await natsModules()).kv.Kvm(nc).open(bucket);
    const empty = (await kv.status()).values === 0;
    const index = new BucketIndex<T>(await kv.watch({ key: '>' }));
    if (empty) index.setComplete();
    await new Promise<void>((ready) => {
      void index.complete.then(ready);
      void index.follow(() => {
        if (index.values.size >= first_rows) ready();
      });
    });
    return index;
  }

  /** `listener` hears the key of every change applied from now on; returns the unsubscribe function. */
  onChange(listener: (key: string) => void): () => void {
    if (this.listeners.size >= INDEX_LISTENERS_MAX) throw new Error(`more than ${INDEX_LISTENERS_MAX} index listeners`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.watch.stop();
  }

  private setComplete(): void {
    this.is_complete = true;
    this.mark_complete();
  }

  private async follow(arrived: () => void): Promise<void> {
    for await (const entry of this.watch) {
      if (entry.operation === 'PUT') this.values.set(entry.key, entry.json<T>());
      else this.values.delete(entry.key);
      this.revision = entry.revision;
      if (entry.delta === 0 && !this.is_complete) this.setComplete();
      arrived();
      for (const listener of this.listeners) listener(entry.key);
    }
  }
}

export class FleetIndex {
  /** The keys in order (host, then session), sorted again only when a key comes or goes: the usual change, a
   *  summary rewritten, keeps the order. */
  private sorted: string[] | null = null;
  private sorted_stale = false;
  private sorted_at_ms = 0;
  private readonly sorted_keys = new Set<string>();

  private constructor(readonly bucket: BucketIndex<FleetSummary>) {
    bucket.onChange((key) => {
      if (bucket.values.has(key) !== this.sorted_keys.has(key)) this.sorted_stale = true;
    });
  }

  static async open(nc: NatsConnection, first_rows = Number.POSITIVE_INFINITY): Promise<FleetIndex> {
    return new FleetIndex(await BucketIndex.open<FleetSummary>(nc, SESSIONS_BUCKET, first_rows));
  }

  get summaries(): Map<string, FleetSummary> {
    return this.bucket.values;
  }

  get revision(): number {
    return this.bucket.revision;
  }

  get complete(): Promise<void> {
    return this.bucket.complete;
  }

  /** One page of the rows that pass the filter, keyed by their bucket key, in key order (host, then session),
   *  with the filtered total. */
  page(filter: FleetFilter, start: number, count: number): { total: number; complete: boolean; rows: [string, FleetSummary][] } {
    const limit = Math.min(Math.max(0, count), PAGE_ROWS_MAX);
    const rows: [string, FleetSummary][] = [];
    let total = 0;
    for (const key of this.keysInOrder()) {
      const summary = this.bucket.values.get(key);
      if (summary === undefined) continue;
      if (filter.status !== undefined && summary.status !== filter.status) continue;
      if (filter.host !== undefined && summary.host !== filter.host) continue;
      if (total >= start && rows.length < limit) rows.push([key, summary]);
      total += 1;
    }
    return { total, complete: this.bucket.is_complete, rows };
  }

  close(): void {
    this.bucket.close();
  }

  private keysInOrder(): string[] {
    const loading_recently_sorted = !this.bucket.is_complete && Date.now() - this.sorted_at_ms < LOADING_SORT_MIN_MS;
    if (this.sorted === null || (this.sorted_stale && !loading_recently_sorted)) {
      // Keys are encoded tokens: plain code-unit order is host order, then session order.
      this.sorted = [...this.bucket.values.keys()].sort();
      this.sorted_stale = false;
      this.sorted_at_ms = Date.now();
      this.sorted_keys.clear();
      for (const key of this.sorted) this.sorted_keys.add(key);
    }
    return this.sorted;
  }
}

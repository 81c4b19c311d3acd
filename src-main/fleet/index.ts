// The viewer's index of the fleet: a KV watch on a bucket kept as a map in the viewer's process, so a list page
// or a filter over every host is a scan of memory, never a round of requests. The watch first delivers every
// current value (the index is complete when the server says none are pending), then every change. The sessions
// bucket is indexed as a FleetIndex (pages, filters); the hosts bucket as a plain BucketIndex of heartbeats.
// Every value is checked as it comes (values.ts): a bad one is left out and reported by key, and nothing a value
// holds can end the watch or the process.
import type { NatsConnection } from '@nats-io/transport-node';
import type { QueuedIterator } from '@nats-io/nats-core';
import type { KvWatchEntry } from '@nats-io/kv';
import type { FleetSummary } from './agent.js';
import { SESSIONS_BUCKET } from './names.js';
import { natsModules } from './nats-modules.js';
import { requireTopology } from './topology.js';
import { fleetSummaryAt, parseValue, type ValueCheck } from './values.js';

export const PAGE_ROWS_MAX = 2_000;
export const INDEX_LISTENERS_MAX = 16;
/** While the initial values stream in, the keys are re-sorted at most this often (a page asked meanwhile lists
 *  the keys of the last sort; the page says it is not complete). */
export const LOADING_SORT_MIN_MS = 1_000;
/** Bad values reported one by one; past it they are only counted (an agent may write any number of them). */
export const BAD_VALUES_REPORTED_MAX = 100;

export interface FleetFilter {
  status?: string;
  host?: string;
  /** Only the sessions in the attention queue (their summary carries an `attention`). */
  attention?: boolean;
}

export function fleetFilterKeeps(filter: FleetFilter, summary: FleetSummary): boolean {
  return (filter.status === undefined || summary.status === filter.status) && (filter.host === undefined || summary.host === filter.host) && (filter.attention !== true || summary.attention !== null);
}

/** Hears a value left out of an index: its bucket, key and why; `null` key when the watch itself failed. */
export type BadValueReport = (bucket: string, key: string | null, why: string) => void;

export class BucketIndex<T> {
  readonly values = new Map<string, T>();
  /** When the server stored each value, on the server's clock: not what the value says of itself. */
  readonly stored_ms = new Map<string, number>();
  /** Revision of the last change applied: how current the index is. */
  revision = 0;
  /** False while the initial values still stream in: totals and filters are then partial. */
  is_complete = false;
  /** Values left out because they are not what their key's agent writes. */
  bad_values = 0;
  readonly complete: Promise<void>;
  private mark_complete: () => void = () => undefined;
  private readonly listeners = new Set<(key: string) => void>();
  private readonly bad = new Map<string, string>();

  private constructor(
    private readonly bucket: string,
    private readonly watch: QueuedIterator<KvWatchEntry>,
    private readonly check: ValueCheck<T>,
    private readonly report: BadValueReport,
  ) {
    this.complete = new Promise((resolve) => (this.mark_complete = resolve));
  }

  /** Resolves once `first_rows` values are in the index (a first page to show) or all of them are; `complete`
   *  resolves once every current value is in. */
  static async open<T>(nc: NatsConnection, bucket: string, check: ValueCheck<T>, report: BadValueReport, first_rows = Number.POSITIVE_INFINITY): Promise<BucketIndex<T>> {
    await requireTopology(nc);
    const kv = await new (await natsModules()).kv.Kvm(nc).open(bucket);
    const empty = (await kv.status()).values === 0;
    const index = new BucketIndex<T>(bucket, await kv.watch({ key: '>' }), check, report);
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

  /** Applies every change until the watch stops; a watch that fails is reported, never thrown. */
  private async follow(arrived: () => void): Promise<void> {
    try {
      for await (const entry of this.watch) {
        this.apply(entry);
        this.revision = entry.revision;
        if (entry.delta === 0 && !this.is_complete) this.setComplete();
        arrived();
        for (const listener of this.listeners) listener(entry.key);
      }
    } catch (error) {
      this.report(this.bucket, null, `the watch stopped: ${(error as Error).message}`);
    }
  }

  private apply(entry: KvWatchEntry): void {
    const value = entry.operation === 'PUT' ? parseValue(entry.key, entry.value, this.check) : null;
    if (value === null || typeof value === 'string') {
      this.values.delete(entry.key);
      this.stored_ms.delete(entry.key);
      if (typeof value === 'string') this.noteBad(entry.key, value);
      else this.bad.delete(entry.key);
      return;
    }
    this.values.set(entry.key, value);
    this.stored_ms.set(entry.key, entry.created.getTime());
    this.bad.delete(entry.key);
  }

  /** Reports a key's bad value once (until the key changes), the first BAD_VALUES_REPORTED_MAX of them. */
  private noteBad(key: string, why: string): void {
    if (this.bad.get(key) === why) return;
    this.bad_values += 1;
    if (this.bad_values > BAD_VALUES_REPORTED_MAX) return;
    this.bad.set(key, why);
    this.report(this.bucket, key, this.bad_values === BAD_VALUES_REPORTED_MAX ? `${why} (later bad values are counted, not reported)` : why);
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

  static async open(nc: NatsConnection, report: BadValueReport, first_rows = Number.POSITIVE_INFINITY): Promise<FleetIndex> {
    return new FleetIndex(await BucketIndex.open(nc, SESSIONS_BUCKET, fleetSummaryAt, report, first_rows));
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
      if (!fleetFilterKeeps(filter, summary)) continue;
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

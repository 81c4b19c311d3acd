// What one residency of a session holds, from its read's first slice to its release: the tailer and its record
// index, the store of sums its snapshots derived, the views built from them and the searches under way over them,
// its records list, its payload reads. The session model makes it on first use and drops it whole on release or
// failure: nothing derived from a read outlives it, and a listed session that was never opened holds none.
import type { FileIO, WalTarget } from '../engine/index.js';
import type { PayloadReader } from '../replay/payloads.js';
import { walPayloadReader } from '../recovery/payloads.js';
import { IncrementalSums } from '../views/incremental-sums.js';
import { SessionSearch } from '../views/session-search.js';
import type { Shown } from '../views/session-changes.js';
import { ViewBuilder, type SessionViews } from '../views/session-views.js';
import { FilterChoiceSums } from '../views/timeline-filter.js';
import { cachedPayloads } from './payload-cache.js';
import { walSearchReads } from './search-reads.js';
import { SessionRecords } from './session-records.js';
import { SessionTailer } from './session-tailer.js';

export class Residency {
  /** What this residency's snapshots derived (views/incremental-sums.ts): its folder's and its views' store,
   *  taken on from snapshot to snapshot. */
  readonly sums = new IncrementalSums();
  readonly tailer: SessionTailer;
  readonly builder = new ViewBuilder(this.sums);
  /** The Timeline's last filter and how far it walked; what it offers, summed as the session grows. */
  readonly filter_choices = new FilterChoiceSums(this.sums);
  /** The searches and the timeline filter under way, over this residency's views. */
  readonly searches: SessionSearch;
  readonly records: SessionRecords;
  /** The views of the fold as last read; null until they are built from the next one. */
  views: SessionViews | null = null;
  /** The session as its last update showed it (sessionChanges). */
  shown: Shown | null = null;
  private payloads_: PayloadReader | null = null;

  /** `counted`: how the model counts the payload reads its views make. */
  constructor(
    private readonly target: WalTarget,
    private readonly io: FileIO,
    private readonly counted: (read: PayloadReader) => PayloadReader,
  ) {
    this.tailer = new SessionTailer(target, io, this.sums);
    this.searches = new SessionSearch(walSearchReads(target.wal_path, io));
    this.records = new SessionRecords(target, io, this.tailer);
  }

  /** Tool outputs read back from this session's WAL (the fold keeps only where they are), the last few kept. */
  payloads(): PayloadReader {
    this.payloads_ ??= cachedPayloads(this.counted(walPayloadReader(this.target.wal_path, this.io)));
    return this.payloads_;
  }

  /** The tailer read to the end again; `restarted`: from the start, so what was read of the file before may be
   *  another file's. */
  reread(restarted: boolean): void {
    if (restarted) this.payloads_ = null;
    this.records.reread(restarted);
  }
}

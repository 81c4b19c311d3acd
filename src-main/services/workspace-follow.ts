// How the service follows a workspace it has listed: file events (the watcher, which a big root starts only once
// its first reads are done), and two probes for what no file event says: a live writer gone (its lease) and an
// open live session's growth. The service answers each; this only says when.
import { describe } from '../engine/index.js';
import { WorkspaceWatcher, type WatchHandlers, type WatchTarget } from './watcher.js';

/** A live session's lease is re-probed this often: the OS drops a dead writer's lock without touching any file,
 *  so no file event says "the writer stopped". Only sessions shown live are probed. */
export const LIVE_PROBE_INTERVAL_MS = 1_000;
/** An open session with a live writer is also checked for growth this often: a file event can be lost (chokidar
 *  drops a change whose stat shows an mtime it has seen, or that comes within 5 ms of the last), and a live
 *  tail that waits for the next append to show this one is wrong. One `stat` per open live session. At 50 ms,
 *  half of the appends to a million records' open episode (bench live-long-1m) waited for this probe. */
export const LIVE_GROWTH_PROBE_MS = 25;

export interface FollowHandlers extends WatchHandlers {
  /** The watcher is ready: what changed while it was starting is to be caught up. */
  caughtUp(): void;
  /** Every LIVE_PROBE_INTERVAL_MS: the leases of the sessions shown live. */
  probeLeases(): void;
  /** Every LIVE_GROWTH_PROBE_MS: the size of the open sessions a live writer holds. */
  probeGrowth(): void;
}

export class WorkspaceFollow {
  private watcher: WorkspaceWatcher | null = null;
  /** Resolves `watching`, while following file events waits to start. */
  private pending: (() => void) | null = null;
  private readonly watching: Promise<void>;
  private readonly lease_probe: NodeJS.Timeout;
  private readonly growth_probe: NodeJS.Timeout;

  /** Probes from now; file events from `start`. `target`: what to watch, asked for when watching starts. */
  constructor(
    private readonly target: () => WatchTarget,
    private readonly handlers: FollowHandlers,
    private readonly warn_label: string,
  ) {
    this.watching = new Promise((resolve) => (this.pending = resolve));
    this.lease_probe = setInterval(() => handlers.probeLeases(), LIVE_PROBE_INTERVAL_MS).unref();
    this.growth_probe = setInterval(() => handlers.probeGrowth(), LIVE_GROWTH_PROBE_MS).unref();
  }

  /** Follows file events from now, unless it already does; once the watcher is ready, `caughtUp`. */
  start(): void {
    const watched = this.pending;
    if (watched === null) return;
    this.pending = null;
    try {
      this.watcher = new WorkspaceWatcher(this.target(), { changed: (key) => this.handlers.changed(key), listing: () => this.handlers.listing() });
    } catch (error) {
      // Started late, a failure here must not take the worker down: the sessions are shown, only not followed.
      process.emitWarning(`walscope: cannot watch ${this.warn_label}: ${describe(error)}`);
      watched();
      return;
    }
    void this.watcher.whenReady().then(() => {
      this.handlers.caughtUp();
      watched();
    });
  }

  /** Resolves once file events are followed. */
  whenWatching(): Promise<void> {
    return this.watching;
  }

  async close(): Promise<void> {
    this.pending = null;
    clearInterval(this.lease_probe);
    clearInterval(this.growth_probe);
    await this.watcher?.close();
  }
}

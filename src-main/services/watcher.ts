// File events for a workspace, through chokidar (fs.watch underneath: nothing polls a file that does not
// change). Events are coalesced per session: a writer's burst of appends becomes a refresh at its first event and
// one more at most DEBOUNCE_MS after the burst ends, never later than DEBOUNCE_WAIT_MS_MAX after it began.
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { LEASE_FILE_NAME, SESSIONS_DIR_NAME, WAL_FILE_NAME } from '../engine/index.js';

export const DEBOUNCE_MS = 30;
export const DEBOUNCE_WAIT_MS_MAX = 150;

export type WatchTarget = { kind: 'state_root'; root: string } | { kind: 'file'; file: string; key: string };

export interface WatchHandlers {
  /** A session's WAL or lease changed (coalesced). */
  changed(key: string): void;
  /** Sessions may have appeared or gone (coalesced under the key ''). */
  listing(): void;
}

export class Debouncer {
  /** Per key, the burst under way: when it began, and whether an event in it has not been fired for yet. */
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; first_ms: number; due: boolean }>();

  /** `leading`: the first event of a burst fires at once and the rest of the burst once, when it ends (a live
   *  tail's single append is read without waiting out the quiet time: the wait was most of an append's path
   *  to the screen); otherwise only that once. */
  constructor(
    private readonly fire: (key: string) => void,
    private readonly quiet_ms = DEBOUNCE_MS,
    private readonly wait_ms_max = DEBOUNCE_WAIT_MS_MAX,
    private readonly leading = false,
  ) {}

  schedule(key: string): void {
    const now = Date.now();
    const pending = this.timers.get(key);
    if (pending === undefined && this.leading) {
      this.timers.set(key, { timer: this.ending(key, this.quiet_ms), first_ms: now, due: false });
      this.fire(key);
      return;
    }
    if (pending !== undefined) clearTimeout(pending.timer);
    const first_ms = pending?.first_ms ?? now;
    const delay_ms = Math.max(0, Math.min(this.quiet_ms, first_ms + this.wait_ms_max - now));
    this.timers.set(key, { timer: this.ending(key, delay_ms), first_ms, due: true });
  }

  clear(): void {
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Ends `key`'s burst after `delay_ms`, firing for the events not fired for yet. A leading debouncer that
   *  fires then stays quiet for `quiet_ms` more, so that a writer who never pauses gets one refresh per longest
   *  wait, not a trailing one and a leading one a moment apart. */
  private ending(key: string, delay_ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      if (this.timers.get(key)?.due !== true) {
        this.timers.delete(key);
        return;
      }
      if (this.leading) this.timers.set(key, { timer: this.ending(key, this.quiet_ms), first_ms: Date.now(), due: false });
      else this.timers.delete(key);
      this.fire(key);
    }, delay_ms);
  }
}

export class WorkspaceWatcher {
  private readonly watcher: FSWatcher;
  private readonly debouncer: Debouncer;
  private readonly ready: Promise<void>;

  constructor(
    private readonly target: WatchTarget,
    handlers: WatchHandlers,
  ) {
    this.debouncer = new Debouncer((key) => (key === '' ? handlers.listing() : handlers.changed(key)), DEBOUNCE_MS, DEBOUNCE_WAIT_MS_MAX, true);
    // <root>/sessions/<id>/{wal,lease}, two levels down; the filter keeps every other path out, and watching
    // the root (not sessions/) sees a sessions/ created later.
    this.watcher = watch(target.kind === 'state_root' ? target.root : target.file, {
      ignoreInitial: true,
      depth: target.kind === 'state_root' ? 2 : 0,
      usePolling: false,
      atomic: false,
      ignored: (candidate) => this.ignored(candidate),
    });
    this.watcher.on('all', (event, changed) => this.route(event, changed));
    this.watcher.on('error', () => this.debouncer.schedule(''));
    this.ready = new Promise((resolve) => this.watcher.once('ready', () => resolve()));
  }

  whenReady(): Promise<void> {
    return this.ready;
  }

  async close(): Promise<void> {
    this.debouncer.clear();
    await this.watcher.close();
  }

  private ignored(candidate: string): boolean {
    if (this.target.kind === 'file') return false;
    const relative = path.relative(this.target.root, candidate);
    if (relative === '' || relative === SESSIONS_DIR_NAME) return false;
    const parts = relative.split(path.sep);
    if (parts[0] !== SESSIONS_DIR_NAME) return true;
    if (parts.length === 2) return false;
    return !(parts.length === 3 && (parts[2] === WAL_FILE_NAME || parts[2] === LEASE_FILE_NAME));
  }

  private route(event: string, changed: string): void {
    if (this.target.kind === 'file') {
      this.debouncer.schedule(this.target.key);
      return;
    }
    const parts = path.relative(this.target.root, changed).split(path.sep);
    if (parts[0] !== SESSIONS_DIR_NAME) return;
    if (parts.length <= 2 || event === 'add' || event === 'unlink') this.debouncer.schedule('');
    if (parts.length === 3) this.debouncer.schedule(parts[1]!);
  }
}

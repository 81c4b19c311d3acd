// What the session service tells its windows, and how often: the subscribers, the list pushed at most every
// LIST_PUSH_MS with only the summaries that changed, and a read's progress said only for reads that say how far
// they got. The service decides what happened; this room decides what goes out.
import type { SessionSummary, WalscopeEvent } from '../../src-shared/ipc.js';
import { Debouncer } from './watcher.js';

export const LISTENERS_MAX = 64;
/** The session list is pushed at most this often while sessions change. */
const LIST_PUSH_MS = 100;

export class ServiceEvents {
  private readonly listeners = new Set<(event: WalscopeEvent) => void>();
  private readonly list_push = new Debouncer(() => this.pushList(), LIST_PUSH_MS, LIST_PUSH_MS * 3);
  /** Sessions whose summary changed since the list was last pushed; null when the list itself changed. Only
   *  those are pushed: a root of 2,000 sessions pushed every summary every 300 ms while it was read (24 copies
   *  of 0.7 MB to the main thread, ~0.3 s of the session thread). */
  private summaries_changed: Set<string> | null = new Set();
  /** Sessions whose read has reported progress and not yet that it finished. */
  private readonly progress_shown = new Set<string>();

  /** `summaries`: the whole list; `summaryOf`: one session's, undefined once it is gone. */
  constructor(
    private readonly summaries: () => SessionSummary[],
    private readonly summaryOf: (key: string) => SessionSummary | undefined,
  ) {}

  subscribe(listener: (event: WalscopeEvent) => void): () => void {
    if (this.listeners.size >= LISTENERS_MAX) throw new Error(`more than ${LISTENERS_MAX} subscribers`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: WalscopeEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** Session `key`'s summary changed: it goes out with the next push of the list. */
  summaryChanged(key: string): void {
    this.summaries_changed?.add(key);
    this.list_push.schedule('list');
  }

  /** Sessions came or went: the next push carries the whole list. */
  listChanged(): void {
    this.summaries_changed = null;
    this.list_push.schedule('list');
  }

  progress(key: string, done_bytes: number, total_bytes: number, finished: boolean): void {
    // A read that never said how far it got (one slice: a root's small WALs) does not say that it finished either:
    // 2,000 messages to the main thread for bars never shown (~0.2-0.4 s of the session thread).
    if (finished && !this.progress_shown.delete(key)) return;
    if (!finished) this.progress_shown.add(key);
    this.emit({ type: 'progress', progress: { key, task: 'read', done_bytes, total_bytes, finished } });
  }

  close(): void {
    this.list_push.clear();
    this.listeners.clear();
  }

  /** The whole list when it changed, else the summaries that changed. */
  private pushList(): void {
    const changed = this.summaries_changed;
    this.summaries_changed = new Set();
    if (changed === null) {
      this.emit({ type: 'sessions', sessions: this.summaries() });
      return;
    }
    const summaries = [...changed].flatMap((key) => this.summaryOf(key) ?? []);
    if (summaries.length > 0) this.emit({ type: 'summaries', changed: summaries });
  }
}

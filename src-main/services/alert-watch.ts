// A workspace's alerts kept current (docs/alerts.md): the session service's summaries and lease probes through
// the alert definitions (replay/alerts.ts) and the tracker (views/alert-tracker.ts), looked at again on each of
// the service's events (its chokidar tailing and lease probes) and on a tick, for the thresholds that pass by
// themselves (a held call waiting, a silent writer). The one fact taken here: is a gone writer's pid alive.
import fs from 'node:fs';
import os from 'node:os';
import type { AlertEvent, AlertsView, AlertThresholds } from '../../src-shared/alerts.js';
import type { LeaseView, SessionSummary, WalscopeEvent } from '../../src-shared/ipc.js';
import { sessionAlerts } from '../replay/alerts.js';
import { AlertBoard } from '../views/alert-board.js';
import { AlertTracker, type AlertLimits } from '../views/alert-tracker.js';
import type { SessionService } from './session-service.js';

/** How often the alerts are looked at again with no event: a threshold passes by itself. */
export const ALERT_TICK_MS = 1_000;

export interface AlertWatchOptions {
  thresholds: AlertThresholds;
  limits?: AlertLimits;
  now_ms?: () => number;
}

/** The alerts of the service's workspace now, as the tracker's next events. */
export function lookAgain(service: SessionService, tracker: AlertTracker, options: AlertWatchOptions): AlertEvent[] {
  const now_ms = (options.now_ms ?? Date.now)();
  const sources = service.alertSources();
  const alerts = sources.flatMap(({ wal_path, ...source }) => {
    const lease = writerMatters(source.summary) ? leaseBeside(source.summary, source.lease, wal_path) : NO_LEASE;
    return sessionAlerts({ ...source, lease, holder_gone: holderGone(lease), now_ms }, options.thresholds);
  });
  return tracker.update(alerts, now_ms, sources.length);
}

/** Follows the workspace: `on_events` gets each look's events (the first: the summary of what is true). */
export function watchAlerts(service: SessionService, options: AlertWatchOptions, on_events: (events: AlertEvent[]) => void): () => void {
  const tracker = new AlertTracker(options.limits);
  const look = (): void => {
    const events = lookAgain(service, tracker, options);
    if (events.length > 0) on_events(events);
  };
  look();
  const unsubscribe = service.subscribe((event) => {
    if (event.type === 'sessions' || event.type === 'summaries' || event.type === 'session') look();
  });
  const tick = setInterval(look, ALERT_TICK_MS);
  return () => {
    clearInterval(tick);
    unsubscribe();
  };
}

/** A workspace's alerts for its windows: watched from the end of its first read (so the first look is one summary
 *  of the whole workspace), kept on a board for the Alerts panel, and each look's events pushed as an `alerts`
 *  event for the window's notices. */
export class WorkspaceAlerts {
  private readonly board: AlertBoard;
  private stop: (() => void) | null = null;
  private closed = false;

  constructor(service: SessionService, thresholds: AlertThresholds, emit: (event: WalscopeEvent) => void) {
    this.board = new AlertBoard(thresholds);
    void service.whenRead().then(() => {
      if (this.closed) return;
      this.stop = watchAlerts(service, { thresholds }, (events) => emit({ type: 'alerts', revision: this.board.take(null, events), host: null, events }));
    });
  }

  view(): AlertsView {
    return this.board.view();
  }

  close(): void {
    this.closed = true;
    this.stop?.();
  }
}

/** What a session whose writer cannot raise an alert is looked at with: no lease. */
const NO_LEASE: LeaseView = { state: 'absent' };

/** Whether a session's writer can raise an alert (replay/alerts.ts' writer alerts): its run is open, or a call of
 *  it is in flight. A look at a root of thousands of finished sessions asks after none of their writers. */
function writerMatters(summary: SessionSummary): boolean {
  const open = summary.episode_state !== null && summary.episode_state !== 'finished';
  return open || (summary.run?.open_calls.some((call) => call.state === 'in_flight') ?? false);
}

/** The lease a writer's alerts read beside `summary`: none while the summary is behind its WAL with the lease
 *  free, since a writer that died after the last read would be gone at an earlier seq, then again at its last
 *  (the next read catches the summary up and raises it once). */
function leaseBeside(summary: SessionSummary, lease: LeaseView, wal_path: string): LeaseView {
  if (lease.state !== 'free') return lease;
  try {
    return fs.statSync(wal_path).size === summary.size_bytes ? lease : NO_LEASE;
  } catch {
    return NO_LEASE;
  }
}

/** The lease is free and its last holder was a process of this host that is not alive: the writer is gone
 *  (another host's pid cannot be asked from here). */
function holderGone(lease: LeaseView): boolean {
  if (lease.state !== 'free' || lease.last === null || lease.last.host !== os.hostname()) return false;
  try {
    process.kill(lease.last.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

// What the Alerts panel shows (docs/alerts.md): the alerts fired and not cleared, and the last changes, kept from
// the tracker's events (a workspace's own, or each host's as its agent published them to the fleet's stream).
import { alertKey, RECENT_ALERT_EVENTS_MAX, SHOWN_ALERTS_MAX, type AlertEvent, type AlertsView, type AlertThresholds, type RecentAlertEvent, type ShownAlert } from '../../src-shared/alerts.js';
import { DEFAULT_ALERT_LIMITS } from './alert-tracker.js';

/** A session's key in the workspace from its host and its key there (a fleet's `<host>.<session>`). */
export type KeyOf = (host: string | null, session: string) => string;

export class AlertBoard {
  /** Fired and not cleared, by host and alertKey; at most the tracker's own bound per host is ever sent. */
  private readonly current = new Map<string, ShownAlert>();
  private readonly recent: RecentAlertEvent[] = [];
  private revision = 0;
  private looked = false;

  constructor(
    private readonly thresholds: AlertThresholds | null,
    private readonly keyOf: KeyOf = (_host, session) => session,
    private readonly current_max = DEFAULT_ALERT_LIMITS.active_max,
  ) {}

  /** Takes in `host`'s next events; returns the revision they make. A first look's summary is what is already
   *  true: current since then, not a recent change. */
  take(host: string | null, events: readonly AlertEvent[]): number {
    const revision = (this.revision += 1);
    for (const event of events) {
      if (event.type === 'summary') {
        for (const alert of event.alerts) this.add({ key: this.keyOf(host, alert.session), host, since_ms: event.at_ms, alert });
      } else if (event.type === 'suppressed') {
        this.note({ type: 'suppressed', revision, at_ms: event.at_ms, key: this.keyOf(host, event.session), host, alerts: event.alerts });
      } else {
        const shown = { key: this.keyOf(host, event.alert.session), host, alert: event.alert };
        if (event.type === 'fired') this.add({ ...shown, since_ms: event.at_ms });
        else this.current.delete(boardKey(host, event));
        this.note({ type: event.type, revision, at_ms: event.at_ms, ...shown });
      }
    }
    this.looked = true;
    return revision;
  }

  view(): AlertsView {
    const ordered = [...this.current.values()].sort((a, b) => severityRank(a) - severityRank(b) || b.since_ms - a.since_ms);
    return {
      revision: this.revision,
      looked: this.looked,
      current: ordered.slice(0, SHOWN_ALERTS_MAX),
      current_left_out: Math.max(0, ordered.length - SHOWN_ALERTS_MAX),
      recent: [...this.recent],
      thresholds: this.thresholds,
    };
  }

  private add(shown: ShownAlert): void {
    if (this.current.size >= this.current_max) return;
    this.current.set(boardKey(shown.host, shown), shown);
  }

  private note(event: RecentAlertEvent): void {
    this.recent.unshift(event);
    if (this.recent.length > RECENT_ALERT_EVENTS_MAX) this.recent.pop();
  }
}

function boardKey(host: string | null, shown: Pick<ShownAlert, 'alert'>): string {
  return JSON.stringify([host, alertKey(shown.alert)]);
}

function severityRank(shown: ShownAlert): number {
  return shown.alert.severity === 'critical' ? 0 : 1;
}

// The desktop's alert notices (docs/alerts.md): a state root's alerts (services/alert-watch.ts, from the
// summaries the window's API pushes) as Electron Notifications. Kept thin: what a notice says is `noticesOf`, what
// shows it is the `notify` handed in (Electron's Notification in main.ts).
import { ALERT_LABEL, DEFAULT_ALERT_THRESHOLDS, type AlertEvent } from '../../src-shared/alerts.js';
import type { WalscopeApi } from '../../src-shared/ipc.js';
import { StateRootAlerts } from '../services/alert-watch.js';

export interface Notice {
  title: string;
  body: string;
  /** The session a click opens; null for a first look's summary of several. */
  session: string | null;
}

/** A notice per alert that fired, one for a first look's summary (none when nothing is true), none for a clear. */
export function noticesOf(events: readonly AlertEvent[]): Notice[] {
  const notices: Notice[] = [];
  for (const event of events) {
    if (event.type === 'fired') notices.push({ title: `walscope: ${ALERT_LABEL[event.alert.kind]} — ${event.alert.session}`, body: event.alert.waits_for, session: event.alert.session });
    if (event.type === 'summary' && event.alerts.length > 0) {
      const sessions = new Set(event.alerts.map((alert) => alert.session));
      const only = sessions.size === 1 ? [...sessions][0]! : null;
      notices.push({ title: `walscope: ${event.alerts.length} alert${event.alerts.length === 1 ? '' : 's'} already true`, body: `in ${sessions.size} of ${event.sessions} sessions: ${[...new Set(event.alerts.map((alert) => ALERT_LABEL[alert.kind]))].join(', ')}`, session: only });
    }
  }
  return notices;
}

/** Looks at the root's alerts whenever the API says its sessions changed, and once a second; `notify` shows each
 *  notice. Returns what stops it. */
export function watchNotices(api: WalscopeApi, root: string, notify: (notice: Notice) => void, tick_ms = 1_000): () => void {
  const alerts = new StateRootAlerts(root, DEFAULT_ALERT_THRESHOLDS);
  let looking = false;
  const look = async (): Promise<void> => {
    if (looking) return;
    looking = true;
    try {
      for (const notice of noticesOf(alerts.look(await api.listSessions(), Date.now()))) notify(notice);
    } finally {
      looking = false;
    }
  };
  const unsubscribe = api.subscribe((event) => {
    if (event.type === 'sessions' || event.type === 'summaries' || event.type === 'session') void look().catch(() => undefined);
  });
  const tick = setInterval(() => void look().catch(() => undefined), tick_ms);
  tick.unref();
  void look().catch(() => undefined);
  return () => {
    clearInterval(tick);
    unsubscribe();
  };
}

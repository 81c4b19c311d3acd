// The desktop's alert notices (docs/alerts.md): the workspace's `alerts` events (its worker's watch, or a fleet's
// stream) as Electron Notifications. Kept thin: what a notice says is `noticesOf`, what shows it is the `notify`
// handed in (Electron's Notification in main.ts), and a click opens the notice's session there.
import { ALERT_LABEL, alertNoticeTitle, type Alert, type AlertEvent } from '../../src-shared/alerts.js';
import type { WalscopeApi } from '../../src-shared/ipc.js';
import { sessionKey } from '../fleet/names.js';

export interface Notice {
  title: string;
  body: string;
  /** The session a click opens (its key in the workspace); null for a first look's summary of several. */
  session: string | null;
}

/** A notice per alert that fired, one for a first look's summary (none when nothing is true), none for a clear.
 *  `host`: the fleet host whose agent raised them (their sessions' keys name it), or null. */
export function noticesOf(events: readonly AlertEvent[], host: string | null = null): Notice[] {
  const keyOf = (alert: Alert) => (host === null ? alert.session : sessionKey(host, alert.session));
  const notices: Notice[] = [];
  for (const event of events) {
    if (event.type === 'fired') notices.push({ title: alertNoticeTitle(event.alert, host), body: event.alert.waits_for, session: keyOf(event.alert) });
    if (event.type === 'summary' && event.alerts.length > 0) notices.push(summaryNotice(event.alerts.map((alert) => ({ key: keyOf(alert), alert })), event.sessions));
  }
  return notices;
}

/** What is already true, in one notice. `sessions`: of how many (0: not known). */
function summaryNotice(alerts: readonly { key: string; alert: Alert }[], sessions: number): Notice {
  const keys = new Set(alerts.map(({ key }) => key));
  const only = keys.size === 1 ? [...keys][0]! : null;
  const kinds = [...new Set(alerts.map(({ alert }) => ALERT_LABEL[alert.kind]))].join(', ');
  return { title: `walscope: ${alerts.length} alert${alerts.length === 1 ? '' : 's'} already true`, body: `in ${keys.size}${sessions > 0 ? ` of ${sessions}` : ''} session${(sessions || keys.size) === 1 ? '' : 's'}: ${kinds}`, session: only };
}

/** Shows the workspace's alerts as notices: what is already true once (from the first look's summary, or from
 *  the board when that look was before this or is a fleet's catching up with its stream), then each alert as it
 *  fires. Returns what stops it. */
export function watchNotices(api: WalscopeApi, notify: (notice: Notice) => void): () => void {
  let summarized = false;
  // The worker's events and this answer come in their order: a look done before it is in the board, once.
  const catchUp = (): void => {
    void api.getAlerts().then((view) => {
      if (summarized || !view.looked) return;
      summarized = true;
      if (view.current.length > 0) notify(summaryNotice(view.current, 0));
    }, () => undefined);
  };
  const unsubscribe = api.subscribe((event) => {
    if (event.type !== 'alerts') return;
    if (event.events.some((one) => one.type === 'summary')) summarized = true;
    else if (!summarized) catchUp();
    for (const notice of noticesOf(event.events, event.host)) notify(notice);
  });
  catchUp();
  return unsubscribe;
}

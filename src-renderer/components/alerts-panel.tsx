// The Alerts panel (docs/alerts.md): the header's button says how many alerts are true now (red when one is
// critical); the panel lists them and the recent changes, each opening its session. In a browser the page also
// shows each alert as it fires as a notification, once the user allows it (under Electron the main process does).
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ALERT_LABEL, alertNoticeTitle, type AlertsView, type RecentAlertEvent, type ShownAlert } from '../../src-shared/alerts.js';
import { notices_from_main, queries } from '../queries.js';
import { formatAgo } from './format.js';
import { Modal } from './modal.js';

export function AlertsButton({ onSelect }: { onSelect: (key: string) => void }) {
  const alerts = useQuery(queries.alerts());
  const [open, setOpen] = useState(false);
  useBrowserNotices(alerts.data, onSelect);
  const view = alerts.data;
  const count = view === undefined ? 0 : view.current.length + view.current_left_out;
  const critical = view?.current.some((shown) => shown.alert.severity === 'critical') ?? false;
  return (
    <>
      <button type="button" className={`alerts-button${critical ? ' critical' : count > 0 ? ' warning' : ''}`} onClick={() => setOpen(true)} data-testid="alerts-button"
        title={view?.looked === false ? 'The first look at the workspace is under way' : `${count} alert${count === 1 ? '' : 's'} now`}>
        Alerts {view?.looked === false ? '…' : count}
      </button>
      {open && view !== undefined && <AlertsPanel view={view} onClose={() => setOpen(false)} onSelect={(key) => { setOpen(false); onSelect(key); }} />}
    </>
  );
}

function AlertsPanel({ view, onClose, onSelect }: { view: AlertsView; onClose: () => void; onSelect: (key: string) => void }) {
  const now_ms = Date.now();
  return (
    <Modal titleId="alerts-title" className="alerts-panel" testId="alerts-panel" onClose={onClose}>
      <h3 id="alerts-title">Alerts</h3>
      <NoticeChoice />
      <h4>Now</h4>
      {!view.looked && <p className="muted">The first look at the workspace is under way.</p>}
      {view.looked && view.current.length === 0 && <p className="muted" data-testid="alerts-none">No alert is true now.</p>}
      <ul className="alert-list" data-testid="alerts-current">
        {view.current.map((shown) => <CurrentAlert key={`${shown.key} ${shown.alert.kind} ${shown.alert.attention} ${shown.alert.seq}`} shown={shown} now_ms={now_ms} onSelect={onSelect} />)}
      </ul>
      {view.current_left_out > 0 && <p className="muted">{view.current_left_out} more not listed (the {view.current.length} most severe and newest are).</p>}
      <h4>Recent</h4>
      {view.recent.length === 0 && <p className="muted">Nothing has fired or cleared since this workspace was opened.</p>}
      <ul className="alert-list" data-testid="alerts-recent">
        {view.recent.map((event, index) => <RecentAlert key={index} event={event} now_ms={now_ms} onSelect={onSelect} />)}
      </ul>
      <p className="muted">{view.thresholds === null ? 'Raised by each host\'s agent, with its own thresholds.' : `A held call after ${minutes(view.thresholds.held_after_ms)}, a silent writer after ${minutes(view.thresholds.silent_after_ms)}, a WAL past ${Math.round(view.thresholds.ceiling_share * 100)}% of its ceiling.`}</p>
      <div className="actions"><button type="button" onClick={onClose} data-testid="alerts-close">Close</button></div>
    </Modal>
  );
}

function CurrentAlert({ shown, now_ms, onSelect }: { shown: ShownAlert; now_ms: number; onSelect: (key: string) => void }) {
  const { alert } = shown;
  return (
    <li className={`alert-row severity-${alert.severity}`} data-testid="alert-row">
      <span className="badge label">{alert.severity}</span>
      <strong>{ALERT_LABEL[alert.kind]}{alert.attention === null ? '' : ` (${alert.attention})`}</strong>
      <button type="button" className="link mono" onClick={() => onSelect(shown.key)} data-testid="alert-session">{alert.session}{shown.host === null ? '' : ` on ${shown.host}`}</button>
      <span className="muted">seq {alert.seq} · seen {formatAgo(shown.since_ms, now_ms)}</span>
      <span className="alert-waits">{alert.waits_for}</span>
    </li>
  );
}

function RecentAlert({ event, now_ms, onSelect }: { event: RecentAlertEvent; now_ms: number; onSelect: (key: string) => void }) {
  const session = <button type="button" className="link mono" onClick={() => onSelect(event.key)}>{event.type === 'suppressed' ? event.key : event.alert.session}{event.host === null ? '' : ` on ${event.host}`}</button>;
  if (event.type === 'suppressed') return <li className="alert-row muted">held back {event.alerts} alert{event.alerts === 1 ? '' : 's'} of {session} (its rate limit) · {formatAgo(event.at_ms, now_ms)}</li>;
  return (
    <li className="alert-row" data-testid="alert-recent-row">
      <span className={event.type === 'fired' ? 'tone-bad' : 'muted'}>{event.type}</span>
      <span>{ALERT_LABEL[event.alert.kind]}{event.alert.attention === null ? '' : ` (${event.alert.attention})`}</span>
      {session}
      <span className="muted">{formatAgo(event.at_ms, now_ms)}</span>
    </li>
  );
}

/** Whether this page shows notifications: asked of the user, never assumed. */
function NoticeChoice() {
  const [permission, setPermission] = useState(noticePermission);
  if (notices_from_main) return <p className="muted">Each alert is also shown as a desktop notification.</p>;
  if (permission === 'unsupported') return <p className="muted">This browser shows no notifications: the panel is where alerts are.</p>;
  if (permission === 'granted') return <p className="muted" data-testid="alerts-notify-on">Each new alert is shown as a notification while this page is open.</p>;
  if (permission === 'denied') return <p className="muted">Notifications are blocked for this page in the browser's settings.</p>;
  return <p><button type="button" onClick={() => void Notification.requestPermission().then(() => setPermission(noticePermission()))} data-testid="alerts-notify">Notify me of new alerts</button></p>;
}

function noticePermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** A notification per alert fired since the page first saw the alerts (never the ones already true: the first
 *  look is the panel's), when the user allowed them; a click opens its session. */
function useBrowserNotices(view: AlertsView | undefined, onSelect: (key: string) => void): void {
  const seen = useRef<number | null>(null);
  useEffect(() => {
    if (view === undefined || !view.looked) return;
    const after = seen.current;
    seen.current = Math.max(after ?? 0, view.revision);
    if (after === null || notices_from_main || noticePermission() !== 'granted') return;
    for (const event of view.recent) {
      if (event.revision <= after || event.type !== 'fired') continue;
      const shown = new Notification(alertNoticeTitle(event.alert, event.host), { body: event.alert.waits_for, tag: `${event.key} ${event.alert.kind} ${event.alert.seq}` });
      const key = event.key;
      shown.onclick = () => {
        window.focus();
        onSelect(key);
      };
    }
  }, [view, onSelect]);
}

function minutes(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

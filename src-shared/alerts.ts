// The alerts only a WAL can raise (docs/alerts.md): their kinds, words and thresholds, shared by the CLI's
// `walscope alerts`, the fleet and the app, so that no two of them name an alert differently.
import type { AttentionKind } from './status.js';

export type AlertKind = 'attention' | 'held_too_long' | 'stale_writer' | 'silent_writer' | 'near_ceiling' | 'torn_tail';

export const ALERT_KINDS: readonly AlertKind[] = ['attention', 'held_too_long', 'stale_writer', 'silent_writer', 'near_ceiling', 'torn_tail'];

export type AlertSeverity = 'critical' | 'warning';

/** One alert as it stands now: which session, what it is about (`seq`: the record it is about, so a new
 *  occurrence of the same kind is a new alert), what it waits for, and where to look. */
export interface Alert {
  /** The session's key in its workspace (its id in a state root). */
  session: string;
  kind: AlertKind;
  /** For `attention`: why the session is in the queue (wal-format §10). */
  attention: AttentionKind | null;
  seq: number;
  severity: AlertSeverity;
  /** What it waits for and what clears it, in a sentence. Text from the WAL (a tool's name) is in it: printed
   *  as text. */
  waits_for: string;
  /** The session's walscope:// link (links.ts: the workspace's path and the session's key, which opens it
   *  read-only in the app), or, where a link cannot carry the path, its folder or its file. */
  link: string;
}

/** What turns a session's facts into alerts; every one has a default and a flag (docs/alerts.md). */
export interface AlertThresholds {
  /** A provider-held call waiting longer than this (from its held_at_ms) raises `held_too_long`. */
  held_after_ms: number;
  /** A live writer with a call in flight that appended nothing for longer than this raises `silent_writer`. */
  silent_after_ms: number;
  /** A WAL larger than this share of the 1 GiB ceiling raises `near_ceiling`. */
  ceiling_share: number;
}

export const DEFAULT_ALERT_THRESHOLDS: AlertThresholds = { held_after_ms: 3_600_000, silent_after_ms: 600_000, ceiling_share: 0.9 };

/** The alert's identity: one occurrence fires once. An attention entry's kind is part of its kind: a close-out
 *  that leaves the call's outcome unknown turns `close_out` into `finished_unconfirmed` about the same call. */
export function alertKey(alert: Pick<Alert, 'session' | 'kind' | 'attention' | 'seq'>): string {
  return JSON.stringify([alert.session, alert.kind, alert.attention, alert.seq]);
}

/** What the tracker reports: an alert that fired, one whose cause is gone, alerts held back by a session's rate
 *  limit, or (the first look at a root) one summary of what is already true. */
export type AlertEvent =
  | { type: 'fired'; at_ms: number; alert: Alert }
  | { type: 'cleared'; at_ms: number; alert: Alert }
  | { type: 'summary'; at_ms: number; alerts: Alert[]; sessions: number }
  | { type: 'suppressed'; at_ms: number; session: string; alerts: number };

/** Each kind in a few words, for a line and a notification's title. */
export const ALERT_LABEL: Record<AlertKind, string> = {
  attention: 'needs attention',
  held_too_long: 'held call waiting',
  stale_writer: 'writer gone',
  silent_writer: 'writer silent',
  near_ceiling: 'WAL near its ceiling',
  torn_tail: 'torn tail',
};

/** An alert as the Alerts panel lists it: where it is (`key`: the session's key in this workspace, which in a fleet
 *  names its host), since when, and the alert. */
export interface ShownAlert {
  key: string;
  /** The host whose agent raised it (a fleet's), or null (this machine's). */
  host: string | null;
  since_ms: number;
  alert: Alert;
}

/** A recent change to the alerts: one fired or cleared, or a session's alerts held back by its rate limit. */
export type RecentAlertEvent = { revision: number; at_ms: number; key: string; host: string | null } & (
  | { type: 'fired' | 'cleared'; alert: Alert }
  | { type: 'suppressed'; alerts: number });

/** A notice's title for an alert: its kind in words and its session (and host, in a fleet). */
export function alertNoticeTitle(alert: Alert, host: string | null): string {
  return `walscope: ${ALERT_LABEL[alert.kind]} — ${host === null ? alert.session : `${alert.session} on ${host}`}`;
}

/** Alerts current at once that the panel is given (the tracker holds up to 10,000): the most severe, newest first. */
export const SHOWN_ALERTS_MAX = 500;
/** Recent changes kept, newest first. */
export const RECENT_ALERT_EVENTS_MAX = 200;

/** The Alerts panel's content: what is true now and what changed lately. */
export interface AlertsView {
  /** Bumped at each change (each recent event carries the one it came with): a window's notices know what they
   *  have seen. */
  revision: number;
  /** The first look at the workspace is done (before it, nothing is known yet, which is not "no alerts"). */
  looked: boolean;
  current: ShownAlert[];
  /** Current alerts past SHOWN_ALERTS_MAX, not in `current`. */
  current_left_out: number;
  recent: RecentAlertEvent[];
  /** What raises them here; null in a fleet, where each host's agent has its own (docs/alerts.md). */
  thresholds: AlertThresholds | null;
}

// Successive alert sets (replay/alerts.ts) of a workspace into events (docs/alerts.md): an occurrence fires
// once, clears when its cause is gone, a session fires at most so many in a window, and the first look at a
// root reports what is already true as one summary, not one event per session.
import { alertKey, type Alert, type AlertEvent } from '../../src-shared/alerts.js';

export interface AlertLimits {
  /** Alerts one session may fire in a window; more wait for the next window. */
  fired_per_session_max: number;
  window_ms: number;
  /** Occurrences held at once (fired and not cleared); more are not tracked (and said so, once). */
  active_max: number;
}

export const DEFAULT_ALERT_LIMITS: AlertLimits = { fired_per_session_max: 5, window_ms: 60_000, active_max: 10_000 };

export class AlertTracker {
  /** Fired and not cleared, by alertKey. */
  private readonly active = new Map<string, Alert>();
  /** Per session: when its alerts of the current window fired, and whether its holding back was reported. */
  private readonly windows = new Map<string, { fired_ms: number[]; suppressed_noted: boolean }>();
  private first = true;

  constructor(private readonly limits: AlertLimits = DEFAULT_ALERT_LIMITS) {}

  /** The events that take the tracker from the last set to `alerts` (every alert of the workspace now). */
  update(alerts: readonly Alert[], now_ms: number, sessions: number): AlertEvent[] {
    if (this.first) {
      this.first = false;
      const known = alerts.slice(0, this.limits.active_max);
      for (const alert of known) this.active.set(alertKey(alert), alert);
      return [{ type: 'summary', at_ms: now_ms, alerts: known, sessions }];
    }
    const events: AlertEvent[] = [];
    const now = new Map(alerts.map((alert) => [alertKey(alert), alert]));
    for (const [key, alert] of this.active) {
      if (now.has(key)) continue;
      this.active.delete(key);
      events.push({ type: 'cleared', at_ms: now_ms, alert });
    }
    const held_back = new Map<string, number>();
    for (const [key, alert] of now) {
      if (this.active.has(key) || this.active.size >= this.limits.active_max) continue;
      if (!this.mayFire(alert.session, now_ms)) {
        held_back.set(alert.session, (held_back.get(alert.session) ?? 0) + 1);
        continue;
      }
      this.active.set(key, alert);
      events.push({ type: 'fired', at_ms: now_ms, alert });
    }
    for (const [session, count] of held_back) {
      const window = this.windows.get(session)!;
      if (window.suppressed_noted) continue;
      window.suppressed_noted = true;
      events.push({ type: 'suppressed', at_ms: now_ms, session, alerts: count });
    }
    this.forgetQuietSessions(now_ms);
    return events;
  }

  /** The occurrences fired and not cleared. */
  current(): Alert[] {
    return [...this.active.values()];
  }

  private mayFire(session: string, now_ms: number): boolean {
    let window = this.windows.get(session);
    if (window === undefined) this.windows.set(session, (window = { fired_ms: [], suppressed_noted: false }));
    window.fired_ms = window.fired_ms.filter((at_ms) => now_ms - at_ms < this.limits.window_ms);
    if (window.fired_ms.length === 0) window.suppressed_noted = false;
    if (window.fired_ms.length >= this.limits.fired_per_session_max) return false;
    window.fired_ms.push(now_ms);
    return true;
  }

  /** A session that fired nothing in the last window holds no state. */
  private forgetQuietSessions(now_ms: number): void {
    for (const [session, window] of this.windows) {
      if (window.fired_ms.every((at_ms) => now_ms - at_ms >= this.limits.window_ms)) this.windows.delete(session);
    }
  }
}

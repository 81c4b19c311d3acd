// The alert definitions (replay/alerts.ts) and the tracker (views/alert-tracker.ts), as functions of facts.
import { describe, expect, it } from 'vitest';
import { RECENT_ALERT_EVENTS_MAX, SHOWN_ALERTS_MAX, type Alert, type AlertEvent } from '../../src-shared/alerts.js';
import type { SessionSummary } from '../../src-shared/ipc.js';
import type { RunSignal } from '../../src-shared/replay.js';
import { WAL_BYTES_CEILING } from '../../src-shared/wal.js';
import { sessionAlerts, type AlertFacts } from '../../src-main/replay/alerts.js';
import { AlertTracker } from '../../src-main/views/alert-tracker.js';
import { AlertBoard } from '../../src-main/views/alert-board.js';

const THRESHOLDS = { held_after_ms: 1_000, silent_after_ms: 1_000, ceiling_share: 0.9 };
const NOW_MS = 1_000_000;
const TENURE = { epoch: 1, pid: 4242, host: 'h', acquired_ms: 1, writer: 'w' };

function run(overrides: Partial<RunSignal>): RunSignal {
  return { status: 'idle', detail: '', finish: null, attention: null, unconfirmed: [], open_end: null, last_durable: null, error_results: 0, open_calls: [], ...overrides };
}

function facts(summary: Partial<SessionSummary>, rest: Partial<AlertFacts> = {}): AlertFacts {
  const base: SessionSummary = {
    key: 's', session_id: 's', status: 'idle', status_detail: '', torn_tail: null, attention: null, plan: null, last_activity_ms: NOW_MS, episodes: 1, records: 5,
    last_seq: 5, size_bytes: 1_000, episode_state: 'running', finish_reason: null, class_counts: {}, run: run({}), recoveries: [],
  };
  return { summary: { ...base, ...summary }, is_export: false, link: '/root/sessions/s', lease: { state: 'absent' }, holder_gone: false, now_ms: NOW_MS, ...rest };
}

const kinds = (alerts: Alert[]) => alerts.map((alert) => alert.kind);

describe('the alert definitions', () => {
  it('raise the attention entry, about the first call nobody checked', () => {
    const unconfirmed = [{ episode: 1, batch_id: 'b', tool_call_id: 'c', name: 'send', intent_seq: 4, closed_out_seq: null, may_have: '', acknowledged: null }];
    const alerts = sessionAlerts(facts({ attention: { kind: 'close_out', message: 'check it' }, run: run({ unconfirmed }) }), THRESHOLDS);
    expect(alerts).toEqual([{ session: 's', link: '/root/sessions/s', kind: 'attention', attention: 'close_out', seq: 4, severity: 'critical', waits_for: 'check it' }]);
  });

  it('raise a held call only past its threshold', () => {
    const held = (held_at_ms: number) => facts({ run: run({ open_calls: [{ tool_call_id: 'c', name: 'send', state: 'held', seq: 6, held_at_ms }] }) });
    expect(sessionAlerts(held(NOW_MS - 1_000), THRESHOLDS)).toEqual([]);
    expect(sessionAlerts(held(NOW_MS - 1_001), THRESHOLDS)).toMatchObject([{ kind: 'held_too_long', seq: 6 }]);
  });

  it('raise a gone writer while the run is open, never for an export or a finished run', () => {
    const gone = { lease: { state: 'free', last: TENURE } as const, holder_gone: true };
    expect(kinds(sessionAlerts(facts({}, gone), THRESHOLDS))).toEqual(['stale_writer']);
    expect(sessionAlerts(facts({}, { ...gone, is_export: true }), THRESHOLDS)).toEqual([]);
    expect(sessionAlerts(facts({ episode_state: 'finished' }, gone), THRESHOLDS)).toEqual([]);
    expect(sessionAlerts(facts({}, { ...gone, holder_gone: false }), THRESHOLDS)).toEqual([]);
  });

  it('raise a gone writer that left a close-out owed as the attention entry alone: one death, one alert', () => {
    const gone = { lease: { state: 'free', last: TENURE } as const, holder_gone: true };
    expect(kinds(sessionAlerts(facts({ attention: { kind: 'close_out', message: 'check it' } }, gone), THRESHOLDS))).toEqual(['attention']);
  });

  it('raise a live writer silent past its threshold while a call is in flight', () => {
    const in_flight = run({ open_calls: [{ tool_call_id: 'c', name: 'send', state: 'in_flight', seq: 4, held_at_ms: null }] });
    const live = { lease: { state: 'live', holder: TENURE } as const };
    expect(sessionAlerts(facts({ run: in_flight, last_activity_ms: NOW_MS - 1_000 }, live), THRESHOLDS)).toEqual([]);
    expect(sessionAlerts(facts({ run: in_flight, last_activity_ms: NOW_MS - 1_001 }, live), THRESHOLDS)).toMatchObject([{ kind: 'silent_writer', seq: 4 }]);
    expect(sessionAlerts(facts({ run: run({}), last_activity_ms: 0 }, live), THRESHOLDS)).toEqual([]);
  });

  it('raise a WAL past 90% of the ceiling, and a torn tail', () => {
    expect(sessionAlerts(facts({ size_bytes: Math.floor(0.9 * WAL_BYTES_CEILING) }), THRESHOLDS)).toEqual([]);
    expect(kinds(sessionAlerts(facts({ size_bytes: Math.ceil(0.9 * WAL_BYTES_CEILING) + 1, torn_tail: { offset: 9, bytes: 3 } }), THRESHOLDS))).toEqual(['near_ceiling', 'torn_tail']);
  });

  it('raise nothing while the session is first read', () => {
    expect(sessionAlerts(facts({ status: 'loading', torn_tail: { offset: 9, bytes: 3 } }), THRESHOLDS)).toEqual([]);
  });
});

const alert = (session: string, seq: number): Alert => ({ session, kind: 'attention', attention: 'close_out', seq, severity: 'critical', waits_for: '', link: '' });

describe('the alert tracker', () => {
  it('reports the first look as one summary, then fires each new occurrence once and clears it when gone', () => {
    const tracker = new AlertTracker();
    expect(tracker.update([alert('a', 1), alert('b', 1)], 0, 3)).toEqual([{ type: 'summary', at_ms: 0, alerts: [alert('a', 1), alert('b', 1)], sessions: 3 }]);
    expect(tracker.update([alert('a', 1), alert('b', 1)], 1, 3)).toEqual([]);
    expect(tracker.update([alert('a', 1), alert('b', 1), alert('c', 2)], 2, 3)).toEqual([{ type: 'fired', at_ms: 2, alert: alert('c', 2) }]);
    expect(tracker.update([alert('a', 1), alert('c', 2)], 3, 3)).toEqual([{ type: 'cleared', at_ms: 3, alert: alert('b', 1) }]);
    expect(tracker.update([alert('a', 1), alert('a', 2), alert('c', 2)], 4, 3)).toEqual([{ type: 'fired', at_ms: 4, alert: alert('a', 2) }]);
    expect(tracker.current()).toEqual([alert('a', 1), alert('c', 2), alert('a', 2)]);
  });

  it('holds back a session past its rate, says so once, and fires the rest in the next window', () => {
    const tracker = new AlertTracker({ fired_per_session_max: 2, window_ms: 100, active_max: 100 });
    tracker.update([], 0, 1);
    const four = [1, 2, 3, 4].map((seq) => alert('a', seq));
    const first = tracker.update(four, 10, 1);
    expect(first.map((event) => event.type)).toEqual(['fired', 'fired', 'suppressed']);
    expect(first[2]).toEqual({ type: 'suppressed', at_ms: 10, session: 'a', alerts: 2 });
    expect(tracker.update(four, 50, 1)).toEqual([]);
    expect(tracker.update(four, 111, 1)).toEqual([{ type: 'fired', at_ms: 111, alert: alert('a', 3) }, { type: 'fired', at_ms: 111, alert: alert('a', 4) }]);
  });
});

describe('the alert board', () => {
  it('keeps a first look as current (not recent), a fired one current and recent, a clear recent only', () => {
    const board = new AlertBoard(THRESHOLDS);
    expect(board.view()).toMatchObject({ revision: 0, looked: false, current: [], recent: [] });
    board.take(null, [{ type: 'summary', at_ms: 1, alerts: [alert('a', 1)], sessions: 2 }]);
    board.take(null, [{ type: 'fired', at_ms: 2, alert: { ...alert('b', 1), severity: 'warning' } }, { type: 'fired', at_ms: 3, alert: alert('c', 1) }]);
    const view = board.view();
    expect(view).toMatchObject({ revision: 2, looked: true, current_left_out: 0, thresholds: THRESHOLDS });
    // The critical first, newest first; a warning after them.
    expect(view.current.map((shown) => [shown.key, shown.since_ms])).toEqual([['c', 3], ['a', 1], ['b', 2]]);
    expect(view.recent.map((event) => [event.type, event.key])).toEqual([['fired', 'c'], ['fired', 'b']]);
    board.take(null, [{ type: 'cleared', at_ms: 4, alert: alert('a', 1) }, { type: 'suppressed', at_ms: 4, session: 'c', alerts: 3 }]);
    expect(board.view().current.map((shown) => shown.key)).toEqual(['c', 'b']);
    expect(board.view().recent.map((event) => [event.type, event.key])).toEqual([['suppressed', 'c'], ['cleared', 'a'], ['fired', 'c'], ['fired', 'b']]);
  });

  it("keys a fleet host's alert as the fleet keys its session, apart from another host's same alert", () => {
    const board = new AlertBoard(null, (host, session) => `${host}.${session}`);
    board.take('alpha', [{ type: 'fired', at_ms: 1, alert: alert('s', 1) }]);
    board.take('beta', [{ type: 'fired', at_ms: 2, alert: alert('s', 1) }]);
    board.take('alpha', [{ type: 'cleared', at_ms: 3, alert: alert('s', 1) }]);
    expect(board.view().current.map((shown) => [shown.key, shown.host])).toEqual([['beta.s', 'beta']]);
  });

  it('holds its bounds: current at its limit, recent at RECENT_ALERT_EVENTS_MAX, shown at SHOWN_ALERTS_MAX', () => {
    const board = new AlertBoard(null, undefined, SHOWN_ALERTS_MAX + 10);
    const fired = Array.from({ length: SHOWN_ALERTS_MAX + 20 }, (_, index): AlertEvent => ({ type: 'fired', at_ms: index, alert: alert(`s${index}`, 1) }));
    board.take(null, fired);
    const view = board.view();
    expect(view.current).toHaveLength(SHOWN_ALERTS_MAX);
    expect(view.current_left_out).toBe(10);
    expect(view.recent).toHaveLength(RECENT_ALERT_EVENTS_MAX);
    expect(view.recent[0]).toMatchObject({ key: `s${SHOWN_ALERTS_MAX + 19}` });
  });
});

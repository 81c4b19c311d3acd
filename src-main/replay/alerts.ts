// The alerts of one session, from its summary (the fold's, laid over with the lease) and its lease probe alone
// (docs/alerts.md): pure, so the CLI, the fleet's agent and the app raise the same alerts from the same facts.
import { DEFAULT_ALERT_THRESHOLDS, type Alert, type AlertThresholds } from '../../src-shared/alerts.js';
import type { LeaseView, SessionSummary } from '../../src-shared/ipc.js';
import { WAL_BYTES_CEILING } from '../../src-shared/wal.js';

/** What a session's alerts are computed from. */
export interface AlertFacts {
  summary: SessionSummary;
  /** An export (a copy) has no writer: it never raises a writer's alert. */
  is_export: boolean;
  /** The session's address (its folder, or an export's file). */
  link: string;
  lease: LeaseView;
  /** A free lease whose last holder was a process of this host that is no longer alive (the caller asked the
   *  host: the one fact here that is not in the WAL or the lease file). */
  holder_gone: boolean;
  now_ms: number;
}

/** The session's alerts as they stand; none while it is first read. */
export function sessionAlerts(facts: AlertFacts, thresholds: AlertThresholds = DEFAULT_ALERT_THRESHOLDS): Alert[] {
  const { summary } = facts;
  if (summary.status === 'loading') return [];
  const alerts: Alert[] = [];
  const raise = (alert: Omit<Alert, 'session' | 'link' | 'attention'> & { attention?: Alert['attention'] }): void => {
    alerts.push({ session: summary.key, link: facts.link, attention: null, ...alert });
  };
  if (summary.attention !== null) {
    const critical = summary.attention.kind !== 'finalize' && summary.attention.kind !== 'wait_held';
    raise({ kind: 'attention', attention: summary.attention.kind, seq: attentionSeq(summary), severity: critical ? 'critical' : 'warning', waits_for: summary.attention.message });
  }
  for (const call of summary.run?.open_calls ?? []) {
    if (call.state !== 'held' || call.held_at_ms === null) continue;
    const waited_ms = facts.now_ms - call.held_at_ms;
    if (waited_ms <= thresholds.held_after_ms) continue;
    const waits_for = `the provider's result for ${call.name} ${call.tool_call_id}, held ${minutes(waited_ms)}: it clears when the result is recorded, or Cancel or Seal closes the call`;
    raise({ kind: 'held_too_long', seq: call.seq, severity: 'warning', waits_for });
  }
  if (!facts.is_export) writerAlerts(facts, thresholds, raise);
  if (summary.size_bytes > thresholds.ceiling_share * WAL_BYTES_CEILING) {
    const share = Math.floor((summary.size_bytes / WAL_BYTES_CEILING) * 100);
    raise({ kind: 'near_ceiling', seq: 0, severity: 'warning', waits_for: `the WAL is ${share}% of its 1 GiB ceiling and its terminal reserve is near: the run ends at the ceiling; start a new session for more work` });
  }
  if (summary.torn_tail !== null) {
    raise({ kind: 'torn_tail', seq: summary.last_seq, severity: 'warning', waits_for: `${summary.torn_tail.bytes} bytes after the last frame (offset ${summary.torn_tail.offset}) are torn: nothing committed is lost; the next writer under the lease truncates them` });
  }
  return alerts;
}

type Raise = (alert: Omit<Alert, 'session' | 'link' | 'attention'>) => void;

/** A writer that is gone while the run is open, or alive and silent while a call is in flight. A gone writer
 *  whose session is in the attention queue is that entry's alert alone: the entry says what the death left to do
 *  (a close-out owed, a finish), and one death is one alert, not two. */
function writerAlerts(facts: AlertFacts, thresholds: AlertThresholds, raise: Raise): void {
  const { summary, lease } = facts;
  const open = summary.episode_state !== null && summary.episode_state !== 'finished';
  if (lease.state === 'free' && lease.last !== null && facts.holder_gone && open && summary.attention === null) {
    const who = `pid ${lease.last.pid} on ${lease.last.host} (lease epoch ${lease.last.epoch})`;
    raise({ kind: 'stale_writer', seq: summary.last_seq, severity: 'critical', waits_for: `its writer, ${who}, is gone and the lease is free while the run is open: a recovery or the runtime takes it on` });
  }
  const in_flight = summary.run?.open_calls.find((call) => call.state === 'in_flight');
  if (lease.state === 'live' && in_flight !== undefined && summary.last_activity_ms !== null) {
    const silent_ms = facts.now_ms - summary.last_activity_ms;
    if (silent_ms > thresholds.silent_after_ms) {
      raise({ kind: 'silent_writer', seq: in_flight.seq, severity: 'warning', waits_for: `the live writer appended nothing for ${minutes(silent_ms)} while ${in_flight.name} ${in_flight.tool_call_id} is in flight: it clears at its next append` });
    }
  }
}

/** The record the queue entry is about: the first unconfirmed call nobody checked, the held call, or the last
 *  record (a damaged WAL's last good one, a run owing its finish). An acknowledgement of one call of several
 *  moves it to the next call: a new occurrence. */
function attentionSeq(summary: SessionSummary): number {
  const unchecked = summary.run?.unconfirmed.find((call) => call.acknowledged === null);
  if (unchecked !== undefined) return unchecked.intent_seq ?? unchecked.closed_out_seq ?? summary.last_seq;
  const held = summary.run?.open_calls.find((call) => call.state === 'held');
  return held?.seq ?? summary.last_seq;
}

function minutes(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

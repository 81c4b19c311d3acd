// The recovery history of a WAL: every operator_action record (wal-format §6: who approved which action, why,
// from which view, when) with the records its action appended after it under the same lease epoch. Fed one
// frame at a time, so a reader streaming a WAL and an index walking one build it the same way.
import { FINDINGS, type Finding, type JsonValue, type RecoveryEntry } from '../../src-shared/replay.js';

/** Records listed per action; a close-out writes a handful, so more means something else wrote there. */
export const RECOVERY_RECORDS_LISTED_MAX = 200;
const TEXT_CHARS_MAX = 2_000;

export interface LoggedFrame {
  seq: number;
  type: string;
  fence: number;
  /** Needed only for operator_action frames and a WAL's first lineage frame (a successor names its retire). */
  payload: JsonValue;
}

export class RecoveryLog {
  private readonly found: RecoveryEntry[] = [];
  private open: RecoveryEntry | null = null;

  push(frame: LoggedFrame): void {
    if (frame.seq === 0) {
      // Lineage frames are the writer's, not an action's, but for the successor a retire made: it names the retire.
      const retire = retireOf(frame);
      if (retire !== null) this.found.push(retire);
      return;
    }
    if (frame.type === 'operator_action') {
      this.open = entryOf(frame);
      this.found.push(this.open);
      return;
    }
    const open = this.open;
    if (open === null) return;
    if (frame.fence !== open.fence) {
      this.open = null;
      return;
    }
    if (open.records.length === RECOVERY_RECORDS_LISTED_MAX) open.records_cut = true;
    else open.records.push({ seq: frame.seq, type: frame.type });
  }

  /** An action's records are being collected: every frame must be pushed (else only operator_action frames). */
  get collecting(): boolean {
    return this.open !== null;
  }

  entries(): RecoveryEntry[] {
    return this.found;
  }
}

/** The retire a successor's lineage frame records (its `retired` member), as an entry; null for any other frame. */
function retireOf(frame: LoggedFrame): RecoveryEntry | null {
  const lineage = mapOf(frame.payload);
  const retired = lineage !== null && Object.hasOwn(lineage, 'retired') ? mapOf(lineage['retired']!) : null;
  if (retired === null) return null;
  const entry = entryOf({ ...frame, payload: { ...retired, action: 'retire', reason: retired['audit_reason'] ?? null } });
  const texts = (value: JsonValue | undefined) => (typeof value === 'string' ? value.slice(0, TEXT_CHARS_MAX) : '');
  const cuts = Array.isArray(retired['cuts']) ? retired['cuts'].slice(0, RETIRE_CUTS_MAX).map(mapOf).filter((cut) => cut !== null) : [];
  const whole = (value: JsonValue | undefined) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
  return {
    ...entry,
    retired: {
      wal_id: texts(retired['wal_id']),
      reason: texts(retired['retired_as']),
      cuts: cuts.map((cut) => ({ of: cut['of'] === 'archive' ? 'archive' : 'wal', offset: whole(cut['offset']), bytes: whole(cut['bytes']), kept_in: typeof cut['kept_in'] === 'string' ? cut['kept_in'].slice(0, TEXT_CHARS_MAX) : null })),
    },
  };
}
/** A retire cuts at most the live WAL's torn tail and the archive's. */
const RETIRE_CUTS_MAX = 2;

function mapOf(value: JsonValue): { [key: string]: JsonValue } | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
}

function entryOf(frame: LoggedFrame): RecoveryEntry {
  const payload = mapOf(frame.payload) ?? {};
  const member = (key: string): JsonValue | undefined => (Object.hasOwn(payload, key) ? payload[key] : undefined);
  const text = (key: string): string => {
    const value = member(key);
    return typeof value === 'string' ? value.slice(0, TEXT_CHARS_MAX) : '';
  };
  const count = (key: string): number | null => {
    const value = member(key);
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
  };
  return {
    seq: frame.seq,
    action: text('action'),
    operator: text('operator'),
    reason: text('reason'),
    via: text('via'),
    ts_ms: count('ts_ms'),
    based_on_seq: count('based_on_seq'),
    fence: frame.fence,
    records: [],
    records_cut: false,
    os_user: Object.hasOwn(payload, 'os_user') ? text('os_user') : null,
    call: acknowledgedCall(member('call')),
    finding: (FINDINGS as readonly unknown[]).includes(member('finding')) ? (member('finding') as Finding) : null,
    retired: null,
  };
}

/** An acknowledgement's `call`: {batch_id, tool_call_id}, both text; null when it is not one. */
function acknowledgedCall(value: JsonValue | undefined): RecoveryEntry['call'] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const batch_id = Object.hasOwn(value, 'batch_id') ? value['batch_id'] : undefined;
  const tool_call_id = Object.hasOwn(value, 'tool_call_id') ? value['tool_call_id'] : undefined;
  return typeof batch_id === 'string' && typeof tool_call_id === 'string' ? { batch_id: batch_id.slice(0, TEXT_CHARS_MAX), tool_call_id: tool_call_id.slice(0, TEXT_CHARS_MAX) } : null;
}

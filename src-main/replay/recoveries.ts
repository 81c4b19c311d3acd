// The recovery history of a WAL: every operator_action record (wal-format §6: who approved which action, why,
// from which view, when) with the records its action appended after it under the same lease epoch. Fed one
// frame at a time, so a reader streaming a WAL and an index walking one build it the same way.
import type { JsonValue, RecoveryEntry } from '../../src-shared/replay.js';

/** Records listed per action; a close-out writes a handful, so more means something else wrote there. */
export const RECOVERY_RECORDS_LISTED_MAX = 200;
const TEXT_CHARS_MAX = 2_000;

export interface LoggedFrame {
  seq: number;
  type: string;
  fence: number;
  /** Needed only for operator_action frames. */
  payload: JsonValue;
}

export class RecoveryLog {
  private readonly found: RecoveryEntry[] = [];
  private open: RecoveryEntry | null = null;

  push(frame: LoggedFrame): void {
    if (frame.seq === 0) return; // lineage frames are the writer's, not the action's
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

  entries(): RecoveryEntry[] {
    return this.found;
  }
}

function entryOf(frame: LoggedFrame): RecoveryEntry {
  const payload = typeof frame.payload === 'object' && frame.payload !== null && !Array.isArray(frame.payload) ? frame.payload : {};
  const text = (key: string): string => {
    const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
    return typeof value === 'string' ? value.slice(0, TEXT_CHARS_MAX) : '';
  };
  const count = (key: string): number | null => {
    const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
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
  };
}

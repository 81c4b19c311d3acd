// The counters a session carries across lineages (wal-format §11): `next_tag` (runner tags, runner-tags/v1,
// never reuse a number at one address) and `next_notice_seq` (compaction notices are numbered per session).
// A lineage's own start values come from its lineage frames; what it used comes from its records.
import type { CborValue, Payload, ReadFrame } from '../../src-shared/wal.js';

export interface LineageCounters {
  next_tag: number;
  next_notice_seq: number;
}

/** Both counters start at 1 in a session's first lineage: tag and notice 0 are never handed out. */
export const COUNTERS_START: LineageCounters = { next_tag: 1, next_notice_seq: 1 };

/** The highest runner tag in a record's `tags` member: one number, or arrays of them (one array per input
 *  message); 0 when there is none. Anything but a non-negative integer is not a tag. */
export function highestTag(value: CborValue | undefined): number {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : 0;
  if (!Array.isArray(value)) return 0;
  return value.reduce<number>((highest, item) => Math.max(highest, highestTag(item)), 0);
}

/** Folds frames into the counters a successor must carry on from. */
export class CounterFold {
  private counters: LineageCounters = { ...COUNTERS_START };

  /** `payload`: the frame's payload, or as much of it as the counters read (`next_tag`, `next_notice_seq`,
   *  `tags`, `notice_seq`). */
  push(frame: Pick<ReadFrame, 'seq' | 'type'>, payload: Payload | null): void {
    if (payload === null) return;
    if (frame.seq === 0) {
      this.raise(uint(payload['next_tag']), uint(payload['next_notice_seq']));
      return;
    }
    const notice = frame.type === 'compaction_notice' ? uint(payload['notice_seq']) : 0;
    this.raise(highestTag(payload['tags']) + 1, notice === 0 ? 0 : notice + 1);
  }

  /** Takes in counters known from elsewhere (a tombstone of the same lineage): counters only grow. */
  raise(next_tag: number, next_notice_seq: number): void {
    this.counters = {
      next_tag: Math.max(this.counters.next_tag, next_tag),
      next_notice_seq: Math.max(this.counters.next_notice_seq, next_notice_seq),
    };
  }

  get value(): LineageCounters {
    return { ...this.counters };
  }
}

/** A lineage frame's start counters; absent fields mean the session's first values. */
export function startCounters(payload: { [key: string]: CborValue } | null): LineageCounters {
  return {
    next_tag: Math.max(COUNTERS_START.next_tag, uint(payload?.['next_tag'])),
    next_notice_seq: Math.max(COUNTERS_START.next_notice_seq, uint(payload?.['next_notice_seq'])),
  };
}

function uint(value: CborValue | undefined): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

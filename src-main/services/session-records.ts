// One session's records as the Records list and the record pane show them: the verified records its read indexed,
// then (after a non-tail damage) the frames a resynchronising scan finds past it; a record re-read from disk when
// opened; the tool output read last; the recovery history. Lives with one residency of its session model, beside
// its tailer: everything here is dropped with it.
import type { AfterDamageView, OutputPage, RecordDetail, RecordRow } from '../../src-shared/ipc.js';
import { AFTER_DAMAGE_ROWS_MAX, NotFoundError, RECORD_HEX_BYTES_MAX, RECORD_PAYLOAD_CHARS_MAX } from '../../src-shared/ipc.js';
import { appendAll } from '../../src-shared/arrays.js';
import { toJsonValue } from '../../src-shared/json.js';
import type { JsonValue, RecoveryEntry } from '../../src-shared/replay.js';
import type { WalErrorInfo } from '../../src-shared/wal.js';
import { describe, hex, readFrameAt, scanAfterDamage, type FileIO, type WalTarget } from '../engine/index.js';
import { walPayloadReader } from '../recovery/payloads.js';
import { RecoveryLog } from '../replay/recoveries.js';
import { OUTPUT_WHOLE, OutputRows } from '../views/output-rows.js';
import { valuePreview } from '../views/value-preview.js';
import type { RecordIndex } from './record-index.js';
import type { SessionTailer } from './session-tailer.js';

/** The frames found past a damage: listed read-only after the verified records, never folded, never planned from. */
interface AfterDamage {
  view: AfterDamageView;
  rows: RecordRow[];
}

export class SessionRecords {
  /** Undefined: not scanned since the WAL was last read; null: nothing to list. */
  private after_damage: AfterDamage | null | undefined = undefined;
  /** The tool output the output view reads last, laid out in rows (one kept: an output is up to 16 MiB). */
  private output_: OutputRows | null = null;
  /** The recovery history of the records indexed so far (`logged` of them), for the index it was read from. */
  private recovery_log: { index: RecordIndex; log: RecoveryLog; logged: number } | null = null;

  constructor(
    private readonly target: WalTarget,
    private readonly io: FileIO,
    private readonly tailer: SessionTailer,
  ) {}

  private get index(): RecordIndex {
    return this.tailer.index;
  }

  /** The WAL was read again: what lies past a damage is scanned afresh; `restarted`, from its start, so the output
   *  kept may be another file's. */
  reread(restarted: boolean): void {
    this.after_damage = undefined;
    if (restarted) this.output_ = null;
  }

  /** Verified records and the frames listed past `damage`: the Records list's length. */
  count(damage: WalErrorInfo | null): number {
    return this.index.length + (this.afterDamage(damage)?.rows.length ?? 0);
  }

  /** The verified records, then (past the last) the frames found after `damage`. */
  rows(first: number, size: number, damage: WalErrorInfo | null): RecordRow[] {
    const rows = this.index.rows(first, size);
    const verified = this.index.length;
    const after = this.afterDamage(damage)?.rows ?? [];
    if (first + size > verified && after.length > 0) appendAll(rows, after.slice(Math.max(0, first - verified), first + size - verified));
    return rows;
  }

  /** After a non-tail damage (a corrupt frame, a broken sequence), the frames a resynchronising scan finds past it
   *  (engine/damage-scan.ts, as the support report counts them). Scanned once per read of the WAL. */
  afterDamage(damage: WalErrorInfo | null): AfterDamage | null {
    if (this.after_damage !== undefined) return this.after_damage;
    if (damage === null || damage.offset === null || (damage.kind !== 'non_tail_corruption' && damage.kind !== 'sequence_error')) return (this.after_damage = null);
    const first_index = this.index.length;
    const rows: RecordRow[] = [];
    let found;
    try {
      found = scanAfterDamage(this.target.wal_path, damage.offset, this.io, (frame) => {
        if (rows.length < AFTER_DAMAGE_ROWS_MAX) rows.push({ ...frame, index: first_index + rows.length, unverified: true });
      });
    } catch (scan_error) {
      // The file went away or cannot be read now: the verified records stand, nothing is listed after them.
      process.emitWarning(`walscope: cannot scan ${this.target.wal_path} past the damage: ${describe(scan_error)}`);
      return (this.after_damage = null);
    }
    const view = { damage_offset: damage.offset, first_index, frames: found.frames, records: found.records, seq_first: found.seq_first, seq_last: found.seq_last, listed: rows.length, scan_cut: found.scan_cut };
    return (this.after_damage = { view, rows });
  }

  /** One frame re-read from disk: digest re-checked, payload decoded, raw bytes as hex; `timelineRowOf`: where
   *  a record's seq shows in the timeline (null while the session is not resident). */
  record(at: number, damage: WalErrorInfo | null, timelineRowOf: ((seq: number) => number | null) | null): RecordDetail | null {
    if (!Number.isSafeInteger(at) || at < 0) return null;
    const verified = this.index.length;
    const row = at < verified ? this.index.row(at) : this.afterDamage(damage)?.rows[at - verified];
    if (row === undefined) return null;
    const frame = readFrameAt(this.target.wal_path, row.offset, { io: this.io });
    const bytes = frame.kind === 'io' ? Buffer.alloc(0) : frame.bytes;
    // Intact, and the very frame that was indexed: a file rewritten since holds something else at this offset.
    const intact = frame.kind === 'ok' && bytes.length === row.size_bytes;
    const decoded = intact ? frame.body : null;
    const whole = decoded?.kind === 'ok' && decoded.body.payload !== null ? toJsonValue(decoded.body.payload) : null;
    const payload = valuePreview(whole, RECORD_PAYLOAD_CHARS_MAX);
    const shown = bytes.subarray(0, RECORD_HEX_BYTES_MAX);
    const timeline_row = row.seq > 0 && row.unverified !== true && timelineRowOf !== null ? (timelineRowOf(row.seq) ?? -1) : -1;
    return {
      ...row,
      digest_ok: intact,
      payload,
      payload_truncated: payload !== whole,
      hex: hex(shown),
      hex_truncated: bytes.length > shown.length,
      timeline_row: timeline_row < 0 ? null : timeline_row,
    };
  }

  /** Rows of the output of the tool_result at `seq`, read whole from its record once (digest re-checked) and
   *  kept for the pages after; null when no record has that seq. */
  output(seq: number, start: number, count: number): OutputPage | null {
    const at = this.index.frameOfSeq(seq);
    if (at === null) return null;
    const row = this.index.row(at);
    if (row.type !== 'tool_result') throw new NotFoundError(`record seq ${seq} is a ${row.type}, not a tool_result: it has no output`);
    if (this.output_?.isOf(row) !== true) this.output_ = new OutputRows(row, walPayloadReader(this.target.wal_path, this.io)(row.offset, OUTPUT_WHOLE)['output'] ?? null);
    return this.output_.page(start, count);
  }

  /** Every operator_action of the WAL with the records its action wrote (payloads re-read from disk). */
  recoveries(): RecoveryEntry[] {
    const index = this.index;
    // Fed from where the last call stopped: a live append logs its own records, not the whole WAL's again.
    if (this.recovery_log?.index !== index) this.recovery_log = { index, log: new RecoveryLog(), logged: 0 };
    const { log } = this.recovery_log;
    for (let at = this.recovery_log.logged; at < index.length; at++) {
      const type = index.typeName(at);
      // The first lineage frame too: a successor names the retire that made it.
      const read_payload = type === 'operator_action' || (at === 0 && type === 'lineage');
      log.push({ seq: index.seqAt(at), type, fence: index.fenceAt(at), payload: read_payload ? this.payloadAt(index.offsetAt(at)) : null });
    }
    this.recovery_log.logged = index.length;
    return [...log.entries()];
  }

  /** The payload of the frame at `offset`, re-read from disk and its digest re-checked; null when it is not intact. */
  private payloadAt(offset: number): JsonValue {
    const frame = readFrameAt(this.target.wal_path, offset, { io: this.io });
    return frame.kind === 'ok' && frame.body.kind === 'ok' && frame.body.body.payload !== null ? toJsonValue(frame.body.body.payload) : null;
  }
}

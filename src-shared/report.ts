// The support report (`walscope report`, the app's "Export report"): the facts a support engineer needs to
// answer a customer about one WAL they received. Plain JSON; the HTML form (report-html.ts) shows the same
// facts. Everything in it that came from the WAL is untrusted text.
import type { CallClass, RecoveryEntry, RunSignal } from './replay.js';

export const REPORT_FORMAT = 'walscope-report/1';

export interface ReportIntegrity {
  /** intact: every byte read; cut: the file ends in a torn tail; damaged: refused mid-file; not_a_wal: the
   *  file is not a WAL at all (wal-format §5 rule 0); refused: other (a newer writer, a malformed frame, …). */
  verdict: 'intact' | 'cut' | 'damaged' | 'not_a_wal' | 'refused';
  summary: string;
  /** The trusted prefix. */
  intact: { frames: number; records: number; last_seq: number; bytes: number };
  damage: { kind: string; offset: number | null; message: string } | null;
  /** Non-tail damage: digest-valid frames found after it (reported, unverified by sequence, never used). */
  after_damage: AfterDamage | null;
  /** How much is lost, in one or two sentences. */
  lost: string;
  /** What to ask the customer for, when the file may be damaged in transfer. */
  ask_customer: string | null;
}

export interface ReportLineage {
  offset: number;
  wal_id: string | null;
  fence: number;
  writer: string | null;
  created_ms: number | null;
}

export interface ReportCall {
  tool_call_id: string;
  name: string;
  class: CallClass;
  /** Why it has its class, with the record's own reason when it has one. */
  why: string;
  outcome: string | null;
  is_error: boolean;
  dispatched_at_ms: number | null;
  finished_at_ms: number | null;
}

export interface ReportEpisode {
  episode: number;
  run_id: string | null;
  state: string;
  finish_reason: string | null;
  steps: number;
  failed_attempts: number;
  /** Numeric usage fields summed over its steps (input_tokens, output_tokens, …). */
  tokens: Record<string, number>;
  first_ms: number | null;
  last_ms: number | null;
  calls: ReportCall[];
}

/** What a scan past a non-tail damage found. */
export interface AfterDamage {
  /** Digest-valid frames found after the damage (lineage frames included). */
  frames: number;
  /** Of them, records (seq > 0). */
  records: number;
  seq_first: number | null;
  seq_last: number | null;
  /** Bytes after the damage offset that no intact frame covers. */
  unaccounted_bytes: number;
  /** The scan stopped at one of its limits before the end of the file: the counts are a lower bound. */
  scan_cut: boolean;
}

export interface SupportReport {
  format: typeof REPORT_FORMAT;
  generated_ms: number;
  file: { name: string; size_bytes: number; sha256: string };
  session: string | null;
  wal_id: string | null;
  integrity: ReportIntegrity;
  lineage: ReportLineage[];
  run: RunSignal;
  episodes: ReportEpisode[];
  resume: { action: string; message: string; records: { type: string; barrier: number }[]; indeterminate: string[] };
  recoveries: RecoveryEntry[];
  totals: { tokens: Record<string, number>; failed_attempts: number; first_ms: number | null; last_ms: number | null; times_recorded: boolean };
}

// `walscope verify PATH [--json] [--full-scan]`: checks every WAL that PATH names, read-only.
import { appendAll } from '../../src-shared/arrays.js';
import type { VerifyReport, WalErrorInfo } from '../../src-shared/wal.js';
import fs from 'node:fs';
import { verifyReportOf, verifyTarget, type WalTarget, classifyPath } from '../engine/index.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { formatBytes } from '../../src-shared/format.js';
import { targetsOf } from './targets.js';
import { plural, printable, runLines, textLines } from './format.js';
import type { RunSignal } from '../../src-shared/replay.js';
import { attentionOf, LISTED_STATUSES, refusedStatus, STATUS_LABEL, WHAT_TO_DO, type Attention, type ListedStatus } from '../../src-shared/status.js';
import { archiveRefusal, refusedRun } from '../replay/signals.js';
import { attentionLabel } from '../../src-shared/words.js';
import { replayTarget } from '../recovery/replay-target.js';
import { archiveLines } from './lineages.js';

export const verifyCommand: Command = {
  summary: 'check a WAL, a session folder or every session of a state root (read-only)',
  usage: 'walscope verify PATH [--json] [--full-scan]',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' }, 'full-scan': { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one PATH');
    const target = positionals[0]!;
    const verified = targetsOf(target).map((wal) => verifyWithRun(wal, values['full-scan'] === true));
    const reports = verified.map((entry) => entry.report);
    const isRoot = classifyPath(target) === 'state_root';
    if (values.json) await writeOut(`${JSON.stringify(isRoot ? reports : reports[0], null, 2)}\n`);
    else await writeOut(verified.map(humanReport).join('\n') + (isRoot ? rootSummary(reports) : ''));
    return reports.every((report) => report.error === null && report.archive?.error == null) ? EXIT_OK : EXIT_REFUSED;
  },
};

/** verify's report plus how the last run stands (`run.status`, the one status word of wal-format §10) and its
 *  place in the attention queue. `run` is null where verify does not fold the WAL (`not_folded`, in the text
 *  output only, says why): its `attention` is then a refusal's alone. */
type VerifiedRun = VerifyReport & { run: RunSignal | null; attention: Attention | null };

interface Verified {
  report: VerifiedRun;
  not_folded: string | null;
  is_export: boolean;
}

/** Up to this size verify folds the WAL in its one read to say how the run stands; past it, verify stays a
 *  streaming check that holds no records in memory (a 1 GiB WAL's fold would). */
export const RUN_FOLD_BYTES_MAX = 64 * 1_048_576;

function verifyWithRun(wal: WalTarget, full_scan: boolean): Verified {
  const replay_says = '`walscope replay` says how the run stands';
  if (full_scan) return unfolded(wal, verifyTarget(wal, undefined, true), `--full-scan checks integrity alone; ${replay_says}`);
  if (sizeOf(wal.wal_path) > RUN_FOLD_BYTES_MAX) return unfolded(wal, verifyTarget(wal), `over ${formatBytes(RUN_FOLD_BYTES_MAX)}; ${replay_says}`);
  const replay = replayTarget(wal);
  // `too_large` is the fold's bound on what it builds, never the reader's: verify needs no items, so the WAL the
  // reader read to its end stays intact, and the bound is named where the run would be.
  const fold_refusal = replay.read.error?.kind === 'too_large' ? replay.read.error : null;
  if (fold_refusal !== null) return unfolded(wal, verifyReportOf(wal, { ...replay.read, error: null }), `too large: ${fold_refusal.message}`);
  const report = verifyReportOf(wal, replay.read);
  const refusal = refusalOf(report);
  // The archive is verify's alone: a session whose archive it refuses is refused, whatever its live WAL says.
  const run = refusal === null || report.error !== null ? replay.run : refusedRun(replay.run, refusal, wal.is_export);
  return { report: { ...report, run, attention: run.attention }, not_folded: null, is_export: wal.is_export };
}

/** A report without the run: only a refusal places it in the attention queue. */
function unfolded(wal: WalTarget, report: VerifyReport, why: string): Verified {
  const refusal = refusalOf(report);
  const attention = refusal === null ? null : attentionOf(refusedStatus(refusal.kind), 'none', wal.is_export);
  return { report: { ...report, run: null, attention }, not_folded: why, is_export: wal.is_export };
}

/** Why verify refuses the session: its WAL, else its archive (as the WAL's error kinds name it). */
function refusalOf(report: VerifyReport): WalErrorInfo | null {
  if (report.error !== null) return report.error;
  const archive = report.archive?.error ?? null;
  return archive === null ? null : archiveRefusal(archive);
}

/** 0 when the path cannot be stat'ed (a looping link, no permission): the read then names the problem. */
function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function humanReport({ report, not_folded, is_export }: Verified): string {
  const name = report.session === null ? report.path : `session ${report.session} (${report.path})`;
  const where = is_export ? 'export' : 'state_root';
  const lines: string[] = [];
  const counts = `${plural(report.records, 'record')} (last seq ${report.last_seq}), ${plural(report.frames, 'frame')}`;
  if (report.error !== null) {
    const status = refusedStatus(report.error.kind);
    lines.push(`REFUSED  ${name}`);
    lines.push(`  ${STATUS_LABEL[status]}: ${printable(report.error.message, 600)}`);
    lines.push(`  what to do: ${WHAT_TO_DO[status][where]}`);
    // valid_bytes: where the refused frame starts, so only the prefix before it is counted, not the file.
    lines.push(`  intact before it: ${counts}, ${formatBytes(report.valid_bytes)} of the file's ${formatBytes(report.bytes)} (up to offset ${report.valid_bytes})`);
  } else {
    lines.push(`${report.archive?.error != null ? 'REFUSED' : report.torn_tail ? 'USABLE ' : 'OK     '}  ${name}`);
    lines.push(`  ${counts}, ${formatBytes(report.bytes)}; wal_id ${report.wal_id ?? '(none: empty file)'}`);
    lines.push(`  digests: ${report.digest_algorithms.join(', ') || 'none'}; features: ${report.features.join(', ') || 'none'}`);
  }
  if (report.run === null) lines.push(`  status: not folded (${printable(not_folded ?? '', 600)})`);
  else if (report.error === null && report.archive?.error == null) appendAll(lines, runLines(report.run, '  '));
  else if (report.error === null) lines.push(`  status: ${STATUS_LABEL[report.run.status]}: its archive is refused (below); the live WAL reads`);
  if ((report.run === null || report.archive?.error != null) && report.attention !== null) lines.push(`  needs attention (${attentionLabel(report.attention.kind)}): ${report.attention.message}`);
  if (report.torn_tail !== null) {
    const tail = report.torn_tail;
    lines.push(`  torn tail: ${plural(tail.bytes, 'byte')} at offset ${tail.offset} (${tail.reason.replaceAll('_', ' ')}) were never committed and are not used; ${WHAT_TO_DO.torn_tail[where]}`);
    if (tail.trailing_lineage.length > 0) lines.push(`  trailing lineage frames after the damage (reported, not used): offsets ${tail.trailing_lineage.join(', ')}`);
  }
  if (report.in_progress_tail !== null) {
    lines.push(`  tail in progress: a live writer is appending (${plural(report.in_progress_tail.bytes, 'byte')} at offset ${report.in_progress_tail.offset})`);
  }
  if (report.archive !== null) appendAll(lines, archiveLines(report.archive));
  return textLines(lines);
}

function rootSummary(reports: readonly VerifiedRun[]): string {
  const refused = reports.filter((report) => report.error !== null || report.archive?.error != null).length;
  const torn = reports.filter((report) => report.torn_tail !== null).length;
  const attention = reports.filter((report) => report.attention !== null).length;
  const counts = new Map<ListedStatus, number>();
  for (const report of reports) if (report.run !== null) counts.set(report.run.status, (counts.get(report.run.status) ?? 0) + 1);
  const by_status = LISTED_STATUSES.filter((status) => counts.has(status)).map((status) => `${counts.get(status)} ${STATUS_LABEL[status]}`).join(', ');
  return `\n${plural(reports.length, 'session')}: ${reports.length - refused} usable (${torn} with a torn tail), ${refused} refused; ${attention} need${attention === 1 ? 's' : ''} attention\n${by_status === '' ? '' : `by status: ${by_status}\n`}`;
}

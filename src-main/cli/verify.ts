// `walscope verify PATH [--json]`: checks every WAL that PATH names, read-only.
import type { VerifyReport } from '../../src-shared/wal.js';
import fs from 'node:fs';
import { verifyReportOf, verifyTarget, type WalTarget } from '../engine/inspect.js';
import { classifyPath } from '../engine/state-root.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { formatBytes } from '../../src-shared/format.js';
import { targetsOf } from './targets.js';
import { plural, printable, textLines } from './format.js';
import type { RunSignal } from '../../src-shared/replay.js';
import { replayTarget } from '../replay/report.js';
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

/** verify's report plus how the last run stands (`run.status` `finished_unconfirmed`: an unknown outcome);
 *  `run` is null where verify does not fold the WAL, and `not_folded` (text output only) says why. */
type VerifiedRun = VerifyReport & { run: RunSignal | null };

interface Verified {
  report: VerifiedRun;
  not_folded: string | null;
}

/** Up to this size verify folds the WAL in its one read to say how the run stands; past it, verify stays a
 *  streaming check that holds no records in memory (a 1 GiB WAL's fold would). */
export const RUN_FOLD_BYTES_MAX = 64 * 1_048_576;

function verifyWithRun(wal: WalTarget, full_scan: boolean): Verified {
  const replay_says = '`walscope replay` says how it stands';
  if (full_scan) return { report: { ...verifyTarget(wal, undefined, true), run: null }, not_folded: `--full-scan checks integrity alone; ${replay_says}` };
  if (sizeOf(wal.wal_path) > RUN_FOLD_BYTES_MAX) return { report: { ...verifyTarget(wal), run: null }, not_folded: `over ${formatBytes(RUN_FOLD_BYTES_MAX)}; ${replay_says}` };
  const replay = replayTarget(wal);
  // `too_large` is the fold's bound on what it builds, never the reader's: verify needs no items, so the WAL the
  // reader read to its end stays intact, and the bound is named where the run would be.
  const fold_refusal = replay.read.error?.kind === 'too_large' ? replay.read.error : null;
  if (fold_refusal !== null) return { report: { ...verifyReportOf(wal, { ...replay.read, error: null }), run: null }, not_folded: `${fold_refusal.kind.replaceAll('_', ' ')}: ${fold_refusal.message}` };
  return { report: { ...verifyReportOf(wal, replay.read), run: replay.run }, not_folded: null };
}

/** 0 when the path cannot be stat'ed (a looping link, no permission): the read then names the problem. */
function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function humanReport({ report, not_folded }: Verified): string {
  const name = report.session === null ? report.path : `session ${report.session} (${report.path})`;
  const lines: string[] = [];
  const counts = `${plural(report.records, 'record')} (last seq ${report.last_seq}), ${plural(report.frames, 'frame')}`;
  const summary = `${counts}, ${formatBytes(report.bytes)}`;
  if (report.error !== null) {
    lines.push(`REFUSED  ${name}`);
    lines.push(`  ${report.error.kind.replaceAll('_', ' ')}: ${report.error.message}`);
    lines.push(`  what to do: ${advice(report.error.kind)}`);
    // valid_bytes: where the refused frame starts, so only the prefix before it is counted, not the file.
    lines.push(`  intact before it: ${counts}, ${formatBytes(report.valid_bytes)} of the file's ${formatBytes(report.bytes)} (up to offset ${report.valid_bytes})`);
  } else {
    lines.push(`${report.archive?.error != null ? 'REFUSED' : report.torn_tail ? 'USABLE ' : 'OK     '}  ${name}`);
    lines.push(`  ${summary}; wal_id ${report.wal_id ?? '(none: empty file)'}`);
    lines.push(`  digests: ${report.digest_algorithms.join(', ') || 'none'}; features: ${report.features.join(', ') || 'none'}`);
  }
  if (report.run === null) lines.push(`  run: not folded (${printable(not_folded ?? '', 600)})`);
  else lines.push(`  run: ${report.run.status.replaceAll('_', ' ')}: ${printable(report.run.detail, 400)}`);
  for (const call of report.run?.unconfirmed ?? []) lines.push(`    UNCONFIRMED ${printable(call.tool_call_id, 120)}: ${printable(call.may_have, 400)}`);
  if (report.torn_tail !== null) {
    const tail = report.torn_tail;
    lines.push(`  torn tail: ${plural(tail.bytes, 'byte')} at offset ${tail.offset} (${tail.reason.replaceAll('_', ' ')}) were never committed and are not used; a writer opening this session under its lease truncates them`);
    if (tail.trailing_lineage.length > 0) lines.push(`  trailing lineage frames after the damage (reported, not used): offsets ${tail.trailing_lineage.join(', ')}`);
  }
  if (report.in_progress_tail !== null) {
    lines.push(`  tail in progress: a live writer is appending (${plural(report.in_progress_tail.bytes, 'byte')} at offset ${report.in_progress_tail.offset})`);
  }
  if (report.archive !== null) lines.push(...archiveLines(report.archive));
  return textLines(lines);
}

function advice(kind: string): string {
  switch (kind) {
    case 'newer_writer':
      return 'open it with a newer walscope that knows the named version or features; nothing was changed';
    case 'non_tail_corruption':
    case 'sequence_error':
      return 'committed data is damaged in the middle of the log; restore the WAL from a good copy — walscope never repairs or truncates it';
    case 'too_large':
      return 'the session holds more than walscope keeps in memory to show it; walscope verify still checks it whole, and nothing was changed';
    case 'tail_scan_bound':
      return 'the bytes after the damage hold more candidate frames than walscope checks by default; run walscope verify --full-scan to check every one — nothing was changed, and no writer truncates it meanwhile';
    case 'malformed_frame':
      return 'an intact frame is not in the format; report it to the runtime that wrote it — walscope never repairs it';
    default:
      return 'check that the path is readable and try again';
  }
}

function rootSummary(reports: readonly VerifiedRun[]): string {
  const refused = reports.filter((report) => report.error !== null || report.archive?.error != null).length;
  const torn = reports.filter((report) => report.torn_tail !== null).length;
  return `\n${plural(reports.length, 'session')}: ${reports.length - refused} usable (${torn} with a torn tail), ${refused} refused\n`;
}

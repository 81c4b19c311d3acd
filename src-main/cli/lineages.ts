// `walscope lineages SESSION_FOLDER [--json] [--find WAL_ID]`: a session's whole history (wal-format §11),
// newest first — the live `wal`, its sealed and deleted predecessors, missing parents — with every problem the
// chain shows. --find answers where one lineage is, and says "absent" only after reading the whole archive.
// Read-only: nothing is locked, created or written, so exports are read like sessions of a state root.
import type { ArchiveReport } from '../../src-shared/wal.js';
import {
  readFloor, type WalTarget, probeLease, walPath, findLineage, readHistory, type HistoryOptions, type LineageEntry,
  type LineageProblem,
} from '../engine/index.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { plural } from './format.js';
import { singleTarget } from './targets.js';

const WAL_ID_PATTERN = /^[0-9a-fA-F]{32}$/;

export const lineagesCommand: Command = {
  summary: 'list a session\'s lineages, newest first: live, sealed, deleted, missing (read-only)',
  usage: 'walscope lineages SESSION_FOLDER [--json] [--find WAL_ID]',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' }, find: { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one SESSION_FOLDER');
    const target = sessionTarget(positionals[0]!);
    const options = historyOptions(target);
    if (values.find !== undefined) return find(target.session_dir!, values.find, options, values.json === true);
    const history = readHistory(target.session_dir!, options);
    const json = { session: target.session, lineages: history.lineages.map(lineageJson), problems: history.problems };
    if (values.json) await writeOut(`${JSON.stringify(json, null, 2)}\n`);
    else await writeOut(historyText(target, history.lineages, history.problems));
    if (history.live_error !== null) process.stderr.write(`the live WAL is refused (${history.live_error.kind}): ${history.live_error.message}\n`);
    const corrupt = history.problems.some((problem) => problem.kind === 'archive_corruption');
    return corrupt || history.live_error !== null ? EXIT_REFUSED : EXIT_OK;
  },
};

function sessionTarget(folder: string): WalTarget {
  const target = singleTarget(folder, 'lineages');
  if (target.session_dir === null || target.member !== undefined || target.wal_path !== walPath(target.session_dir)) {
    throw new UsageError(`${folder}: lineages takes a session folder (it holds "wal" and, once a lineage is retired, "archive")`);
  }
  return target;
}

function historyOptions(target: WalTarget): HistoryOptions {
  const floor_features = target.root === null ? [] : readFloor(target.root);
  const live = target.root !== null && probeLease(target.session_dir!).state === 'live';
  return { floor_features, live };
}

async function find(session_dir: string, wal_id: string, options: HistoryOptions, json: boolean): Promise<number> {
  if (!WAL_ID_PATTERN.test(wal_id)) throw new UsageError(`--find takes a wal_id of 32 hex digits, not "${wal_id}"`);
  const lookup = findLineage(session_dir, wal_id.toLowerCase(), options);
  if (!lookup.found && !lookup.proven) {
    // Never "not found" from a partial read: the archive's error is the answer.
    if (json) await writeOut(`${JSON.stringify({ error: lookup.error }, null, 2)}\n`);
    process.stderr.write(`REFUSED: ${lookup.error.message}\n`);
    return EXIT_REFUSED;
  }
  const answer = lookup.found ? { found: true, where: lookup.where, offset: lookup.offset } : { found: false, proven: true };
  if (json) await writeOut(`${JSON.stringify(answer, null, 2)}\n`);
  else await writeOut(lookup.found ? `${wal_id}: ${lookup.where}${lookup.offset === null ? '' : ` (archive offset ${lookup.offset})`}\n` : `${wal_id}: not in this session (the whole archive was read)\n`);
  return EXIT_OK;
}

function lineageJson(entry: LineageEntry) {
  const { wal_id, parent_wal_id, where, first_seq, last_seq, next_tag, next_notice_seq, first_ms, last_ms, offset } = entry;
  return { wal_id, parent_wal_id, where, first_seq, last_seq, next_tag, next_notice_seq, first_ms, last_ms, offset };
}

function historyText(target: WalTarget, lineages: LineageEntry[], problems: LineageProblem[]): string {
  const lines = [`session ${target.session} (${target.session_dir}): ${plural(lineages.length, 'lineage')}, newest first`];
  for (const entry of lineages) {
    const seqs = entry.first_seq === null ? 'no records known' : `seq ${entry.first_seq}–${entry.last_seq}`;
    const counters = entry.next_tag === null ? '' : `, next_tag ${entry.next_tag}, next_notice_seq ${entry.next_notice_seq}`;
    const parent = entry.parent_wal_id === null ? '' : `, parent ${entry.parent_wal_id}`;
    lines.push(`  ${entry.where.padEnd(8)} ${entry.wal_id}  ${seqs}${counters}${parent}`);
  }
  for (const problem of problems) lines.push(`PROBLEM ${problem.kind}: ${problem.message}`);
  return `${lines.join('\n')}\n`;
}

/** The archive's lines in `verify`'s human report. */
export function archiveLines(archive: ArchiveReport): string[] {
  const lines = [`  archive: ${plural(archive.members, 'member')}, index ${archive.index}${archive.index === 'stale' || archive.index === 'missing' ? ' (usable: the members after it are found by reading their headers)' : ''}`];
  if (archive.error !== null) {
    // The message names its kind and offset ("archive corruption at offset 0 (…): …"): not said twice.
    lines.push(`  REFUSED archive: ${archive.error.message}`);
    lines.push('  what to do: restore the archive from a good copy; walscope never repairs it, and no lookup reports a lineage absent while it is damaged');
  }
  if (archive.torn_tail !== null) {
    lines.push(`  archive torn tail: ${plural(archive.torn_tail.bytes, 'byte')} at offset ${archive.torn_tail.offset} were never committed (the lineage being retired is still the live wal); the next retire keeps a copy and cuts them`);
  }
  for (const wal_id of archive.damaged_members) lines.push(`  damaged member ${wal_id}: its content does not match its digest or is not a readable WAL; only it is refused`);
  return lines;
}

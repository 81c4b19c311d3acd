// Display helpers that the CLI and the renderer share. Everything they return is plain text.
import type { RecoveryEntry } from './replay.js';
import { FINDING_WORDS } from './words.js';

export function formatBytes(size_bytes: number): string {
  if (size_bytes < 1024) return `${size_bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = size_bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A recovery as one phrase: "resume", "acknowledge u1: not applied", "retire (deleted) of lineage 1f2e…". */
export function actionWords(entry: RecoveryEntry): string {
  if (entry.retired !== null) return `retire (${entry.retired.reason}) of lineage ${entry.retired.wal_id.slice(0, 12)}…`;
  if (entry.action !== 'acknowledge' || entry.call === null) return entry.action;
  return `acknowledge ${entry.call.tool_call_id}: ${entry.finding === null ? 'no finding' : FINDING_WORDS[entry.finding].label}`;
}

/** What a recovery wrote, in a phrase: the records after its audit record, or a retire's lineage moved and the
 *  torn tails it cut (each kept in a file beside it). */
export function writtenWords(entry: RecoveryEntry): string {
  if (entry.retired !== null) {
    const moved = entry.retired.reason === 'deleted' ? 'a tombstone in the archive (the lineage\'s records deleted)' : 'the lineage sealed into the archive';
    const cuts = entry.retired.cuts.map((cut) => `the ${cut.of === 'wal' ? 'WAL' : 'archive'}'s torn tail cut (${cut.bytes} bytes at offset ${cut.offset}${cut.kept_in === null ? '' : `, kept in ${cut.kept_in}`})`);
    return [moved, ...cuts, 'a successor lineage'].join('; ');
  }
  if (entry.records.length === 0) return 'nothing after its audit record';
  return `${entry.records.map((record) => `${record.type}@${record.seq}`).join(', ')}${entry.records_cut ? ', …' : ''}`;
}

// Display helpers that the CLI and the renderer share. Everything they return is plain text.
import type { Cost, RecoveryEntry } from './replay.js';
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

/** US dollars as a reader compares them: cents from a cent up, two significant figures below it. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd >= 0.01) return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `$${usd.toPrecision(2)}`;
}

/** A cost in words: its dollars, and what was left unpriced and why ("unknown model: x"); never a guess. */
export function costText(cost: Cost): string {
  const unpriced = cost.steps_unpriced === 0 ? null : `${cost.steps_unpriced} step${cost.steps_unpriced === 1 ? '' : 's'} not priced: ${unpricedWhy(cost)}`;
  const undated = cost.undated_steps === 0 ? null : `${cost.undated_steps} at the table's current prices (no time recorded)`;
  if (cost.usd === null) return unpriced === null ? 'no usage recorded' : unpriced.replace(/^\d+ steps? not priced: /, 'not priced: ');
  const priced = `${formatUsd(cost.usd)}${cost.from_run_totals ? ' (from the run\'s totals)' : ''}`;
  return [priced, unpriced, undated].filter((part) => part !== null).join(' · ');
}

function unpricedWhy(cost: Cost): string {
  if (cost.unknown_models.length > 0) return `unknown model ${cost.unknown_models.join(', ')}`;
  if (cost.models.length === 0) return 'the run names no model';
  return 'token counts that do not add up';
}

// Characters that steer a terminal or reorder what it shows: C0/C1 controls, line separators, bidi overrides.
// eslint-disable-next-line no-control-regex
const STEERING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Everything the CLI prints passes here (src-main/cli/main.ts guards stdout and stderr): WAL content is untrusted, so no
 *  escape sequence in it reaches the terminal raw. Newlines and tabs stay. Lossless on JSON output: the escape
 *  it writes inside a JSON string is the JSON escape of the same character. */
export function terminalSafe(text: string): string {
  return text.replace(STEERING, escapeChar);
}

/** Text that must stay on one line: steering characters and newlines escaped (CR already is). */
export function oneLine(text: string): string {
  return terminalSafe(text).replace(/\n/g, escapeChar);
}

/** One field of untrusted text on one line, cut to `length_max` characters. */
export function printable(text: string, length_max: number): string {
  const escaped = oneLine(text);
  return escaped.length > length_max ? `${escaped.slice(0, length_max - 1)}…` : escaped;
}

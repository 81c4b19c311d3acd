// Text helpers for the human outputs of the CLI (byte sizes come from src-shared/format.ts).
import type { RunSignal } from '../../src-shared/replay.js';
import { statusLabel } from '../../src-shared/status.js';
import { attentionLabel, FINDING_WORDS } from '../../src-shared/words.js';

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

// Characters that steer a terminal or reorder what it shows: C0/C1 controls, line separators, bidi overrides.
// eslint-disable-next-line no-control-regex
const STEERING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Everything the CLI prints passes here (main.ts guards stdout and stderr): WAL content is untrusted, so no
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

/** Untrusted text of many lines (a message) as lines of its own, cut to `chars_max` characters in all, each
 *  behind `indent` so that none can pass for a line of ours; for textLines, which escapes what steers the
 *  terminal in each (a lone CR too: it would draw over the line). A CRLF ends a line as LF does. */
export function indentedLines(text: string, indent: string, chars_max: number): string[] {
  const cut = text.length > chars_max ? `${text.slice(0, chars_max - 1)}…` : text;
  return cut.split(/\r?\n/).map((line) => `${indent}${line}`);
}

/** Human output built as a list of lines: each entry is one line, so a newline inside one can only have come
 *  from WAL text (a run_id, a reason, a refusal naming a record) and is escaped. No field, however it was
 *  built into its line, can start a line of its own, such as a forged "OK  session …". */
export function textLines(lines: readonly string[]): string {
  return lines.map((line) => `${oneLine(line)}\n`).join('');
}

/** How the run stands, as every command that folds a WAL prints it: its status word and why, each call of
 *  unknown outcome (checked or not), its place in the attention queue, the error results. */
export function runLines(run: RunSignal, indent = ''): string[] {
  const lines = [`${indent}status: ${statusLabel(run.status, run.finish?.reason ?? null)}: ${printable(run.detail, 400)}`];
  for (const call of run.unconfirmed) {
    const found = call.acknowledged;
    const checked = found === null ? '' : ` — found ${FINDING_WORDS[found.finding].label} by ${printable(found.operator, 120)} (seq ${found.seq})`;
    lines.push(`${indent}  ${found === null ? 'UNCONFIRMED' : 'CHECKED'} ${printable(call.tool_call_id, 120)}: ${printable(call.may_have, 400)}${checked}`);
  }
  if (run.attention !== null) lines.push(`${indent}needs attention (${attentionLabel(run.attention.kind)}): ${run.attention.message}`);
  if (run.error_results > 0) lines.push(`${indent}${plural(run.error_results, 'tool result')} recorded as errors (is_error)`);
  return lines;
}

// Text helpers for the human outputs of the CLI (byte sizes come from src-shared/format.ts).
import type { RunSignal } from '../../src-shared/replay.js';
import { statusLabel } from '../../src-shared/status.js';
import { attentionLabel, FINDING_WORDS } from '../../src-shared/words.js';

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

// What the CLI prints is made terminal-safe by src-shared/format.ts's helpers (a page written to disk names its
// paths with them too, src-main/services/out-file.ts).
export { oneLine, printable, terminalSafe } from '../../src-shared/format.js';
import { oneLine, printable } from '../../src-shared/format.js';

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

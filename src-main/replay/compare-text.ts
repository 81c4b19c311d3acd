// The texts a comparison of two sessions compares (compare.ts): a message, an answer's text, a tool output, each
// as a text without what differs between any two runs by construction (tool_use ids: runs mint their own), and
// the word diff of two texts made with jsdiff (the `diff` package), bounded: a 16 MiB output is compared whole
// by its digest and its first differing character, and diffed by words only near where they part.
import { createHash } from 'node:crypto';
import { diffWords } from 'diff';
import type { WordChange } from '../../src-shared/compare.js';
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';
import { isMap } from './values.js';

/** A text as compared: its digest and length (equality of the whole), and its first characters (where two
 *  texts part, and their word diff). */
export interface ComparedText {
  digest: string;
  chars: number;
  head: string;
}

/** Characters of a text kept to find where two texts part; past them two texts that differ "differ after more
 *  than" this many characters. */
export const COMPARED_HEAD_CHARS = 65_536;
/** Characters on each side of where two texts part that the word diff looks at. */
const DIFF_WINDOW_CHARS = 4_000;
/** jsdiff's edit bound: two windows further apart than this many edits are said to differ too much. */
const DIFF_EDITS_MAX = 2_000;
/** A run both texts have is cut to this many characters at each end. */
const SAME_RUN_ENDS_CHARS = 60;
/** Pieces of a word diff kept; the rest are dropped and counted by the sentence. */
const WORD_CHANGES_MAX = 200;

export function comparedText(text: string): ComparedText {
  return { digest: createHash('sha256').update(text).digest('base64url'), chars: text.length, head: text.slice(0, COMPARED_HEAD_CHARS) };
}

export function sameText(a: ComparedText, b: ComparedText): boolean {
  return a.digest === b.digest && a.chars === b.chars;
}

/** How many characters two different texts have in common at their start (within their heads). */
export function identicalChars(a: ComparedText, b: ComparedText): number {
  const length = Math.min(a.head.length, b.head.length);
  let at = 0;
  while (at < length && a.head.charCodeAt(at) === b.head.charCodeAt(at)) at++;
  return at;
}

/** "after 1,204 identical characters", "from their first character", "after more than 65,536 …". */
export function partingWords(a: ComparedText, b: ComparedText): string {
  const at = identicalChars(a, b);
  if (at === 0) return 'from their first character';
  if (at === COMPARED_HEAD_CHARS) return `after more than ${at.toLocaleString('en-US')} identical characters`;
  if (at === Math.min(a.chars, b.chars)) return `${a.chars < b.chars ? 'B' : 'A'} goes on after all ${at.toLocaleString('en-US')} characters of the other`;
  return `after ${at.toLocaleString('en-US')} identical characters`;
}

/** The word diff of two different texts around where they part (the run before it cut to its end); null when
 *  they differ more than DIFF_EDITS_MAX edits there. */
export function wordDiff(a: ComparedText, b: ComparedText): WordChange[] | null {
  const start = Math.max(0, identicalChars(a, b) - SAME_RUN_ENDS_CHARS);
  const changes = diffWords(a.head.slice(start, start + DIFF_WINDOW_CHARS * 2), b.head.slice(start, start + DIFF_WINDOW_CHARS * 2), { maxEditLength: DIFF_EDITS_MAX });
  if (changes === undefined) return null;
  const pieces: WordChange[] = start === 0 ? [] : [{ op: 'same', text: '', cut: start }];
  for (const change of changes.slice(0, WORD_CHANGES_MAX)) {
    const op = change.added ? 'added' : change.removed ? 'removed' : 'same';
    pieces.push(op === 'same' ? sameRun(change.value) : { op, text: change.value, cut: 0 });
  }
  return pieces;
}

function sameRun(text: string): WordChange {
  if (text.length <= SAME_RUN_ENDS_CHARS * 2) return { op: 'same', text, cut: 0 };
  return { op: 'same', text: `${text.slice(0, SAME_RUN_ENDS_CHARS)}…${text.slice(-SAME_RUN_ENDS_CHARS)}`, cut: text.length - SAME_RUN_ENDS_CHARS * 2 };
}

/** A message as compared: its role, then each block's text (`blockText`), one a line. */
export function messageCompareText(message: JsonPayload): string {
  const role = typeof message['role'] === 'string' ? message['role'] : '?';
  return [`[${role}]`, ...contentBlocks(message).map(blockText)].join('\n');
}

/** A message's content as a list of blocks (a text content is one text block). */
export function contentBlocks(message: JsonPayload): JsonValue[] {
  const content = message['content'];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/** A block's text as compared: a text as it is, a tool call by its name and input, a result by its output and
 *  whether it failed; ids left out. */
export function blockText(block: JsonValue): string {
  const map = isMap(block) ? block : {};
  switch (map['type']) {
    case 'text':
    case 'text_with_state':
      return typeof map['text'] === 'string' ? map['text'] : valueText(map['text'] ?? null);
    case 'tool_use':
      return `[call ${valueText(map['name'] ?? null)}] ${valueText(map['input'] ?? null)}`;
    case 'tool_result':
      return `[result${map['is_error'] === true ? ', error' : ''}] ${valueText(map['output'] ?? map['content'] ?? null)}`;
    default:
      return JSON.stringify(Object.fromEntries(Object.entries(map).filter(([key]) => key !== 'id' && key !== 'tool_use_id')));
  }
}

/** A value as compared: a text as it is, anything else as its JSON. */
export function valueText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// Values cut to a length for display (a row's args, output and message content; a record's payload), keeping
// their shape: a map stays a map and a list a list, their short members whole, and the long ones cut to a share
// of the length. A text cut shows its first characters as text, then how much of its JSON text is left out. Cut
// as one JSON text instead, a tool message read `[{"type":"tool_result",…` and a record's payload
// `"{\"batch_id\":…` wherever an output was longer than the preview.
import assert from 'node:assert/strict';
import type { JsonValue } from '../../src-shared/replay.js';
import { jsonValueCut, JsonTextCut } from '../engine/index.js';

/** Members and items at most this long (as JSON) are kept whole; the least a cut one is given. */
const PART_CHARS_MIN = 64;
/** Items of a list shown at most: one per this many characters of the preview, then a text says how many more. */
const ITEM_CHARS_EACH = 256;
/** Maps and lists nested deeper than this are cut as their JSON text (payloads nest a few levels). */
const PREVIEW_DEPTH_MAX = 16;
/** The longest escape a cut JSON string can end inside (`\uXXXX`). */
const JSON_ESCAPE_CHARS_MAX = 6;

/** `value` as it fits in `chars_max` characters of JSON text, or in about that many when cut (a cut map's or
 *  list's parts share them). `more`: what the marker of a cut adds (where the rest can be read). A JsonTextCut
 *  (an item too long to build, `jsonCut`) can only be shown as its text. */
export function valuePreview(value: JsonValue | JsonTextCut, chars_max: number, more = '', depth = 0): JsonValue {
  const text = jsonValueCut(value, chars_max);
  if (text.chars <= chars_max) return value as JsonValue;
  if (value === null || typeof value !== 'object' || value instanceof JsonTextCut || depth >= PREVIEW_DEPTH_MAX) return cutText(text, chars_max, more);
  if (Array.isArray(value)) return listPreview(value, chars_max, more, depth);
  return mapPreview(value, chars_max, more, depth) ?? cutText(text, chars_max, more);
}

function listPreview(items: readonly JsonValue[], chars_max: number, more: string, depth: number): JsonValue[] {
  const shown = items.slice(0, Math.max(1, Math.floor(chars_max / ITEM_CHARS_EACH)));
  const item_chars_max = Math.max(PART_CHARS_MIN, Math.floor(chars_max / shown.length));
  const previews = shown.map((item) => valuePreview(item, item_chars_max, more, depth + 1));
  if (items.length > shown.length) previews.push(`… (${items.length - shown.length} more items${more})`);
  return previews;
}

/** A map's short members whole and its long ones cut to a share of what is left; null when it has more members
 *  than the preview has room for (it is then cut as its JSON text). */
function mapPreview(map: { readonly [key: string]: JsonValue }, chars_max: number, more: string, depth: number): JsonValue | null {
  const members = Object.entries(map);
  if (members.length > Math.floor(chars_max / PART_CHARS_MIN)) return null;
  const chars = members.map(([, member]) => jsonValueCut(member, chars_max).chars);
  const long_count = chars.filter((count) => count > PART_CHARS_MIN).length;
  const short_chars = chars.reduce((sum, count) => (count > PART_CHARS_MIN ? sum : sum + count), 0);
  const long_chars_max = Math.max(PART_CHARS_MIN, Math.floor((chars_max - short_chars) / Math.max(1, long_count)));
  // fromEntries makes every key an own property, "__proto__" included.
  return Object.fromEntries(members.map(([key, member], index) => [key, chars[index]! > PART_CHARS_MIN ? valuePreview(member, long_chars_max, more, depth + 1) : member]));
}

/** A cut as a text: a string's first characters as text (its JSON escapes undone, so an output shows its lines),
 *  anything else its JSON text's; then how much of the JSON text is left out. */
function cutText({ head, chars }: JsonTextCut, chars_max: number, more: string): string {
  // A copy, not a slice: V8's slice of a string keeps the whole string alive (a 4 MiB output per row). The
  // round trip through UTF-8 also turns half a surrogate pair cut at the end into U+FFFD.
  const shown = Buffer.from(head.startsWith('"') ? textOfJsonHead(head) : head, 'utf8').toString('utf8');
  return `${shown}… (${chars - chars_max} more characters of JSON${more})`;
}

/** The text a JSON string literal cut short begins with: the cut may fall inside an escape, which is dropped. */
export function textOfJsonHead(head: string): string {
  for (let dropped = 0; dropped < JSON_ESCAPE_CHARS_MAX && dropped < head.length; dropped++) {
    try {
      return JSON.parse(`${head.slice(0, head.length - dropped)}"`) as string;
    } catch {
      // Inside an escape: one character fewer.
    }
  }
  assert.fail(`not the head of a JSON string: ${head.slice(0, 40)}`);
}

// A CBOR item's JSON text (the project's JSON form, src-shared/json.ts: byte strings as hex), cut: its first
// characters and how many it has in all, read from the item's bytes. A row shows an 8,000-character preview of
// a tool output of up to 16 MiB; building the output and stringifying it to cut it made two strings of the
// output's size per row of a page and per row a search walks (a search of the 1 GiB session peaked at 475 MB of
// that garbage). Here a text is decoded only as far as the preview shows it; the rest is counted from its bytes.
//
// The text is JSON.stringify's of the value `readItem` builds, character for character, including the order a
// JS object gives its keys (array indices first, ascending): test/engine/cbor-json-preview.test.ts holds it
// to JSON.stringify on random and hostile values.
import type { CborValue } from '../../src-shared/wal.js';
import { CborDecoder, MAJOR_ARRAY, MAJOR_BYTES, MAJOR_MAP, MAJOR_TEXT, ReadBy, setOwn } from './cbor.js';

/** The first characters of a value's JSON text (at most the cut's `chars_max`) and its length in all. Inside a
 *  value, it stands for an item too long to build (`jsonCut`), and `jsonValueCut` writes it as that text. */
export class JsonTextCut {
  constructor(
    readonly head: string,
    readonly chars: number,
  ) {}
}

/** A projection (`CborDecoder.readProjected`) that builds the item when its JSON text has at most `chars_max`
 *  characters, and otherwise makes it a JsonTextCut of that many: the item is validated whole either way, and
 *  never built past what a preview of `chars_max` characters shows. */
export function jsonCut(chars_max: number): ReadBy {
  return new ReadBy((decoder, depth) => {
    const start = decoder.position;
    decoder.skipItem(depth);
    const end = decoder.position;
    const text = jsonTextCut(decoder.bytes, start, chars_max);
    if (text.chars > chars_max) return text as unknown as CborValue;
    decoder.position = start;
    const value = decoder.readItem(depth);
    decoder.position = end;
    return value;
  });
}

/** Items of an array, or members of a map, that `jsonShapeCut` builds; the rest are counted in a last item or
 *  member ("…"). */
export const SHAPE_ITEMS_MAX = 64;

/** Like `jsonCut`, but an item too long for `chars_max` keeps its shape: a map stays a map and a list a list,
 *  each text or byte string in it longer than `chars_max` a JsonTextCut of its own. A tool's Parts output of a
 *  screenshot and a line of text then reads as its parts (the text as text, the image's type and size), where
 *  `jsonCut` made the whole output one JSON text. A map's `data` member (a media block's) is built up to
 *  `data_chars_max`, so an image small enough to show is whole. Validated whole first, as `jsonCut` is. */
export function jsonShapeCut(chars_max: number, data_chars_max = chars_max): ReadBy {
  return new ReadBy((decoder, depth) => {
    const start = decoder.position;
    decoder.skipItem(depth);
    const end = decoder.position;
    decoder.position = start;
    const value = shapeCut(decoder, { chars_max, data_chars_max }, chars_max, depth);
    decoder.position = end;
    return value;
  });
}

function shapeCut(decoder: CborDecoder, cut: { chars_max: number; data_chars_max: number }, chars_max: number, depth: number): CborValue {
  const start = decoder.position;
  const text = jsonTextCut(decoder.bytes, start, chars_max);
  decoder.nextHead();
  const major = decoder.head_major;
  const count = decoder.head_argument;
  const long = text.chars > chars_max;
  if (!long || (major !== MAJOR_TEXT && major !== MAJOR_BYTES && major !== MAJOR_ARRAY && major !== MAJOR_MAP)) {
    decoder.position = start;
    return decoder.readItem(depth);
  }
  if (major === MAJOR_TEXT || major === MAJOR_BYTES) {
    decoder.position = start;
    decoder.skipItem(depth);
    return text as unknown as CborValue;
  }
  const more = count > SHAPE_ITEMS_MAX ? `… (${count - SHAPE_ITEMS_MAX} more ${major === MAJOR_MAP ? 'members' : 'items'})` : null;
  if (major === MAJOR_ARRAY) {
    const items: CborValue[] = [];
    for (let index = 0; index < count; index++) {
      if (index < SHAPE_ITEMS_MAX) items.push(shapeCut(decoder, cut, cut.chars_max, depth + 1));
      else decoder.skipItem(depth + 1);
    }
    if (more !== null) items.push(more);
    return items;
  }
  const map: { [key: string]: CborValue } = {};
  for (let index = 0; index < count; index++) {
    const key = decoder.readKey();
    if (index < SHAPE_ITEMS_MAX) setOwn(map, key, shapeCut(decoder, cut, key === 'data' ? cut.data_chars_max : cut.chars_max, depth + 1));
    else decoder.skipItem(depth + 1);
  }
  if (more !== null) setOwn(map, '…', more);
  return map;
}

/** The JSON text of a JSON value, cut after `chars_max` characters, a JsonTextCut in it written as its text. */
export function jsonValueCut(value: unknown, chars_max: number): JsonTextCut {
  const writer = new CutWriter(chars_max);
  writeValue(value, writer);
  return new JsonTextCut(writer.head(), writer.chars);
}

/** The JSON text of the valid item at `start` of `bytes`, cut after `chars_max` characters. */
export function jsonTextCut(bytes: Buffer, start: number, chars_max: number): JsonTextCut {
  const writer = new CutWriter(chars_max);
  const walker = new CborDecoder(bytes);
  walker.position = start;
  writeItem(walker, writer);
  return new JsonTextCut(writer.head(), writer.chars);
}

function writeValue(value: unknown, writer: CutWriter): void {
  if (value instanceof JsonTextCut) return writer.add(value.head, value.chars);
  if (Array.isArray(value)) {
    writer.add('[');
    value.forEach((item: unknown, index) => {
      if (index > 0) writer.add(',');
      writeValue(item, writer);
    });
    return writer.add(']');
  }
  if (value === null || typeof value !== 'object') return writer.add(JSON.stringify(value) ?? 'null');
  writer.add('{');
  Object.keys(value).forEach((key, index) => {
    writer.add(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`);
    writeValue((value as { [key: string]: unknown })[key], writer);
  });
  writer.add('}');
}

/** Texts up to this many bytes are decoded and stringified whole: a cut saves nothing on them. */
const TEXT_WHOLE_BYTES_MAX = 1_024;

/** The JSON text's length of each byte of a valid UTF-8 text, as JSON.stringify escapes it: a lead byte counts
 *  its character's UTF-16 units (two past U+FFFF), a continuation byte none; \b \t \n \f \r " and \ take two
 *  characters, the other controls six (\u00XX). */
const ESCAPED_CHARS_OF_BYTE = (() => {
  const table = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) {
    if (byte < 0x20) table[byte] = [0x08, 0x09, 0x0a, 0x0c, 0x0d].includes(byte) ? 2 : 6;
    else if (byte === 0x22 || byte === 0x5c) table[byte] = 2;
    else if (byte < 0x80) table[byte] = 1;
    else if (byte < 0xc0) table[byte] = 0;
    else table[byte] = byte < 0xf0 ? 1 : 2;
  }
  return table;
})();

class CutWriter {
  private readonly parts: string[] = [];
  private head_chars = 0;
  /** The JSON text's length so far, written or only counted. */
  chars = 0;

  constructor(readonly chars_max: number) {}

  /** How many more characters the head takes. */
  get room(): number {
    return this.chars_max - this.head_chars;
  }

  /** Adds a piece of text `chars` long, of which `text` is the beginning: all of it, or at least `room`. */
  add(text: string, chars = text.length): void {
    const room = this.room;
    if (room > 0) {
      const piece = text.length <= room ? text : text.slice(0, room);
      this.parts.push(piece);
      this.head_chars += piece.length;
    }
    this.chars += chars;
  }

  head(): string {
    return this.parts.join('');
  }
}

function writeItem(walker: CborDecoder, writer: CutWriter): void {
  const start = walker.position;
  walker.nextHead();
  const major = walker.head_major;
  const argument = walker.head_argument;
  if (major === MAJOR_TEXT || major === MAJOR_BYTES) {
    const bytes_start = walker.position;
    walker.position += argument;
    if (major === MAJOR_TEXT) writeText(walker.bytes, bytes_start, walker.position, writer);
    else writeHex(walker.bytes, bytes_start, walker.position, writer);
    return;
  }
  if (major === MAJOR_ARRAY) {
    writer.add('[');
    for (let index = 0; index < argument; index++) {
      if (index > 0) writer.add(',');
      writeItem(walker, writer);
    }
    return writer.add(']');
  }
  if (major === MAJOR_MAP) return writeMap(walker, argument, writer);
  // A number, a boolean or null: small, so built (a float that is not finite is JSON's null).
  walker.position = start;
  writer.add(JSON.stringify(walker.readItem()));
}

function writeText(bytes: Buffer, start: number, end: number, writer: CutWriter): void {
  if (end - start <= TEXT_WHOLE_BYTES_MAX) return writer.add(JSON.stringify(bytes.toString('utf8', start, end)));
  let chars = 2;
  for (let index = start; index < end; index++) chars += ESCAPED_CHARS_OF_BYTE[bytes[index]!]!;
  const room = writer.room;
  if (room <= 0) return writer.add('', chars);
  // A character of n UTF-8 bytes is at least one JSON character per 3 bytes, so 3 × room bytes fill the room;
  // the prefix ends before a character's first byte, never inside one.
  let prefix_end = Math.min(end, start + 3 * room);
  while (prefix_end < end && (bytes[prefix_end]! & 0xc0) === 0x80) prefix_end--;
  const quoted = JSON.stringify(bytes.toString('utf8', start, prefix_end));
  writer.add(prefix_end === end ? quoted : quoted.slice(0, -1), chars);
}

function writeHex(bytes: Buffer, start: number, end: number, writer: CutWriter): void {
  const shown_end = Math.min(end, start + Math.max(0, Math.ceil(writer.room / 2)));
  writer.add(`"${bytes.toString('hex', start, shown_end)}${shown_end === end ? '"' : ''}`, 2 + 2 * (end - start));
}

/** A JS object lists its array-index keys first, ascending, then the others in insertion order, and so does
 *  JSON.stringify of the map `readItem` builds. */
function writeMap(walker: CborDecoder, count: number, writer: CutWriter): void {
  const bytes = walker.bytes;
  // A value starts where its key ends.
  const entries: { key_start: number; key_end: number; index: number }[] = [];
  for (let entry = 0; entry < count; entry++) {
    walker.nextHead();
    const key_start = walker.position;
    const key_end = (walker.position += walker.head_argument);
    entries.push({ key_start, key_end, index: arrayIndexOf(bytes, key_start, key_end) });
    walker.skipItem();
  }
  const end = walker.position;
  const indexed = entries.filter((entry) => entry.index >= 0).sort((left, right) => left.index - right.index);
  const ordered = indexed.length === 0 ? entries : [...indexed, ...entries.filter((entry) => entry.index < 0)];
  writer.add('{');
  ordered.forEach((entry, position) => {
    if (position > 0) writer.add(',');
    writeText(bytes, entry.key_start, entry.key_end, writer);
    writer.add(':');
    walker.position = entry.key_end;
    writeItem(walker, writer);
  });
  writer.add('}');
  walker.position = end;
}

/** Array indices are the canonical decimal integers 0 … 2^32 − 2 (ECMAScript's OrdinaryOwnPropertyKeys). */
const ARRAY_INDEX_MAX = 2 ** 32 - 2;

/** The key `bytes[start, end)` as an array index, or -1. */
function arrayIndexOf(bytes: Buffer, start: number, end: number): number {
  const length = end - start;
  if (length === 0 || length > 10 || (length > 1 && bytes[start] === 0x30)) return -1;
  let index = 0;
  for (let at = start; at < end; at++) {
    const digit = bytes[at]! - 0x30;
    if (digit < 0 || digit > 9) return -1;
    index = index * 10 + digit;
  }
  return index <= ARRAY_INDEX_MAX ? index : -1;
}

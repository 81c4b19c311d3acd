// A long text read only as far as a view shows it: its first characters, decoded, and how many characters
// (UTF-16 code units, a JS string's length) it has in all, counted from its UTF-8 bytes. The Context view shows
// 8,000 characters of each output; building the whole of each shown output of the 1 GiB session (up to 4 MiB
// apiece) took its server from 177 MB to 603 MB for four looks.
import { isAscii } from 'node:buffer';
import type { CborValue } from '../../src-shared/wal.js';
import { byteView, MAJOR_TEXT, ReadBy } from './cbor.js';

/** A text longer than its cut: `head` is its first characters (at least the cut's), `chars` its length. */
export class TextCut {
  constructor(
    readonly head: string,
    readonly chars: number,
  ) {}
}

/** A projection that builds an item whole unless it is a text of more than `chars_max` characters, which it
 *  validates whole and makes a TextCut with a head of at least `chars_max` characters. */
export function textCut(chars_max: number): ReadBy {
  return new ReadBy((decoder, depth) => {
    const start = decoder.position;
    decoder.peekHead();
    const [major, size_bytes] = [decoder.head_major, decoder.head_argument];
    // A text has at most as many characters as bytes: a short one is built.
    if (major !== MAJOR_TEXT || size_bytes <= chars_max) return decoder.readItem(depth);
    decoder.skipItem(depth);
    const bytes = decoder.bytes;
    const text_end = decoder.position;
    const text_start = text_end - size_bytes;
    const chars = utf16Length(bytes, text_start, text_end);
    if (chars <= chars_max) {
      decoder.position = start;
      return decoder.readItem(depth);
    }
    // A character is at most 3 bytes a code unit: this many bytes hold chars_max of them, and room for one
    // the cut splits (left out, whole).
    const cut_at = text_start + 3 * (chars_max + 1);
    const head_end = cut_at >= text_end ? text_end : charStart(bytes, text_start, cut_at);
    return new TextCut(bytes.toString('utf8', text_start, head_end), chars) as unknown as CborValue;
  });
}

/** The UTF-16 length of the valid UTF-8 in `bytes[start, end)`: a code unit per character, two for one of four
 *  bytes (a surrogate pair). */
export function utf16Length(bytes: Uint8Array, start: number, end: number): number {
  if (isAscii(byteView(bytes, start, end))) return end - start;
  let units = 0;
  for (let at = start; at < end; at++) {
    const byte = bytes[at]!;
    if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
  }
  return units;
}

/** `at` (inside the text), or the start of the character it falls inside (never before `start`). */
function charStart(bytes: Uint8Array, start: number, at: number): number {
  while (at > start && (bytes[at]! & 0xc0) === 0x80) at--;
  return at;
}

// wal-format §5 rule 0: a file that is not a WAL at all. A non-empty file whose first four bytes (all of them,
// when it is shorter) are neither the frame magic (or a prefix of it) nor all zero is the wrong file, not a WAL
// cut short: it is refused by name, quoting its first bytes and what they look like, and never called a torn
// tail, repaired, truncated or counted as a session with no records.
import type { WalErrorInfo } from '../../src-shared/wal.js';
import type { FileIO } from './file-io.js';
import { FRAME_MAGIC } from './limits.js';

/** The first bytes read to judge a file and to say what it looks like instead. */
export const SNIFF_BYTES = 64;
/** Of them, the bytes quoted in hex in the refusal. */
const QUOTED_BYTES = 16;

/** The first bytes of the open file `fd` (up to SNIFF_BYTES, fewer in a shorter file). */
export function readHead(io: FileIO, fd: number, size_bytes: number): Uint8Array {
  const head = Buffer.alloc(Math.min(SNIFF_BYTES, size_bytes));
  let filled = 0;
  while (filled < head.length) {
    const count = io.read(fd, head, filled, head.length - filled, filled);
    if (count === 0) break;
    filled += count;
  }
  return head.subarray(0, filled);
}

/** The refusal of a file whose first bytes (`head`, up to SNIFF_BYTES of them) are not a WAL's, or null. */
export function notAWal(head: Uint8Array): WalErrorInfo | null {
  const judged = head.subarray(0, FRAME_MAGIC.length);
  if (judged.length === 0 || judged.every((byte, at) => byte === FRAME_MAGIC[at]) || judged.every((byte) => byte === 0)) return null;
  const quoted = hexBytes(head.subarray(0, QUOTED_BYTES));
  return {
    kind: 'not_a_wal',
    offset: 0,
    seq: null,
    features: [],
    message: `the file is not a WAL: it starts with ${quoted}${head.length > QUOTED_BYTES ? ' …' : ''} (${looksLike(head)}), not the frame magic 42 57 41 4c ("BWAL"); check that this is the session's wal file (sessions/<id>/wal) and not another file`,
  };
}

/** What a file's first bytes look like, in words: a known format by its signature, text, or unknown bytes. */
export function looksLike(head: Uint8Array): string {
  for (const [signature, name] of SIGNATURES) {
    if (signature.length <= head.length && signature.every((byte, at) => byte === head[at])) return name;
  }
  const text = textPrefix(head);
  if (text !== null) return text.trimStart().startsWith('{') || text.trimStart().startsWith('[') ? 'it looks like JSON text' : 'it looks like text';
  return 'binary data of no format walscope knows';
}

const SIGNATURES: readonly [readonly number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'a GIF image'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], 'a zip archive (or a document stored as one)'],
  [[0x1f, 0x8b], 'a gzip-compressed file: decompress it first'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'a zstd-compressed file: decompress it first'],
  [[0x42, 0x5a, 0x68], 'a bzip2-compressed file: decompress it first'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'an xz-compressed file: decompress it first'],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 'an SQLite database'],
  [[0x7f, 0x45, 0x4c, 0x46], 'an ELF executable'],
];

/** The head as text when it is UTF-8 of printable characters, else null. */
function textPrefix(head: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(trimPartialCharacter(head));
  } catch {
    return null;
  }
  // Control characters other than tab, newline and carriage return do not occur in text.
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) ? null : text;
}

/** The head without a UTF-8 sequence cut at its end (the sniff stops at a byte count, not a character). */
function trimPartialCharacter(head: Uint8Array): Uint8Array {
  let end = head.length;
  let back = 0;
  while (end - back - 1 >= 0 && back < 3 && (head[end - back - 1]! & 0xc0) === 0x80) back += 1;
  const lead = head[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < length) end -= back + 1;
  }
  return head.subarray(0, end);
}

function hexBytes(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join(' ');
}

// The blocks of a message (wal-format §6) as a reader is shown them, each as what it is: text as text, thinking
// as thinking (its length, its signature never, only whether it has one), redacted thinking and media as typed
// placeholders (an image as its base64 data where it is a raster image small enough to carry), a tool call as its
// name and input, a tool result as its output's parts, and a block of a type this build does not know as its
// fields. Never a block's JSON where its content is expected. The main side builds them (it knows how long a cut
// text was); the renderer, the CLI and the search read them.
import { formatBytes } from './format.js';
import type { JsonValue } from './replay.js';

export type ShownBlock =
  /** `more_chars`: characters of the text left out (0: it is whole). */
  | { type: 'text'; text: string; more_chars: number }
  | { type: 'text_with_state'; text: string; more_chars: number; state_format: string | null }
  /** `chars`: the thinking's length in all. `signed`: it carries a provider signature (never shown). */
  | { type: 'reasoning'; text: string; chars: number; more_chars: number; signed: boolean }
  | { type: 'redacted_reasoning'; data_chars: number; provider_format: string | null }
  /** `image`: the base64 data, only for a raster image type (IMAGE_MAGIC) whose data is whole, small enough, and
   *  base64 of a file of that type. */
  | { type: 'media'; media_type: string | null; size_bytes: number | null; ref: string | null; image: string | null }
  | { type: 'tool_use'; id: string; name: string; input: JsonValue }
  | { type: 'tool_result'; tool_use_id: string; is_error: boolean; output: ShownBlock[] }
  | { type: 'unknown'; block_type: string | null; fields: [string, JsonValue][] }
  /** Blocks past BLOCKS_SHOWN_MAX, counted. */
  | { type: 'left_out'; blocks: number };

/** Base64 image data carried at most (about 192 KiB of image); a larger image is shown as its type and size. */
export const IMAGE_DATA_CHARS_MAX = 262_144;

/** Blocks of one message or output shown at most; the rest are counted. */
export const BLOCKS_SHOWN_MAX = 256;
/** Tool results nested in tool results shown at most (a hostile WAL may nest them as deep as CBOR allows);
 *  deeper ones are shown as their fields. */
export const BLOCKS_DEPTH_MAX = 4;

/** A text as far as it was read: the characters shown and how many there are in all. */
export interface ReadText {
  text: string;
  chars: number;
}

export interface BlockLimits {
  /** A text (or thinking) longer than this is cut to it. */
  text_chars_max: number;
  /** A message's texts and values share this many characters, in order; past it they are cut to what is left. */
  message_chars_max: number;
  /** Base64 data at most this long is carried as an image. */
  image_chars_max: number;
  /** A text a leaf value holds (a string, or a text the main side cut as it read it), or null. */
  textOf?: (value: unknown) => ReadText | null;
  /** A value shown as JSON (a tool call's input, an unknown block's field) as it is carried: a preview of about
   *  `chars_max` characters of JSON text. */
  shownValue?: (value: unknown, chars_max: number) => JsonValue;
}

/** One message's reading: its limits and the characters it has left. */
interface Reading {
  limits: BlockLimits;
  chars_left: number;
  images_left: number;
}

/** Images one message carries at most; later ones are shown as their type and size. */
export const IMAGES_SHOWN_MAX = 8;

const plainText = (value: unknown): ReadText | null => (typeof value === 'string' ? { text: value, chars: value.length } : null);

/** A message's content (a text, or a list of blocks) as shown blocks. */
export function shownBlocks(content: unknown, limits: BlockLimits): ShownBlock[] {
  return blocksOf(content, { limits, chars_left: limits.message_chars_max, images_left: IMAGES_SHOWN_MAX }, 0);
}

/** A tool output (a text, or {parts: [block]}) as shown blocks; any other value as its fields. */
export function shownOutput(output: unknown, limits: BlockLimits): ShownBlock[] {
  return outputOf(output, { limits, chars_left: limits.message_chars_max, images_left: IMAGES_SHOWN_MAX }, 0);
}

function blocksOf(content: unknown, reading: Reading, depth: number): ShownBlock[] {
  const text = textOf(reading, content);
  if (text !== null) return [{ type: 'text', ...cutText(text, reading) }];
  if (!Array.isArray(content)) return content === null || content === undefined ? [] : [unknownBlock(content, reading)];
  const blocks = content.slice(0, BLOCKS_SHOWN_MAX).map((block) => shownBlock(block, reading, depth));
  if (content.length > BLOCKS_SHOWN_MAX) blocks.push({ type: 'left_out', blocks: content.length - BLOCKS_SHOWN_MAX });
  return blocks;
}

function outputOf(output: unknown, reading: Reading, depth: number): ShownBlock[] {
  return blocksOf(isMap(output) && Array.isArray(output['parts']) ? output['parts'] : output, reading, depth);
}

function shownBlock(block: unknown, reading: Reading, depth: number): ShownBlock {
  if (!isMap(block) || depth >= BLOCKS_DEPTH_MAX) return unknownBlock(block, reading);
  const read = (key: string) => textOf(reading, block[key]);
  const word = (key: string) => (typeof block[key] === 'string' ? block[key] : null);
  switch (block['type']) {
    case 'text': {
      const text = read('text');
      return text === null ? unknownBlock(block, reading) : { type: 'text', ...cutText(text, reading) };
    }
    case 'text_with_state': {
      const text = read('text');
      const state = block['state'];
      return text === null ? unknownBlock(block, reading) : { type: 'text_with_state', ...cutText(text, reading), state_format: isMap(state) && typeof state['format'] === 'string' ? state['format'] : null };
    }
    case 'reasoning': {
      const text = read('text') ?? { text: '', chars: 0 };
      const shown = cutText(text, reading);
      return { type: 'reasoning', text: shown.text, chars: text.chars, more_chars: shown.more_chars, signed: block['signature'] !== undefined && block['signature'] !== null };
    }
    case 'redacted_reasoning':
      return { type: 'redacted_reasoning', data_chars: read('data')?.chars ?? 0, provider_format: word('provider_format') };
    case 'media':
      return mediaBlock(word('media_type'), read('data'), word('ref'), reading);
    case 'tool_use':
      return { type: 'tool_use', id: word('id') ?? '', name: word('name') ?? '', input: shownValue(reading, block['input'] ?? null) };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: word('tool_use_id') ?? '', is_error: block['is_error'] === true, output: outputOf(block['output'] ?? block['content'] ?? null, reading, depth + 1) };
    default:
      return unknownBlock(block, reading);
  }
}

function textOf(reading: Reading, value: unknown): ReadText | null {
  return (reading.limits.textOf ?? plainText)(value);
}

/** A value as carried, its preview's characters taken from what the message has left. */
function shownValue(reading: Reading, value: unknown): JsonValue {
  const preview = reading.limits.shownValue;
  if (preview === undefined) return value as JsonValue;
  const shown = preview(value, Math.max(VALUE_CHARS_MIN, reading.chars_left));
  reading.chars_left -= Math.min(reading.chars_left, JSON.stringify(shown).length);
  return shown;
}

/** The least a value's preview is given, however little the message has left: enough to say what it is. */
const VALUE_CHARS_MIN = 64;

function cutText(text: ReadText, reading: Reading): { text: string; more_chars: number } {
  const chars_max = Math.min(reading.limits.text_chars_max, reading.chars_left);
  const shown = text.text.length > chars_max ? wholeChars(text.text.slice(0, chars_max)) : text.text;
  reading.chars_left -= shown.length;
  return { text: shown, more_chars: Math.max(0, text.chars - shown.length) };
}

/** A cut text without half a surrogate pair at its end. */
function wholeChars(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** The image types shown as images, raster formats a browser decodes without running anything (never SVG, a
 *  document that can hold script and links), each with the first bytes of its files: data that does not begin
 *  with its type's is not shown as an image (a byte string's hex, or another format under an image type).
 *  null: any byte. */
const IMAGE_MAGIC: { readonly [media_type: string]: readonly (number | null)[] } = {
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  'image/jpeg': [0xff, 0xd8, 0xff],
  'image/gif': [0x47, 0x49, 0x46, 0x38],
  'image/webp': [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50],
};

function isImageData(media_type: string, base64: string): boolean {
  const magic = Object.hasOwn(IMAGE_MAGIC, media_type) ? IMAGE_MAGIC[media_type] : undefined;
  if (magic === undefined || !BASE64.test(base64) || base64.length % 4 !== 0) return false;
  const head = base64Head(base64, magic.length);
  return head.length === magic.length && magic.every((byte, at) => byte === null || head[at] === byte);
}

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first `count` bytes base64 text holds (fewer when it holds fewer); the text is BASE64 already. */
function base64Head(base64: string, count: number): number[] {
  const bytes: number[] = [];
  for (let at = 0; at + 4 <= base64.length && bytes.length < count; at += 4) {
    const digits = [...base64.slice(at, at + 4)].map((digit) => BASE64_DIGITS.indexOf(digit));
    const word = digits.reduce((sum, digit) => sum * 64 + Math.max(digit, 0), 0);
    const held = digits.filter((digit) => digit >= 0).length - 1;
    for (let byte = 0; byte < held; byte++) bytes.push((word >> (16 - 8 * byte)) & 0xff);
  }
  return bytes.slice(0, count);
}

function mediaBlock(media_type: string | null, data: ReadText | null, ref: string | null, reading: Reading): ShownBlock {
  // A text of base64 data: 4 characters for 3 bytes, less its padding.
  const padding = data === null || data.text.length !== data.chars ? 0 : (/=*$/.exec(data.text)?.[0].length ?? 0);
  const size_bytes = data === null ? null : Math.floor((data.chars * 3) / 4) - padding;
  const whole = data !== null && data.text.length === data.chars && data.chars <= reading.limits.image_chars_max;
  const image = whole && reading.images_left > 0 && media_type !== null && isImageData(media_type, data.text) ? data.text : null;
  if (image !== null) reading.images_left -= 1;
  return { type: 'media', media_type, size_bytes, ref, image };
}

function unknownBlock(block: unknown, reading: Reading): ShownBlock {
  if (!isMap(block)) return { type: 'unknown', block_type: null, fields: [['value', shownValue(reading, block)]] };
  const type = block['type'];
  const fields = Object.entries(block).filter(([key]) => key !== 'type').map(([key, value]): [string, JsonValue] => [key, shownValue(reading, value)]);
  return { type: 'unknown', block_type: typeof type === 'string' ? type : null, fields };
}

function isMap(value: unknown): value is { [key: string]: unknown } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A count as a person reads it at a glance: 101, 5.6k, 12k, 1.2M. */
export function compactCount(count: number): string {
  const units: [number, string][] = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [size, unit] of units) {
    if (Math.abs(count) >= size) {
      const scaled = count / size;
      return `${Math.abs(scaled) < 10 ? (Math.round(scaled * 10) / 10).toString() : Math.round(scaled).toString()}${unit}`;
    }
  }
  return String(count);
}

/** "thinking · 1.2k chars" */
export function thinkingWords(chars: number): string {
  return `thinking · ${compactCount(chars)} chars`;
}

/** A block in a few words, for a one-line row and the CLI: a text is its text; any other block what it is. */
export function blockWords(block: ShownBlock): string {
  switch (block.type) {
    case 'text':
    case 'text_with_state':
      return block.text;
    case 'reasoning':
      return `[${thinkingWords(block.chars)}]`;
    case 'redacted_reasoning':
      return `[redacted thinking${block.provider_format === null ? '' : ` (${block.provider_format})`}]`;
    case 'media':
      return `[${mediaWords(block)}]`;
    case 'tool_use':
      return `[→ ${block.name} ${block.id}]`;
    case 'tool_result':
      return `[← ${block.tool_use_id}${block.is_error ? ' error' : ''}]`;
    case 'unknown':
      return `[${block.block_type ?? 'block'}]`;
    case 'left_out':
      return `[… ${block.blocks} more blocks]`;
  }
}

/** "image/png · 1.4 KiB", "media (no type) · by reference" */
export function mediaWords(block: Extract<ShownBlock, { type: 'media' }>): string {
  const size = block.size_bytes === null ? (block.ref === null ? 'no data' : 'by reference') : formatBytes(block.size_bytes);
  return `${block.media_type ?? 'media (no type)'} · ${size}`;
}

/** What a message says, in one text: its text blocks, then each other block in a few words. */
export function messageWords(blocks: readonly ShownBlock[]): string {
  return blocks.map(blockWords).filter((words) => words.length > 0).join('\n');
}

/** The model's own words in a message: its text blocks only. */
export function spokenText(blocks: readonly ShownBlock[]): string {
  return blocks.flatMap((block) => (block.type === 'text' || block.type === 'text_with_state' ? [block.text] : [])).join('\n');
}

/** A call's gist, in characters at most (the row cuts it further to its width). */
export const GIST_CHARS_MAX = 240;
/** The argument that says what a shell tool runs, then what a file tool reads or writes, in the names agents'
 *  tools give them. */
const COMMAND_KEYS = ['command', 'cmd', 'script', 'code'];
const PATH_KEYS = ['path', 'file_path', 'filepath', 'filename', 'file', 'url'];
/** Any other text argument is a gist when it is at most this long (a file's content is not). */
const SHORT_ARG_CHARS_MAX = 120;

/** What a call was asked to do, in one line: a shell tool's command, a file tool's path (after the verb of a
 *  tool that takes one, "view src/a.ts"), else its first short text argument; null when it has none. */
export function argsGist(args: unknown): string | null {
  if (typeof args === 'string') return oneLine(args);
  if (!isMap(args)) return null;
  const command = firstText(args, COMMAND_KEYS);
  const target = firstText(args, PATH_KEYS);
  if (command !== null && target !== null && /^\w+$/.test(command)) return oneLine(`${command} ${target}`);
  const short = Object.values(args).find((value): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= SHORT_ARG_CHARS_MAX);
  const gist = command ?? target ?? short;
  return gist === undefined ? null : oneLine(gist);
}

function firstText(args: { [key: string]: unknown }, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = Object.hasOwn(args, key) ? args[key] : undefined;
    if (typeof value === 'string' && value.trim() !== '') return value;
    if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string')) return value.join(' ');
  }
  return null;
}

/** The first line of an output with text on it, its terminal escapes and control characters dropped (a row has
 *  one line for it; the output view draws the colours): a text output's, or a Parts output's first text part's. */
export function outputLine(output: unknown, textOf: (value: unknown) => ReadText | null = plainText): string | null {
  const text = textOf(output);
  if (text !== null) return firstLine(text.text);
  const parts = isMap(output) && Array.isArray(output['parts']) ? output['parts'] : Array.isArray(output) ? output : [];
  for (const part of parts.slice(0, BLOCKS_SHOWN_MAX)) {
    const part_text = isMap(part) && (part['type'] === 'text' || part['type'] === 'text_with_state') ? textOf(part['text']) : null;
    const line = part_text === null ? null : firstLine(part_text.text);
    if (line !== null) return line;
  }
  return null;
}

function firstLine(text: string): string | null {
  // Lines are looked for in the first characters only: a row shows one line, not a 16 MiB output's.
  for (const line of text.slice(0, GIST_CHARS_MAX * 64).split('\n')) {
    const plain = oneLine(line.replace(TERMINAL_ESCAPE, ''));
    if (plain !== '') return plain;
  }
  return null;
}

/** CSI (colours, cursor moves), OSC (titles, links) and two-character escape sequences. */
// eslint-disable-next-line no-control-regex -- the escapes are what it matches
const TERMINAL_ESCAPE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]?/g;
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/** A text on one line: control characters and runs of blanks as one space, cut to GIST_CHARS_MAX. */
function oneLine(text: string): string {
  const line = text.slice(0, GIST_CHARS_MAX * 4).replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return line.length > GIST_CHARS_MAX ? `${wholeChars(line.slice(0, GIST_CHARS_MAX - 1))}…` : line;
}

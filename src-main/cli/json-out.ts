// JSON documents too large to hold as one string (`replay --json` of a million records is ~150 MB of text):
// written in pieces, byte for byte what `JSON.stringify(value, null, 2)` gives, so that neither the whole
// text nor a whole derived object graph is ever in memory at once.
import { isAscii } from 'node:buffer';
import { writeOut, writePieces } from './command.js';

/** An array whose items are made one at a time as they are written (`map` of each source item). */
export class JsonSequence<T> {
  constructor(
    readonly source: readonly T[],
    readonly map: (item: T) => unknown,
  ) {}
}

/** Containers this deep or deeper are written with one JSON.stringify: small enough, and much faster ... */
const PIECE_DEPTH = 3;
/** ... unless an array of more items than this is in them, at any depth, which is written in runs of this many
 *  items: whole, an episode's 150,000 batches were one 120 MB string (`replay --json` peaked at 604 MB). */
const WHOLE_ITEMS_MAX = 1_000;
const INDENT = '  ';
/** Writes `value` and a newline to stdout, as `JSON.stringify(value, null, 2)` would, in pieces. */
export async function writeJsonOut(value: unknown): Promise<void> {
  await writePieces(jsonDocument(value), writeJsonText);
}

function* jsonDocument(value: unknown): Generator<string> {
  yield* jsonPieces(value, 0);
  yield '\n';
}

const DEL = 0x7f;

/** Writes JSON text to stdout as its UTF-8 bytes when the terminal guard (main.ts) would pass it unchanged, which
 *  for JSON text is when it is ASCII without DEL: JSON.stringify escapes every other control character, and the
 *  rest of what the guard escapes is not ASCII. Checking the bytes natively costs a fraction of the guard's scan
 *  of every character (~4 % of a million records' `replay --json`); other text goes through the guard. */
async function writeJsonText(text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  await writeOut(isAscii(bytes) && bytes.indexOf(DEL) === -1 ? bytes : text);
}

/** The pieces of `value`'s JSON text at nesting `depth` (its first line not indented, its others indented). */
export function* jsonPieces(value: unknown, depth: number): Generator<string> {
  const items = value instanceof JsonSequence ? value : Array.isArray(value) ? new JsonSequence(value, (item) => item) : null;
  if (items !== null && depth >= PIECE_DEPTH && items.source.length > WHOLE_ITEMS_MAX) {
    yield* longArrayPieces(items, depth);
    return;
  }
  if (items !== null && items.source.length > 0 && depth < PIECE_DEPTH) {
    const inner = INDENT.repeat(depth + 1);
    for (let index = 0; index < items.source.length; index++) {
      yield `${index === 0 ? '[' : ','}\n${inner}`;
      const item = items.map(items.source[index]!);
      // As in JSON.stringify, an array item that has no JSON form is null.
      yield* hasJsonForm(item) ? jsonPieces(item, depth + 1) : ['null'];
    }
    yield `\n${INDENT.repeat(depth)}]`;
    return;
  }
  if (items === null && isPlainObject(value) && (depth < PIECE_DEPTH || holdsLongArray(value))) {
    const keys = Object.keys(value).filter((key) => hasJsonForm(value[key]));
    if (keys.length > 0) {
      const inner = INDENT.repeat(depth + 1);
      for (const [index, key] of keys.entries()) {
        yield `${index === 0 ? '{' : ','}\n${inner}${JSON.stringify(key)}: `;
        yield* jsonPieces(value[key], depth + 1);
      }
      yield `\n${INDENT.repeat(depth)}}`;
      return;
    }
  }
  yield indentedJson(items === null ? value : items.source.map(items.map), depth);
}

/** `JSON.stringify(value, null, 2)` with every line after its first indented `depth` levels more: stringified
 *  inside `depth` arrays, which JSON.stringify indents itself, and cut out of them (re-indenting the text with a
 *  replace copied a million records' 150 MB once more). */
function indentedJson(value: unknown, depth: number): string {
  let wrapped = value;
  for (let level = 0; level < depth; level++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  // Each wrapping level opens with "[\n" and its indent and closes with "\n", its indent and "]".
  const opening_chars = depth * depth + 3 * depth;
  const closing_chars = depth * depth + depth;
  return text.slice(opening_chars, text.length - closing_chars);
}

/** A long array deep in the document, its items written a run of WHOLE_ITEMS_MAX at a time, each run one
 *  JSON.stringify cut out of its brackets (an item a piece cost a million records' `replay --json` 7 %); an
 *  item that holds a long array itself is written in pieces of its own. */
function* longArrayPieces(items: JsonSequence<unknown>, depth: number): Generator<string> {
  const inner = INDENT.repeat(depth + 1);
  const closing_chars = 1 + INDENT.length * depth + 1;
  let run: unknown[] = [];
  let opened = false;
  const opening = () => {
    const text = opened ? ',' : '[';
    opened = true;
    return text;
  };
  const flush = () => {
    const text = indentedJson(run, depth);
    run = [];
    return `${opening()}${text.slice(1, text.length - closing_chars)}`;
  };
  for (let index = 0; index < items.source.length; index++) {
    const item = items.map(items.source[index]!);
    if (!isLong(item)) {
      run.push(item);
      if (run.length === WHOLE_ITEMS_MAX) yield flush();
      continue;
    }
    if (run.length > 0) yield flush();
    yield `${opening()}\n${inner}`;
    yield* jsonPieces(item, depth + 1);
  }
  if (run.length > 0) yield flush();
  yield `\n${INDENT.repeat(depth)}]`;
}

/** An array of more than WHOLE_ITEMS_MAX items, or an object holding one. */
function isLong(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > WHOLE_ITEMS_MAX;
  return isPlainObject(value) && holdsLongArray(value);
}

/** Whether a member of `value` is an array written item by item (the fold's long lists are members of an
 *  episode or a batch, never deeper in one of their items). */
function holdsLongArray(value: Record<string, unknown>): boolean {
  for (const key in value) {
    const member = value[key];
    if ((Array.isArray(member) || member instanceof JsonSequence) && (member instanceof JsonSequence ? member.source : member).length > WHOLE_ITEMS_MAX) return true;
  }
  return false;
}

function hasJsonForm(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** An object JSON.stringify writes member by member: not an array, and without a toJSON of its own. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

// What every CLI command is, and the one argument parser they share. Exit codes: 0 usable/done, 1 refused or
// failed, 2 usage error, 141 stdout's reader went away (as for a process killed by SIGPIPE).
import { createRequire } from 'node:module';
import { parseArgs, type ParseArgsConfig } from 'node:util';

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_READER_GONE = 141;

export interface Command {
  summary: string;
  usage: string;
  run(argv: string[]): Promise<number>;
}

/** The version in package.json (the built CLI is out/cli/walscope.js, two folders below it). */
export function walscopeVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with strict checking, whose complaints become UsageErrors. */
export function parseCommandArgs<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A flag's value that must be a whole number from 1 (an episode, a step), else a UsageError naming the flag. */
export function positiveInteger(value: string, flag: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new UsageError(`${flag} takes a whole number from 1, not "${value}"`);
  return Number(value);
}

/** Writes text (or bytes, which the terminal guard passes as they are) to stdout and waits for it to drain, so
 *  large outputs survive piping and early exit. */
export async function writeOut(text: string | Uint8Array): Promise<void> {
  if (text.length === 0) return;
  if (process.stdout.write(text)) return;
  await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

/** Pieces are gathered up to this size before they are written. */
const WRITE_CHARS = 1_048_576;

/** Writes `pieces` (made as they are asked for) through `write`, gathered up to WRITE_CHARS at a time: an output
 *  as long as a million records' is never held whole. */
export async function writePieces(pieces: Iterable<string>, write: (text: string) => Promise<void> = writeOut): Promise<void> {
  let pending = '';
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= WRITE_CHARS) {
      await write(pending);
      pending = '';
    }
  }
  await write(pending);
}

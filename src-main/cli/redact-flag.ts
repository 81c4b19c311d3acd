// `--redact [LIST]`, the same for `report` and `bundle`: LIST names classes (outputs, args, inputs, model-text,
// secrets); the flag alone (last, or before another flag) means secrets.
import { parseRedactClasses, REDACT_CLASSES, type RedactClass, type RedactionManifest } from '../share/redaction.js';
import { UsageError } from './command.js';

/** argv with a `--redact` that has no list of its own given the empty list (parseArgs wants a value). */
export function redactFlagAlone(argv: readonly string[]): string[] {
  return argv.map((arg, at) => (arg === '--redact' && (at === argv.length - 1 || argv[at + 1]!.startsWith('-')) ? '--redact=' : arg));
}

export function redactClasses(list: string): RedactClass[] {
  try {
    return parseRedactClasses(list);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (the flag alone: secrets)`);
  }
}

export function redactedWords(manifest: RedactionManifest | null): string {
  return manifest === null ? '' : `; redacted (${manifest.classes.join(', ')}): ${manifest.entries.length} marker(s), their manifest in the file`;
}

export const REDACT_USAGE = `--redact [${REDACT_CLASSES.join(',')}]`;

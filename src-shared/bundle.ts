// A shared run's vocabulary (docs/share.md) that the app and the service both speak: the classes a share can
// redact, and the bundle the API answers with (getBundle) for the window to save. The share itself (its model,
// page, redaction and check) is src-main/share/'s.

/** What `--redact` and the app's redaction dialog name: a class of value replaced whole, or the secrets found in
 *  any text. */
export const REDACT_CLASSES = ['outputs', 'args', 'inputs', 'model-text', 'secrets'] as const;
export type RedactClass = (typeof REDACT_CLASSES)[number];

/** Each class in words, for the dialog. */
export const REDACT_CLASS_WORDS: Record<RedactClass, string> = {
  secrets: 'Secrets found in any text (API keys, tokens, private keys, connection strings, e-mail addresses)',
  outputs: 'Tool outputs',
  args: 'Tool arguments (and the targets the report quotes)',
  inputs: 'User inputs and steers',
  'model-text': 'The model\'s text and thinking',
};

/** A session's bundle as the API hands it to a window: one self-contained page to save as a new file. */
export interface BundleFile {
  /** A name to offer for it: the session's key, made a file name. */
  file_name: string;
  html: string;
  size_bytes: number;
  /** The classes redacted (empty: nothing), and how many markers replaced what they named. */
  classes: RedactClass[];
  markers: number;
}

/** What the desktop's save of a bundle came to: written (where, how large, how many markers), the dialog closed,
 *  or refused and why (a file that exists, a folder inside a state root, beside the WAL). */
export type SavedBundle =
  | { saved: true; path: string; size_bytes: number; markers: number }
  | { saved: false; canceled: true }
  | { saved: false; canceled: false; message: string };

/** `classes` as a list the API takes: known classes, each once, in REDACT_CLASSES' order. Null when not one. */
export function redactList(value: unknown): RedactClass[] | null {
  if (!Array.isArray(value) || value.length > REDACT_CLASSES.length) return null;
  if (!value.every((name) => (REDACT_CLASSES as readonly unknown[]).includes(name))) return null;
  if (new Set(value).size !== value.length) return null;
  return REDACT_CLASSES.filter((name) => value.includes(name));
}

/** The file name a bundle of the session `key` is offered under. */
export function bundleFileName(key: string): string {
  const base = key.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '').slice(0, 120);
  return `${base === '' ? 'session' : base}-bundle.html`;
}

// Redaction at share time (docs/share.md): each value of a class the user names (tool outputs, tool arguments,
// user inputs, model text) and each secret found in any text is replaced by a marker that says what it was, its
// length and the SHA-256 of the original, and the manifest records where the original is, so that whoever holds
// the WAL can check every marker against it (`walscope bundle --check-against`). Pure: values in, values and the
// manifest out; what reads the WAL hands them in.
import { createHash } from 'node:crypto';
import type { JsonValue } from '../../src-shared/replay.js';
import { REDACT_CLASSES, type RedactClass } from '../../src-shared/bundle.js';
import type { SecretHit } from './secrets.js';

export { REDACT_CLASSES, type RedactClass };
/** A value's own class: what a user names to redact it whole (secrets are found inside any text). */
export type ValueClass = Exclude<RedactClass, 'secrets'>;

export const MANIFEST_FORMAT = 'walscope-redactions/1';
/** The id of the page element (a `<script type="application/json">`) that carries the manifest. */
export const MANIFEST_ELEMENT_ID = 'walscope-redactions';

/** Where an original is: a member of a record's payload (read back at its frame offset), a field of the session's
 *  fold, or a field of the support report, each computed again from the WAL by the check. */
export type RedactionSource = { source: 'record'; offset: number; seq: number | null; type: string } | { source: 'fold' } | { source: 'report' };
export type Where = RedactionSource & { path: (string | number)[] };

export interface ManifestEntry {
  id: number;
  reason: RedactClass;
  /** The secret rule that matched (a secretlint rule id or one of ours), null for a class. */
  rule: string | null;
  where: Where;
  /** A secret: the characters [start, end) of the text at `where` (UTF-16 indexes); null: the whole value. */
  span: { start: number; end: number } | null;
  /** UTF-8 bytes of what was hashed: the text itself, or a value that is not a text as its JSON. */
  bytes: number;
  sha256: string;
}

export interface RedactionManifest {
  format: typeof MANIFEST_FORMAT;
  classes: RedactClass[];
  wal: { name: string; size_bytes: number; sha256: string };
  secret_rules: string;
  entries: ManifestEntry[];
}

/** A marker as it stands in place of a value: delimited by ⟦ ⟧, which the redactor removes from every WAL text it
 *  passes, so a marker-shaped text in a WAL is never taken for one. */
export const MARKER_PATTERN = /⟦redacted ([a-z-]+) #(\d+): (\d+) bytes, sha256 ([0-9a-f]{64})⟧/g;

export function markerText(entry: Pick<ManifestEntry, 'id' | 'reason' | 'bytes' | 'sha256'>): string {
  return `⟦redacted ${entry.reason} #${entry.id}: ${entry.bytes} bytes, sha256 ${entry.sha256}⟧`;
}

/** The text a value is hashed as: a text itself, anything else its JSON. */
export function hashedText(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : (JSON.stringify(value ?? null) ?? 'null');
}

export function digestOf(text: string): { bytes: number; sha256: string } {
  return { bytes: Buffer.byteLength(text, 'utf8'), sha256: createHash('sha256').update(text, 'utf8').digest('hex') };
}

/** Parses `--redact`'s list; the empty list (the flag given alone) means secrets. */
export function parseRedactClasses(list: string): RedactClass[] {
  const names = list.split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  if (names.length === 0) return ['secrets'];
  const unknown = names.filter((name) => !(REDACT_CLASSES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`--redact takes ${REDACT_CLASSES.join(', ')}; not ${unknown.join(', ')}`);
  return REDACT_CLASSES.filter((name) => names.includes(name));
}

/** A classifier says which class a node of a value is, from its path and its parents (null: walk into it). */
export type Classify = (path: readonly (string | number)[], parents: readonly JsonValue[]) => ValueClass | null;

export class Redactor {
  readonly entries: ManifestEntry[] = [];
  private readonly ids = new Map<string, number>();
  /** Originals redacted whole that a derived text may quote (a call's target, in the report's sentences). */
  private readonly quoted = new Map<string, string>();

  constructor(
    readonly classes: readonly RedactClass[],
    /** The secrets found in each text, by the text (secrets.ts scans every text before anything is redacted). */
    private readonly secrets: ReadonlyMap<string, readonly SecretHit[]>,
  ) {}

  get redacts_secrets(): boolean {
    return this.classes.includes('secrets');
  }

  /** `value` with what `classify` names and every secret replaced by markers. */
  value(value: JsonValue, source: RedactionSource, classify: Classify, path: (string | number)[] = [], parents: JsonValue[] = []): JsonValue {
    const cls = classify(path, parents);
    if (cls !== null && this.classes.includes(cls)) return this.whole(value, cls, { ...source, path: path.slice() });
    if (typeof value === 'string') return this.text(value, { ...source, path: path.slice() });
    if (typeof value !== 'object' || value === null) return value;
    // A fold's long lists may be chunked (src-shared/parts.ts): shared as the arrays they stand for.
    const list = Array.isArray(value) ? value : isPartsList(value) ? Array.from(value as unknown as Iterable<JsonValue>) : null;
    if (list !== null) return list.map((item, at) => this.value(item, source, classify, [...path, at], [...parents, list]));
    const copy: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, key, { value: this.value(item, source, classify, [...path, key], [...parents, value]), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }

  /** Remembers that `original`, redacted whole as `marker`, may be quoted inside derived texts. */
  quote(original: string, marker: string): void {
    if (original.length >= QUOTED_CHARS_MIN) this.quoted.set(original, marker);
  }

  /** A text with every secret in it, and every quoted original (`quote`), replaced by markers. */
  text(value: string, where: Where): string {
    const cleaned = value.replace(/[⟦⟧]/g, (bracket) => (bracket === '⟦' ? '⟨' : '⟩'));
    const spans: { start: number; end: number; reason: RedactClass; rule: string | null }[] = [];
    if (this.redacts_secrets) for (const hit of this.secrets.get(value) ?? []) spans.push({ start: hit.start, end: hit.end, reason: 'secrets', rule: hit.rule });
    for (const [original, marker] of this.quoted) {
      for (let at = value.indexOf(original); at >= 0; at = value.indexOf(original, at + original.length)) spans.push({ start: at, end: at + original.length, reason: reasonOf(marker), rule: null });
    }
    if (spans.length === 0) return cleaned;
    spans.sort((a, b) => a.start - b.start || b.end - a.end);
    let out = '';
    let from = 0;
    for (const span of spans) {
      if (span.start < from) continue;
      out += cleaned.slice(from, span.start);
      out += this.marker(value.slice(span.start, span.end), span.reason, span.rule, where, { start: span.start, end: span.end });
      from = span.end;
    }
    return out + cleaned.slice(from);
  }

  manifest(wal: RedactionManifest['wal'], secret_rules: string): RedactionManifest {
    return { format: MANIFEST_FORMAT, classes: [...this.classes], wal, secret_rules, entries: this.entries };
  }

  private whole(value: JsonValue, reason: ValueClass, where: Where): string {
    const marker = this.marker(hashedText(value), reason, null, where, null);
    if (typeof value === 'string') this.quote(value, marker);
    return marker;
  }

  /** The marker of one original, the same one each time the same place is redacted again. */
  private marker(original: string, reason: RedactClass, rule: string | null, where: Where, span: ManifestEntry['span']): string {
    const key = JSON.stringify([where, span, reason]);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.entries.length + 1;
      this.ids.set(key, id);
      this.entries.push({ id, reason, rule, where, span, ...digestOf(original) });
    }
    return markerText(this.entries[id - 1]!);
  }
}

function isPartsList(value: object): boolean {
  return Symbol.iterator in value && typeof (value as { at?: unknown }).at === 'function';
}

/** A quoted original shorter than this is not looked for in derived texts (a one-letter target is everywhere). */
const QUOTED_CHARS_MIN = 4;

function reasonOf(marker: string): RedactClass {
  return (/^⟦redacted ([a-z-]+) /.exec(marker)?.[1] ?? 'args') as RedactClass;
}

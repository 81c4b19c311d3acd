// `walscope bundle --check-against WAL FILE.html`: every marker in a bundle (or a report) checked against the
// original it stands for. The manifest says where each original is; the check takes it from the WAL again (the
// record's payload at its offset, the fold's field, the report's field) and hashes it as the redactor did. A
// marker whose class, length or hash differs from its manifest entry, an entry whose original does not hash to
// what it says, and a marker with no entry are each named.
import type { JsonPayload, JsonValue, SessionFold } from '../../src-shared/replay.js';
import type { SupportReport } from '../../src-shared/report.js';
import type { PayloadReader } from '../replay/payloads.js';
import { digestOf, hashedText, MANIFEST_ELEMENT_ID, MANIFEST_FORMAT, MARKER_PATTERN, type ManifestEntry, type RedactionManifest } from './redaction.js';

export interface Originals {
  file: { name: string; size_bytes: number; sha256: string };
  fold: SessionFold;
  report: SupportReport;
  payloads: PayloadReader;
}

export interface CheckResult {
  markers: number;
  entries: number;
  problems: string[];
}

const MANIFEST_BLOCK = new RegExp(`<script type="application/json" id="${MANIFEST_ELEMENT_ID}">([^<]*)</script>`);

/** The manifest a page carries, or null when it carries none. */
export function manifestOf(html: string): RedactionManifest | null {
  const block = MANIFEST_BLOCK.exec(html);
  if (block === null) return null;
  const manifest = JSON.parse(block[1]!) as RedactionManifest;
  if (manifest.format !== MANIFEST_FORMAT || !Array.isArray(manifest.entries)) throw new Error(`the manifest is not ${MANIFEST_FORMAT}`);
  return manifest;
}

export function checkMarkers(html: string, manifest: RedactionManifest, originals: Originals): CheckResult {
  const problems: string[] = [];
  if (manifest.wal.sha256 !== originals.file.sha256) problems.push(`the bundle was made from a file with SHA-256 ${manifest.wal.sha256} (${manifest.wal.size_bytes} bytes), not this one (${originals.file.sha256}, ${originals.file.size_bytes} bytes)`);
  const by_id = new Map(manifest.entries.map((entry) => [entry.id, entry]));
  let markers = 0;
  for (const match of html.replace(MANIFEST_BLOCK, '').matchAll(MARKER_PATTERN)) {
    markers++;
    const [text, reason, id, bytes, sha256] = match;
    const entry = by_id.get(Number(id));
    if (entry === undefined) problems.push(`marker #${id} has no entry in the manifest: ${text}`);
    else if (entry.reason !== reason || entry.bytes !== Number(bytes) || entry.sha256 !== sha256) problems.push(`marker #${id} was altered: the page says ${reason}, ${bytes} bytes, sha256 ${sha256}; its manifest entry says ${entry.reason}, ${entry.bytes} bytes, sha256 ${entry.sha256}`);
  }
  for (const entry of manifest.entries) {
    const problem = entryProblem(entry, originals);
    if (problem !== null) problems.push(`marker #${entry.id} (${entry.reason}) does not match the original: ${problem}`);
  }
  return { markers, entries: manifest.entries.length, problems };
}

function entryProblem(entry: ManifestEntry, originals: Originals): string | null {
  const root = rootOf(entry, originals);
  if (typeof root === 'string') return root;
  const value = valueAt(root, entry.where.path);
  if (value === undefined) return `nothing is at ${pathText(entry)}`;
  let text = hashedText(value as JsonValue);
  if (entry.span !== null) {
    if (typeof value !== 'string' || entry.span.end > value.length || entry.span.start < 0) return `the text at ${pathText(entry)} has no characters ${entry.span.start}–${entry.span.end}`;
    text = value.slice(entry.span.start, entry.span.end);
  }
  const digest = digestOf(text);
  if (digest.sha256 !== entry.sha256 || digest.bytes !== entry.bytes) return `the original at ${pathText(entry)} is ${digest.bytes} bytes with sha256 ${digest.sha256}, the marker says ${entry.bytes} bytes, sha256 ${entry.sha256}`;
  return null;
}

function rootOf(entry: ManifestEntry, originals: Originals): unknown {
  const where = entry.where;
  if (where.source === 'fold') return originals.fold;
  if (where.source === 'report') return originals.report;
  try {
    return originals.payloads(where.offset) satisfies JsonPayload;
  } catch (error) {
    return `the record at offset ${where.offset} does not read back: ${(error as Error).message}`;
  }
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    if (typeof key === 'number') value = typeof (value as { at?: unknown }).at === 'function' ? (value as { at(index: number): unknown }).at(key) : undefined;
    else value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

function pathText(entry: ManifestEntry): string {
  const where = entry.where;
  const place = where.source === 'record' ? `the ${where.type} record at offset ${where.offset}${where.seq === null ? '' : ` (seq ${where.seq})`}` : `the session's ${where.source}`;
  return `${place}, ${where.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('') || '(whole)'}`;
}

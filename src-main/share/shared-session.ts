// What a share shows of one session, redacted (redaction.ts) or not: its fold, its support report and a reader of
// its payloads. Redacted, every text of all three has been scanned for secrets first (secrets.ts is
// asynchronous), and every value of a class named is a marker before anything is rendered, so nothing downstream
// (the timeline, the transcript, each step's request, the report's facts) ever holds an original.
import type { JsonPayload, JsonValue, SessionFold } from '../../src-shared/replay.js';
import type { SupportReport } from '../../src-shared/report.js';
import type { PayloadReader } from '../replay/payloads.js';
import { Redactor, type Classify, type RedactClass, type RedactionManifest, type RedactionSource, type ValueClass } from './redaction.js';
import { scanSecrets, SECRET_RULES } from './secrets.js';

export interface SharedSession {
  fold: SessionFold;
  report: SupportReport;
  payloads: PayloadReader;
  /** null when nothing is redacted. */
  manifest: RedactionManifest | null;
}

/** A record the fold points at, whose payload a share reads back. */
export interface PayloadRecord {
  offset: number;
  seq: number | null;
  type: string;
}

/** Every record whose payload the timeline, the transcript and the requests read back: each recorded step's
 *  model_step_finished, each call's intent and terminals. */
export function payloadRecords(fold: SessionFold): PayloadRecord[] {
  const records: PayloadRecord[] = [];
  for (const episode of fold.episodes) {
    for (const step of episode.steps) if (step.offset !== null) records.push({ offset: step.offset, seq: step.seq, type: 'model_step_finished' });
    for (const batch of episode.batches) {
      for (const call of batch.calls) {
        if (call.intent !== null) records.push({ offset: call.intent.offset, seq: call.intent.seq, type: 'tool_dispatch_intent' });
        for (const terminal of call.terminals) records.push({ offset: terminal.offset, seq: terminal.seq, type: terminal.type });
      }
    }
  }
  return records;
}

/** The payloads of every record `payloadRecords` names, read once (through one pass over the file): a share reads
 *  each many times (the timeline, the transcript, every request that holds it). */
export function readPayloads(fold: SessionFold, read: PayloadReader): Map<number, JsonPayload> {
  const originals = new Map<number, JsonPayload>();
  for (const record of payloadRecords(fold)) if (!originals.has(record.offset)) originals.set(record.offset, read(record.offset));
  return originals;
}

/** The session as it is shared: as it is when `classes` is empty, else redacted. `originals`: `readPayloads`'. */
export async function sharedSession(fold: SessionFold, report: SupportReport, originals: ReadonlyMap<number, JsonPayload>, classes: readonly RedactClass[]): Promise<SharedSession> {
  const records = new Map(payloadRecords(fold).map((record) => [record.offset, record]));
  if (classes.length === 0) return { fold, report, payloads: (offset) => originals.get(offset) ?? unscanned(offset), manifest: null };
  const texts = new Set<string>();
  if (classes.includes('secrets')) {
    collectTexts(fold, texts);
    collectTexts(report, texts);
    for (const payload of originals.values()) collectTexts(payload, texts);
  }
  const redactor = new Redactor(classes, await scanSecrets(texts));
  quoteTargets(fold, redactor);
  const shared_fold = redactor.value(fold as unknown as JsonValue, { source: 'fold' }, foldClass) as unknown as SessionFold;
  const shared_report = redactor.value(report as unknown as JsonValue, { source: 'report' }, () => null) as unknown as SupportReport;
  const redacted = new Map<number, JsonPayload>();
  const reader: PayloadReader = (offset) => {
    let payload = redacted.get(offset);
    if (payload !== undefined) return payload;
    const record = records.get(offset);
    const original = originals.get(offset);
    if (record === undefined || original === undefined) return unscanned(offset);
    const source: RedactionSource = { source: 'record', offset, seq: record.seq, type: record.type };
    payload = redactor.value(original, source, recordClass(record.type)) as JsonPayload;
    redacted.set(offset, payload);
    return payload;
  };
  return { fold: shared_fold, report: shared_report, payloads: reader, manifest: redactor.manifest(report.file, SECRET_RULES) };
}

/** The support report redacted alone (`walscope report --redact`): its texts scanned, the calls' targets (which its
 *  sentences quote) redacted with args. */
export async function sharedReport(fold: SessionFold, report: SupportReport, classes: readonly RedactClass[]): Promise<{ report: SupportReport; manifest: RedactionManifest }> {
  const texts = new Set<string>();
  if (classes.includes('secrets')) collectTexts(report, texts);
  const redactor = new Redactor(classes, await scanSecrets(texts));
  quoteTargets(fold, redactor);
  const shared = redactor.value(report as unknown as JsonValue, { source: 'report' }, () => null) as unknown as SupportReport;
  return { report: shared, manifest: redactor.manifest(report.file, SECRET_RULES) };
}

/** Every payload a share shows is one the fold points at, read (and scanned) before; any other would not be. */
function unscanned(offset: number): never {
  throw new Error(`the share read the record at offset ${offset}, which the fold does not point at: it was not read with the others`);
}

/** Registers each call's target (a path or a command from its args, which the report quotes in its sentences)
 *  as redacted, when args are. */
function quoteTargets(fold: SessionFold, redactor: Redactor): void {
  if (!redactor.classes.includes('args')) return;
  fold.episodes.forEach((episode, e) => {
    for (let b = 0; b < episode.batches.length; b++) {
      episode.batches.at(b)!.calls.forEach((call, c) => {
        if (call.intent?.target != null) redactor.value(call.intent.target, { source: 'fold' }, foldClass, ['episodes', e, 'batches', b, 'calls', c, 'intent', 'target']);
      });
    }
  });
}

/** Every text in a value (object keys are kept as they are: a payload's member names are its format's). */
function collectTexts(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') into.add(value);
  else if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) for (const item of Array.isArray(value) ? value : Object.values(value)) collectTexts(item, into);
}

/** The classes of a fold's values: an episode's input and steers are the user's, a compaction view's replacement
 *  is messages, a call's target comes from its args. */
const foldClass: Classify = (path, parents) => {
  if (path[0] === 'queue' && path[2] === 'request' && path.length === 3) return 'inputs';
  if (path[0] !== 'episodes') return null;
  const [, , field] = path;
  if (field === 'input') return inputClass(path.slice(3));
  if (field === 'steers' && path[4] === 'input') return inputClass(path.slice(5));
  if (field === 'steps' && path[4] === 'notes' && path[6] === 'payload' && path[7] === 'replacement' && path.length >= 9) return messageClass(path.slice(9), parents[9]);
  if (field === 'batches' && path[6] === 'intent' && path[7] === 'target' && path.length === 8) return 'args';
  return null;
};

/** An input is a list of messages, each one's content the user's; an input of another shape is the user's whole. */
function inputClass(rest: readonly (string | number)[]): ValueClass | null {
  if (rest.length === 0) return null;
  return rest.length === 2 && rest[1] === 'content' ? 'inputs' : null;
}

const recordClass = (type: string): Classify => (path, parents) => {
  if (type === 'tool_result') return path.length === 1 && path[0] === 'output' ? 'outputs' : null;
  if (type === 'tool_dispatch_intent') return path.length === 1 && path[0] === 'args' ? 'args' : null;
  if (type === 'model_step_finished' && path[0] === 'assistant_message') return messageClass(path.slice(1), parents[1]);
  return null;
};

/** Block members that say what a block is, not what it says: kept. */
const BLOCK_FRAME_KEYS = new Set(['type', 'id', 'tool_use_id', 'name', 'is_error', 'media_type', 'signature']);

/** The class of a member of a message, by its role and its block's type. */
function messageClass(rest: readonly (string | number)[], message: JsonValue | undefined): ValueClass | null {
  if (rest[0] !== 'content' || typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const role = roleClass(message['role']);
  const content = message['content'];
  if (rest.length === 1) return typeof content === 'string' ? role : null;
  if (rest.length !== 3 || !Array.isArray(content)) return null;
  const block = content[rest[1] as number];
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return null;
  const key = String(rest[2]);
  if (BLOCK_FRAME_KEYS.has(key)) return null;
  if (block['type'] === 'tool_use') return key === 'input' ? 'args' : null;
  if (block['type'] === 'tool_result') return 'outputs';
  return role;
}

function roleClass(role: JsonValue | undefined): ValueClass {
  if (role === 'assistant') return 'model-text';
  return role === 'tool' ? 'outputs' : 'inputs';
}

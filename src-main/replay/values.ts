// Reading payload fields without trusting them: a field of the wrong type reads as absent, so the fold never
// throws on a record a writer got wrong. Byte strings become lowercase hex (wal-format §3, JSON forms).
import { toJsonValue } from '../../src-shared/json.js';
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';

/** The JSON form of a payload; a hostile "__proto__" key stays an ordinary field (toJsonValue guards it). */
export function toJsonPayload(payload: Payload): JsonPayload {
  return toJsonValue(payload) as JsonPayload;
}

export function isMap(value: JsonValue | undefined): value is JsonPayload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(payload: JsonPayload, key: string): string | null {
  return asText(payload[key]);
}

export function integer(payload: JsonPayload, key: string): number | null {
  return asInteger(payload[key]);
}

/** A member's value as text, or null: for members read from their places (the fold's kept records). */
export function asText(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

export function asInteger(value: JsonValue | undefined): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

export function flag(payload: JsonPayload, key: string): boolean {
  return payload[key] === true;
}

export function texts(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function mapOrNull(payload: JsonPayload, key: string): JsonPayload | null {
  const value = payload[key];
  return isMap(value) ? value : null;
}

/** The tool_use blocks of an assistant message, in source order. */
export function toolUses(message: JsonValue): { id: string; name: string }[] {
  if (!isMap(message) || !Array.isArray(message['content'])) return [];
  const uses: { id: string; name: string }[] = [];
  for (const block of message['content']) {
    if (!isMap(block) || block['type'] !== 'tool_use') continue;
    uses.push({ id: text(block, 'id') ?? '', name: text(block, 'name') ?? '' });
  }
  return uses;
}

/** Args keys that usually name what a call acts on, most telling first. */
export const TARGET_KEYS = ['path', 'file', 'file_path', 'filename', 'target', 'to', 'url', 'name', 'id', 'key'] as const;
const TARGET_CHARS_MAX = 80;

/** What a call's args say it acts on ("c2.txt"), or null: the fold keeps this, not the args (CallIntent.target). */
export function targetHint(args: JsonValue): string | null {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
  for (const key of TARGET_KEYS) {
    if (!Object.hasOwn(args, key)) continue;
    const value = args[key];
    if ((typeof value === 'string' && value.length > 0) || typeof value === 'number') return String(value).slice(0, TARGET_CHARS_MAX);
  }
  return null;
}

/** One definition for the fold and the engine's lineage counters (wal-format §11). */
export { highestTag } from '../engine/index.js';

// The project's JSON form of CBOR values: byte strings become lowercase hex (wal-format §3).
import type { CborValue } from './wal.js';

export type JsonValue = number | string | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export function toJsonValue(value: CborValue): JsonValue {
  if (value instanceof Uint8Array) {
    let text = '';
    for (const byte of value) text += byte.toString(16).padStart(2, '0');
    return text;
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, { value: toJsonValue(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

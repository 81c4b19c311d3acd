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
    for (const key of Object.keys(value)) {
      const item = toJsonValue(value[key]!);
      // Assignment to "__proto__" would swap the prototype; defineProperty for every key is slow (V8).
      if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
      else out[key] = item;
    }
    return out;
  }
  return value;
}

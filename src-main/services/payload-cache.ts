// The payloads a session's reader read last, kept: a page of rows re-read while scrolling costs no read.
import type { JsonPayload } from '../../src-shared/replay.js';
import type { PayloadProjection, PayloadReader } from '../replay/payloads.js';

/** The cache holds at most this many payloads of at most this many characters of JSON text in all (an output is
 *  up to 16 MiB). */
const PAYLOADS_CACHED_MAX = 256;
const PAYLOADS_CACHED_CHARS_MAX = 8 * 1024 * 1024;

/** `read` with the payloads it read last kept, least recently used dropped first, each under its offset and
 *  what was built of it (a preview is not the payload). An offset names one record of an append-only WAL: a
 *  file replaced under it restarts the session's read, and its reader with it. */
export function cachedPayloads(read: PayloadReader): PayloadReader {
  const kept = new Map<string, { payload: JsonPayload; chars: number }>();
  // A number per projection asked for (they are a few module constants), 0 being the whole payload.
  const projection_ids = new Map<PayloadProjection, number>();
  let chars_kept = 0;
  const projectionId = (projection: PayloadProjection): number => {
    let id = projection_ids.get(projection);
    if (id === undefined) projection_ids.set(projection, (id = projection_ids.size + 1));
    return id;
  };
  return (offset, projection) => {
    const key = `${projection === undefined ? 0 : projectionId(projection)}:${offset}`;
    const hit = kept.get(key);
    if (hit !== undefined) {
      kept.delete(key);
      kept.set(key, hit);
      return hit.payload;
    }
    const payload = read(offset, projection);
    const chars = JSON.stringify(payload).length;
    if (chars > PAYLOADS_CACHED_CHARS_MAX) return payload;
    kept.set(key, { payload, chars });
    chars_kept += chars;
    for (const [oldest, entry] of kept) {
      if (kept.size <= PAYLOADS_CACHED_MAX && chars_kept <= PAYLOADS_CACHED_CHARS_MAX) break;
      kept.delete(oldest);
      chars_kept -= entry.chars;
    }
    return payload;
  };
}

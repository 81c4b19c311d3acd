// Reading back what the fold leaves on disk. The fold keeps where each tool output is (its terminal record's
// offset), not the output: outputs are most of a WAL's bytes, up to 16 MiB each. Whoever shows or sends an
// output reads its record back here, digest re-checked, when it needs it.
import type { CallTerminal, JsonPayload, JsonValue } from '../../src-shared/replay.js';
import { nodeFileIO, type FileIO } from '../engine/file-io.js';
import { frameInBuffer, readFrameAt, type FrameAt } from '../engine/frame-access.js';
import { toJsonPayload } from './values.js';

/** The payload of the record whose frame starts at `offset`, in its JSON form. */
export type PayloadReader = (offset: number) => JsonPayload;

/** Reads payloads from the WAL at `wal_path`, one open per read: a file replaced since the fold fails the
 *  digest or the decode and names the offset (FrameReadError), never returns another record's bytes. */
export function walPayloadReader(wal_path: string, io: FileIO = nodeFileIO): PayloadReader {
  return (offset) => payloadOf(readFrameAt(wal_path, offset, { io }), offset);
}

/** Reads payloads from a WAL image held in memory (the crash simulator's disk views). */
export function bufferPayloadReader(wal_bytes: Buffer): PayloadReader {
  return (offset) => payloadOf(frameInBuffer(wal_bytes, offset), offset);
}

/** The payload of a frame read back, or FrameReadError naming the offset and why it no longer reads back. */
export function payloadOf(frame: FrameAt, offset: number): JsonPayload {
  if (frame.kind === 'io') throw new FrameReadError(offset, frame.message);
  if (frame.kind === 'damaged') throw new FrameReadError(offset, frame.reason.replaceAll('_', ' '));
  if (frame.body.kind !== 'ok') throw new FrameReadError(offset, frame.body.message);
  return toJsonPayload(frame.body.body.payload ?? {});
}

export class FrameReadError extends Error {
  override name = 'FrameReadError';
  constructor(
    readonly offset: number,
    reason: string,
  ) {
    super(`the record at offset ${offset} no longer reads back (${reason}): the WAL changed since it was read; reopen it`);
  }
}

/** For what only counts or checks the shape of messages (resume_started.replayed, provider validity): every
 *  output reads as absent. Never for a request that is sent or shown. */
export const OUTPUTS_UNREAD: PayloadReader = () => ({});

/** A tool_result terminal's output, read back from its record. */
export function terminalOutput(terminal: CallTerminal, payloads: PayloadReader): JsonValue {
  if (terminal.type !== 'tool_result') return null;
  return payloads(terminal.offset)['output'] ?? null;
}

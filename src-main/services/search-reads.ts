// The reads a session's searches make (views/session-search.ts), of its WAL through the model's FileIO seam: its
// payloads in one pass, and its records' payload maps as stored, each frame's header and digest checked.
import { FrameFile, FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, type FileIO } from '../engine/index.js';
import { withPayloadPass } from '../recovery/payloads.js';
import type { SearchReads } from '../views/session-search.js';

export function walSearchReads(wal_path: string, io: FileIO): SearchReads {
  return {
    payloadPass: (use) => withPayloadPass(wal_path, use, io),
    recordPass(use) {
      const file = FrameFile.open(wal_path, io);
      if (!(file instanceof FrameFile)) return null;
      try {
        return use((offset) => {
          const frame = file.checked(offset);
          return frame.kind === 'ok' ? frame.bytes.toString('latin1', FRAME_HEADER_BYTES, frame.bytes.length - FRAME_DIGEST_BYTES) : null;
        });
      } finally {
        file.close();
      }
    },
  };
}

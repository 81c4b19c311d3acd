// A FileIO over the real file system that counts the reads made through it and the bytes they returned: tests
// hold reading work to a bound this way, never by timing it.
import { nodeFileIO, type FileIO } from '../../src-main/engine/file-io.js';

export function countingIO(): { io: FileIO; read_bytes: () => number; reads: () => number } {
  let read_bytes = 0;
  let reads = 0;
  const io: FileIO = {
    ...nodeFileIO,
    read(fd, buffer, offset, length, position) {
      const count = nodeFileIO.read(fd, buffer, offset, length, position);
      read_bytes += Math.max(0, count);
      reads += 1;
      return count;
    },
  };
  return { io, read_bytes: () => read_bytes, reads: () => reads };
}

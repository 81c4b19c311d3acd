// A FileIO over the real file system that counts the reads made through it and the bytes they returned, and the
// opens of each path: tests hold reading work to a bound this way, never by timing it.
import { nodeFileIO, type FileIO } from '../../src-main/engine/file-io.js';

export function countingIO(): { io: FileIO; read_bytes: () => number; reads: () => number; opens: (file: string) => number } {
  let read_bytes = 0;
  let reads = 0;
  const opens = new Map<string, number>();
  const io: FileIO = {
    ...nodeFileIO,
    open(file, mode) {
      opens.set(file, (opens.get(file) ?? 0) + 1);
      return nodeFileIO.open(file, mode);
    },
    read(fd, buffer, offset, length, position) {
      const count = nodeFileIO.read(fd, buffer, offset, length, position);
      read_bytes += Math.max(0, count);
      reads += 1;
      return count;
    },
  };
  return { io, read_bytes: () => read_bytes, reads: () => reads, opens: (file) => opens.get(file) ?? 0 };
}

// Warming the page cache for the WALs a root reads next. A root's first open reads every WAL once, one after
// the other on the session worker's thread (hash, validate, fold); from a cold disk that thread also waited for
// each file's reads in turn (a root of 2,000 sessions: 13.95 s from disk against 9.50 s from the page cache).
// Reading the next files ahead, asynchronously on libuv's threads, overlaps the disk with the hashing. What is
// read ahead is thrown away: it only has to be in the page cache when the real read (which checks everything)
// comes. A failure here is ignored: the real read meets it and reports it.
import fs from 'node:fs';

/** At most this many bytes read ahead of the real read: the page cache holds them until it comes. */
export const READ_AHEAD_BYTES_MAX = 64 * 1_048_576;
const CHUNK_BYTES = 4 * 1_048_576;
/** Reads in flight: one per chunk buffer. A read's callback runs only when the worker's thread turns, so two
 *  keep the disk busy across a turn spent hashing. */
const READS_IN_FLIGHT_MAX = 2;

interface AheadFile {
  path: string;
  size_bytes: number;
}

export class ReadAhead {
  /** Files planned, in the order the real read will take them. */
  private queue: AheadFile[] = [];
  /** Files read (or being read) ahead and not yet taken by the real read, with their sizes. */
  private readonly ahead = new Map<string, number>();
  private ahead_bytes = 0;
  private current: { path: string; fd: number; position: number; size_bytes: number } | null = null;
  private opening = false;
  private readonly free_buffers: Buffer[] = [];
  private reads_in_flight = 0;
  private closed = false;
  /** Bytes read ahead over this reader's life (what the tests count). */
  bytes_read = 0;

  constructor(private readonly bytes_ahead_max = READ_AHEAD_BYTES_MAX) {
    for (let count = 0; count < READS_IN_FLIGHT_MAX; count++) this.free_buffers.push(Buffer.allocUnsafe(CHUNK_BYTES));
  }

  /** The files the real read takes next, in its order: any of them not read ahead yet is, in order, while the
   *  bytes ahead stay under the bound. Replaces the previous plan; a file read ahead and no longer planned (read
   *  already, or gone) no longer counts as ahead. */
  plan(files: readonly AheadFile[]): void {
    const planned = new Set(files.map((file) => file.path));
    for (const [path, size_bytes] of this.ahead) {
      if (planned.has(path)) continue;
      this.ahead.delete(path);
      this.ahead_bytes -= size_bytes;
    }
    // Of a file larger than the bound, its first bytes_ahead_max (the real read takes it from its start).
    this.queue = files
      .filter((file) => !this.ahead.has(file.path))
      .map((file) => ({ path: file.path, size_bytes: Math.min(file.size_bytes, this.bytes_ahead_max) }));
    this.pump();
  }

  /** The real read has taken `path`: its bytes no longer count as ahead. */
  taken(path: string): void {
    const size_bytes = this.ahead.get(path);
    if (size_bytes === undefined) return;
    this.ahead.delete(path);
    this.ahead_bytes -= size_bytes;
    this.pump();
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    if (this.current !== null && this.reads_in_flight === 0) this.finishCurrent();
  }

  private pump(): void {
    if (this.closed) return;
    if (this.current === null) {
      this.openNext();
      return;
    }
    const current = this.current;
    while (this.free_buffers.length > 0 && current.position < current.size_bytes) {
      const buffer = this.free_buffers.pop()!;
      const length = Math.min(CHUNK_BYTES, current.size_bytes - current.position);
      const position = current.position;
      current.position += length;
      this.reads_in_flight += 1;
      fs.read(current.fd, buffer, 0, length, position, (error, bytes_read) => {
        this.reads_in_flight -= 1;
        this.free_buffers.push(buffer);
        this.bytes_read += error === null ? bytes_read : 0;
        // A short read or an error ends this file: the real read will say what is wrong with it.
        if (error !== null || bytes_read < length) current.position = current.size_bytes;
        if (this.reads_in_flight === 0 && (current.position >= current.size_bytes || this.closed)) this.finishCurrent();
        this.pump();
      });
    }
  }

  private openNext(): void {
    if (this.opening) return;
    const next = this.queue[0];
    if (next === undefined || this.ahead_bytes + next.size_bytes > this.bytes_ahead_max) return;
    this.queue.shift();
    this.ahead.set(next.path, next.size_bytes);
    this.ahead_bytes += next.size_bytes;
    this.opening = true;
    fs.open(next.path, 'r', (error, fd) => {
      this.opening = false;
      if (error !== null) this.taken(next.path);
      else if (this.closed) fs.close(fd, () => {});
      else this.current = { path: next.path, fd, position: 0, size_bytes: next.size_bytes };
      this.pump();
    });
  }

  private finishCurrent(): void {
    fs.close(this.current!.fd, () => {});
    this.current = null;
  }
}

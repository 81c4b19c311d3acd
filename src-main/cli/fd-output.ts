// Output written straight to a file descriptor from inside a synchronous read loop. process.stdout on a pipe
// is asynchronous: a loop that never yields queues everything it writes (a 687 MB WAL's dump held 801 MB). Here
// each write completes before the loop reads on, so memory stays one buffer (plus one frame's text), a slow
// reader slows the loop down, and a reader that went away (`dump | head`) stops it.
import fs from 'node:fs';

export const OUTPUT_BUFFER_BYTES = 65_536;
/** How long to wait before trying again when a non-blocking pipe is full. */
const FULL_PIPE_WAIT_MS = 2;

/** The reader of the output closed it (EPIPE): there is no one left to print for. */
export class OutputClosedError extends Error {
  override name = 'OutputClosedError';
}

export class FdOutput {
  private readonly buffer = Buffer.allocUnsafe(OUTPUT_BUFFER_BYTES);
  private length = 0;
  private readonly wait_cell = new Int32Array(new SharedArrayBuffer(4));

  constructor(private readonly fd: number) {}

  /** Buffers `text`, writing the buffer out first when it would overflow; throws OutputClosedError on EPIPE. */
  write(text: string): void {
    const size_bytes = Buffer.byteLength(text, 'utf8');
    if (this.length + size_bytes > OUTPUT_BUFFER_BYTES) this.flush();
    if (size_bytes > OUTPUT_BUFFER_BYTES) {
      this.writeAll(Buffer.from(text, 'utf8'));
      return;
    }
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  flush(): void {
    if (this.length === 0) return;
    const pending = this.length;
    this.length = 0;
    this.writeAll(this.buffer.subarray(0, pending));
  }

  private writeAll(bytes: Buffer): void {
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += fs.writeSync(this.fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') throw new OutputClosedError('the output was closed by its reader');
        if (code !== 'EAGAIN') throw error;
        // A full non-blocking pipe: wait for the reader without spinning a core.
        Atomics.wait(this.wait_cell, 0, 0, FULL_PIPE_WAIT_MS);
      }
    }
  }
}

// The state root's feature floor (wal-format §7, contract §3): the machine-wide list of features some WAL under
// the root may require, so an older build refuses every WAL there instead of misreading one. A writer makes the
// floor list a feature durably BEFORE the first frame that requires it; the floor only grows.
//
// Raising is serialised twice: within the process by run-to-completion (everything here is synchronous; the
// `raising` flag asserts nobody re-enters), across processes by an exclusive OS lock on the stable sibling
// `wal-feature-floor.lock`, held through read, union, write, rename and directory sync. Session leases cannot
// do this: the floor is shared by every session under the root.
import assert from 'node:assert/strict';
import path from 'node:path';
import { FloorRaiseError } from './errors.js';
import { nodeFileIO, writeFully, type FileIO } from './file-io.js';
import { FEATURE_NAME_PATTERN, FLOOR_LOCK_RETRY_INTERVAL_MS, FLOOR_LOCK_WAIT_MS_MAX } from './limits.js';
import { FLOOR_FILE_NAME, floorLockPath, floorPath } from './state-root.js';

/** Sixteen features take ~250 bytes; a floor this large was not written by a writer of this format. */
export const FLOOR_BYTES_MAX = 65_536;

export class FloorFormatError extends Error {
  override name = 'FloorFormatError';
  readonly code = 'floor_malformed';
  constructor(
    readonly path: string,
    readonly line: number,
    reason: string,
  ) {
    super(`feature floor ${path} line ${line}: ${reason}; restore it from a backup or a newer build's copy (never delete names)`);
  }
}

export class FloorLockTimeoutError extends Error {
  override name = 'FloorLockTimeoutError';
  readonly code = 'floor_lock_timeout';
  constructor(
    readonly lock_path: string,
    readonly waited_ms: number,
  ) {
    super(`another process held ${lock_path} for ${waited_ms} ms; retry, or find the process that holds it`);
  }
}

/** The floor's names, or [] when there is no floor. A malformed floor throws, naming the line. */
export function readFloor(root: string, io: FileIO = nodeFileIO): string[] {
  const file = floorPath(root);
  if (io.stat(file) === null) return [];
  return parseFloor(readSmallFile(io, file, FLOOR_BYTES_MAX), file);
}

/** One name a line, each ending in LF, sorted and unique (wal-format §1). */
export function parseFloor(bytes: Uint8Array, file: string): string[] {
  const text = Buffer.from(bytes).toString('utf8');
  if (text.length === 0) return [];
  const lines = text.split('\n');
  const last = lines.pop();
  if (last !== '') throw new FloorFormatError(file, lines.length + 1, 'the last line does not end in LF');
  lines.forEach((name, index) => {
    if (!FEATURE_NAME_PATTERN.test(name)) throw new FloorFormatError(file, index + 1, `"${name}" is not a feature name`);
    const previous = lines[index - 1];
    if (previous !== undefined && !(previous < name)) {
      throw new FloorFormatError(file, index + 1, `"${name}" is not sorted after "${previous}" or repeats it`);
    }
  });
  return lines;
}

export function formatFloor(names: readonly string[]): Buffer {
  return Buffer.from(names.map((name) => `${name}\n`).join(''), 'utf8');
}

/** Absolute root → names this process has proven durable there. Only a successful raise or proof adds. */
const proven = new Map<string, ReadonlySet<string>>();
let raising = false;
let temp_counter = 0;

/**
 * Makes sure the floor of `root` durably lists every one of `features`. Covered by what this process already
 * proved: no I/O at all. Otherwise takes the locked path; any failure throws FloorRaiseError and memoizes
 * nothing, so the caller refuses its gated append.
 */
export function ensureFloor(
  root: string,
  features: readonly string[],
  io: FileIO = nodeFileIO,
  lock_wait_ms: number = FLOOR_LOCK_WAIT_MS_MAX,
): void {
  const key = path.resolve(root);
  const known = proven.get(key);
  if (known !== undefined && features.every((feature) => known.has(feature))) return;
  for (const feature of features) assert.match(feature, FEATURE_NAME_PATTERN);
  assert.ok(lock_wait_ms >= 0 && lock_wait_ms <= FLOOR_LOCK_WAIT_MS_MAX, `lock_wait_ms ${lock_wait_ms}`);
  assert.ok(!raising, 'feature floor raise re-entered');
  raising = true;
  try {
    const names = raiseLocked(key, features, io, lock_wait_ms);
    for (const feature of features) assert.ok(names.includes(feature), `floor must now list ${feature}`);
    proven.set(key, new Set(names));
  } catch (error) {
    throw new FloorRaiseError(key, [...features], error);
  } finally {
    raising = false;
  }
}

function raiseLocked(root: string, features: readonly string[], io: FileIO, lock_wait_ms: number): string[] {
  const lock_path = floorLockPath(root);
  const lock_fd = io.open(lock_path, 'read_write_create');
  try {
    lockWithin(io, lock_fd, lock_path, lock_wait_ms);
    try {
      const current = readFloor(root, io);
      const union = [...new Set([...current, ...features])].sort();
      // Names already listed may have been renamed in by a process that died before its directory sync: the
      // once-per-process proof syncs the directory before this process relies on them.
      if (union.length === current.length) io.fsyncDirectory(root);
      else replaceFloor(root, union, io);
      return union;
    } finally {
      io.unlock(lock_fd);
    }
  } finally {
    io.close(lock_fd);
  }
}

/** Temp file, fsync, rename over the floor, fsync the root: a crash leaves the old floor or the new one. */
function replaceFloor(root: string, names: readonly string[], io: FileIO): void {
  const temp = path.join(root, `${FLOOR_FILE_NAME}.tmp-${process.pid}-${temp_counter++}`);
  const bytes = formatFloor(names);
  assert.ok(bytes.length <= FLOOR_BYTES_MAX, `floor of ${bytes.length} bytes`);
  // A failure from here on leaves the temp file behind: harmless, its name is unique and nothing reads it.
  const fd = io.open(temp, 'create_exclusive');
  try {
    writeFully(io, fd, bytes, 0);
    io.fsync(fd);
  } finally {
    io.close(fd);
  }
  io.rename(temp, floorPath(root));
  io.fsyncDirectory(root);
}

function lockWithin(io: FileIO, fd: number, lock_path: string, wait_ms: number): void {
  const started_ms = performance.now();
  const attempts_max = Math.ceil(wait_ms / FLOOR_LOCK_RETRY_INTERVAL_MS) + 1;
  for (let attempt = 0; attempt < attempts_max; attempt++) {
    if (io.tryLockExclusive(fd)) return;
    const left_ms = wait_ms - (performance.now() - started_ms);
    if (left_ms <= 0) break;
    sleepMs(Math.min(FLOOR_LOCK_RETRY_INTERVAL_MS, left_ms));
  }
  throw new FloorLockTimeoutError(lock_path, Math.round(performance.now() - started_ms));
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread: the engine is synchronous by design, so waiting for a lock is too. */
function sleepMs(duration_ms: number): void {
  Atomics.wait(sleeper, 0, 0, duration_ms);
}

/** Reads a whole small file, refusing one larger than `bytes_max`. */
export function readSmallFile(io: FileIO, file: string, bytes_max: number): Buffer {
  const fd = io.open(file, 'read');
  try {
    return readSmallFd(io, fd, file, bytes_max);
  } finally {
    io.close(fd);
  }
}

/** Reads all of an open small file from offset 0; one that shrinks under us yields what is there. */
export function readSmallFd(io: FileIO, fd: number, file: string, bytes_max: number): Buffer {
  const size_bytes = io.fstat(fd).size_bytes;
  if (size_bytes > bytes_max) throw new Error(`${file} is ${size_bytes} bytes, more than the ${bytes_max} allowed`);
  // /proc files report size 0: read in chunks until EOF; one byte past bytes_max proves it is too large.
  let buffer = Buffer.alloc(Math.min(Math.max(size_bytes, 4_096), bytes_max) + 1);
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (filled > bytes_max) throw new Error(`${file} holds more than the ${bytes_max} bytes allowed`);
      const grown = Buffer.alloc(Math.min(buffer.length * 2, bytes_max + 1));
      buffer.copy(grown, 0, 0, filled);
      buffer = grown;
    }
    const count = io.read(fd, buffer, filled, buffer.length - filled, filled);
    if (count === 0) return buffer.subarray(0, filled);
    filled += count;
  }
}

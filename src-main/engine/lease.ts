// The single-writer lease (wal-format §8, contract §5). Safety is the OS lock alone: an exclusive, non-blocking
// advisory lock that the OS drops when the holder dies. The tenure written into the file (its epoch above
// every fence the WAL holds) is a forensic stamp, never an append gate.
//
// Release order is the caller's duty and `session.ts` does it: drain, sync and close the writer, THEN release,
// so a writer of an old tenure can never append after a new one starts. The lease file is never deleted.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import type { LeaseTenure } from '../../src-shared/wal.js';
import { EpochExhaustedError, LeaseHeldError } from './errors.js';
import { readSmallFd, readSmallFile } from './feature-floor.js';
import { nodeFileIO, writeFully, type FileIO } from './file-io.js';
import { leasePath } from './state-root.js';

/** A tenure is ~120 bytes; anything past this is not one, and reads as no tenure. */
export const LEASE_BYTES_MAX = 4_096;
/** One disk sector: the unit a crash cannot tear. */
export const TENURE_RECORD_BYTES = 512;
/** /proc/locks lists every lock on the machine; past this we fall back to the holder's pid. */
export const PROC_LOCKS_BYTES_MAX = 8 * 1_048_576;

export interface Lease {
  readonly path: string;
  readonly epoch: number;
  readonly tenure: LeaseTenure;
  readonly released: boolean;
  /** Unlocks and closes. Close the writer first. Idempotent. */
  release(): void;
}

export interface AcquireLeaseOptions {
  io?: FileIO;
  writer_name: string;
  /** The greatest fence in the WAL, or a function that reads it: it runs under the lock, so the read cannot
   *  race another writer; if it throws, the lock is dropped and nothing is written. */
  wal_max_fence: number | (() => number);
}

/** Takes the lease of `session_dir` or throws LeaseHeldError at once, having written nothing. */
export function acquireLease(session_dir: string, options: AcquireLeaseOptions): Lease {
  assert.ok(options.writer_name.length > 0, 'writer_name must not be empty');
  const io = options.io ?? nodeFileIO;
  const file = leasePath(session_dir);
  const fd = io.open(file, 'read_write_create');
  let locked = false;
  try {
    locked = io.tryLockExclusive(fd);
    if (!locked) throw new LeaseHeldError(file, readTenureFd(io, fd, file));
    const previous = readTenureFd(io, fd, file);
    const wal_max_fence = typeof options.wal_max_fence === 'function' ? options.wal_max_fence() : options.wal_max_fence;
    assert.ok(Number.isSafeInteger(wal_max_fence) && wal_max_fence >= 0, `wal_max_fence ${wal_max_fence}`);
    const epoch_max = Math.max(previous?.epoch ?? 0, wal_max_fence);
    if (epoch_max >= Number.MAX_SAFE_INTEGER) throw new EpochExhaustedError(file, epoch_max);
    const epoch = epoch_max + 1;
    const tenure: LeaseTenure = { epoch, pid: process.pid, host: os.hostname(), acquired_ms: Date.now(), writer: options.writer_name };
    writeTenure(io, fd, tenure);
    return new HeldLease(io, fd, file, tenure);
  } catch (error) {
    if (locked) io.unlock(fd);
    io.close(fd);
    throw error;
  }
}

/** The tenure is one sector of JSON padded with spaces, overwritten in place: a disk writes a sector whole, so
 *  a crash leaves the old tenure or the new one. Truncating first could leave an empty file, and the next
 *  holder would then reuse an epoch that no durable frame carries yet. */
function writeTenure(io: FileIO, fd: number, tenure: LeaseTenure): void {
  const json = JSON.stringify(tenure);
  assert.ok(json.length < TENURE_RECORD_BYTES, `tenure of ${json.length} bytes does not fit one ${TENURE_RECORD_BYTES}-byte record`);
  const bytes = Buffer.from(`${json.padEnd(TENURE_RECORD_BYTES - 1, ' ')}\n`, 'utf8');
  assert.equal(bytes.length, TENURE_RECORD_BYTES, 'the tenure is ASCII JSON: one byte per character');
  writeFully(io, fd, bytes, 0);
  if (io.fstat(fd).size_bytes > TENURE_RECORD_BYTES) io.ftruncate(fd, TENURE_RECORD_BYTES);
  io.fsync(fd);
  assert.equal(io.fstat(fd).size_bytes, TENURE_RECORD_BYTES, 'lease file holds exactly the tenure record');
}

class HeldLease implements Lease {
  private fd: number | null;

  constructor(
    private readonly io: FileIO,
    fd: number,
    readonly path: string,
    readonly tenure: LeaseTenure,
  ) {
    this.fd = fd;
  }

  get epoch(): number {
    return this.tenure.epoch;
  }

  get released(): boolean {
    return this.fd === null;
  }

  release(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      this.io.unlock(fd);
    } finally {
      this.io.close(fd);
    }
  }
}

export type LeaseProbe =
  | { state: 'live'; holder: LeaseTenure | null }
  | { state: 'free'; last: LeaseTenure | null }
  | { state: 'absent' };

/**
 * Whether a live process holds the lease, without ever taking the lock: a probe that locked, even briefly,
 * could make a writer's start fail. Linux answers from /proc/locks; elsewhere (or when it is unreadable) from
 * the tenure's pid on this host. Never creates the file.
 */
export function probeLease(session_dir: string, io: FileIO = nodeFileIO): LeaseProbe {
  const file = leasePath(session_dir);
  const identity = fileIdentity(file);
  if (identity === null) return { state: 'absent' };
  const tenure = readTenureFile(io, file);
  const live = lockListed(io, identity, tenure) ?? pidAlive(tenure);
  return live ? { state: 'live', holder: tenure } : { state: 'free', last: tenure };
}

interface FileIdentity {
  major: bigint;
  minor: bigint;
  inode: bigint;
}

// The FileIO seam has no inode: this is a lookup of identity, not an effect the crash simulator replays.
function fileIdentity(file: string): FileIdentity | null {
  // No exception for a lease that is not there (every session without a writer, twice a read).
  const stats = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  if (stats === undefined) return null;
  // glibc's dev_t encoding; /proc/locks prints the kernel's MAJOR:MINOR in hex.
  const dev = stats.dev;
  return {
    major: ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn),
    minor: (dev & 0xffn) | ((dev >> 12n) & ~0xffn),
    inode: stats.ino,
  };
}

/** true/false from /proc/locks; null when it cannot say (not Linux, unreadable, too large). */
function lockListed(io: FileIO, identity: FileIdentity, tenure: LeaseTenure | null): boolean | null {
  if (process.platform !== 'linux') return null;
  let text: string;
  try {
    text = readSmallFile(io, '/proc/locks', PROC_LOCKS_BYTES_MAX).toString('utf8');
  } catch {
    return null;
  }
  let inodeOnlyHolder = false;
  for (const line of text.split('\n')) {
    const held = parseLockLine(line);
    if (held === null || held.inode !== identity.inode) continue;
    if (held.major === identity.major && held.minor === identity.minor) return true;
    inodeOnlyHolder = true;
  }
  // On overlay file systems the lock names the upper layer's device, not the one stat reports: trust an
  // inode-only match only when the tenure's holder is alive too.
  return inodeOnlyHolder ? pidAlive(tenure) : false;
}

// `1: OFDLCK ADVISORY  WRITE -1 fe:00:2146573 0 EOF`; blocked waiters carry `->` and hold nothing.
const LOCK_LINE = /^\d+:\s+(?:OFDLCK|POSIX|FLOCK)\s+\S+\s+\S+\s+-?\d+\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/;

function parseLockLine(line: string): FileIdentity | null {
  const match = LOCK_LINE.exec(line);
  if (match === null) return null;
  return { major: BigInt(`0x${match[1]}`), minor: BigInt(`0x${match[2]}`), inode: BigInt(match[3]!) };
}

function pidAlive(tenure: LeaseTenure | null): boolean {
  if (tenure === null) return false;
  // A holder on another host cannot be disproved from here: call it live rather than invite a takeover.
  if (tenure.host !== os.hostname()) return true;
  try {
    process.kill(tenure.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The tenure in the lease file, or null when it is absent, empty, oversized or not a tenure. */
export function readTenureFile(io: FileIO, file: string): LeaseTenure | null {
  let bytes: Buffer;
  try {
    bytes = readSmallFile(io, file, LEASE_BYTES_MAX);
  } catch {
    return null;
  }
  return parseTenure(bytes);
}

function readTenureFd(io: FileIO, fd: number, file: string): LeaseTenure | null {
  try {
    return parseTenure(readSmallFd(io, fd, file, LEASE_BYTES_MAX));
  } catch {
    return null;
  }
}

function parseTenure(bytes: Uint8Array): LeaseTenure | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { epoch, pid, host, acquired_ms, writer } = value as Record<string, unknown>;
  const isUint = (field: unknown): field is number => Number.isSafeInteger(field) && (field as number) >= 0;
  if (!isUint(epoch) || !isUint(pid) || !isUint(acquired_ms)) return null;
  if (typeof host !== 'string' || typeof writer !== 'string') return null;
  return { epoch, pid, host, acquired_ms, writer };
}

// The summary cache: each session's line of the list, kept between runs in the user's cache folder (never
// beside a WAL: exports are never written), so a second open of a large root shows every status at once.
//
// An entry holds only when the WAL is the same file (device and inode), of the same size, and the bytes that
// end its verified part are the ones read then (the digest closing the last intact frame): the contract's
// projection rule, "nothing was appended". A file that grew, shrank or was replaced is read again from its
// start (the status depends on the whole fold, which is not kept). The state root's feature floor is part of
// the key: a raised floor can refuse a WAL that was fine. The file carries a SHA-256 of its body; a damaged,
// foreign or older cache is ignored and rewritten, never trusted. "Older" includes another build: a list line's
// shape follows the code that made it, and an older walscope's lines lack fields this one shows.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionSummary } from '../../src-shared/ipc.js';
import { FRAME_DIGEST_BYTES, MIB, floorPath } from '../engine/index.js';

/** Overrides the cache folder (tests, and users who keep caches elsewhere). */
export const CACHE_DIR_ENV = 'WALSCOPE_CACHE_DIR';
const CACHE_FORMAT = 'walscope-summary-cache/2';
/** A cache file larger than this is not ours (2,000 sessions take well under 2 MB). */
const CACHE_FILE_BYTES_MAX = 64 * MIB;
export const CACHE_ENTRIES_MAX = 1_000_000;

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env[CACHE_DIR_ENV];
  if (own !== undefined && own !== '') return own;
  const xdg = env['XDG_CACHE_HOME'];
  return path.join(xdg !== undefined && xdg !== '' ? xdg : path.join(os.homedir(), '.cache'), 'walscope');
}

/** What must still hold for a cached summary to describe the file. */
export interface WalIdentity {
  dev: number;
  ino: number;
  size_bytes: number;
  verified_end: number;
  /** Hex of the FRAME_DIGEST_BYTES before `verified_end` ('' when it is shorter). */
  end_digest: string;
}

interface Entry {
  identity: WalIdentity;
  summary: SessionSummary;
}

interface Body {
  format: string;
  /** The build that wrote it (buildId). */
  build: string;
  workspace: string;
  floor: string;
  entries: Record<string, Entry>;
}

export class SummaryCache {
  private dirty = false;
  /** Entries held, counted as they come and go: counting the keys at each store made a root's first read
   *  quadratic (2,000 sessions: ~0.3 s of the session thread). */
  private entry_count: number;

  private constructor(
    readonly file: string,
    private readonly body: Body,
    /** The file existed but could not be trusted (bad checksum, format, or JSON). */
    readonly damaged: boolean,
  ) {
    this.entry_count = Object.keys(body.entries).length;
  }

  /** The cache of `workspace_path` (one file per workspace, named by a hash of its path). */
  static load(workspace_path: string, root: string | null, dir = cacheDir()): SummaryCache {
    const file = path.join(dir, `${createHash('sha256').update(workspace_path).digest('hex').slice(0, 32)}.json`);
    const floor = root === null ? '' : floorIdentity(root);
    const fresh: Body = { format: CACHE_FORMAT, build: buildId(), workspace: workspace_path, floor, entries: Object.create(null) as Record<string, Entry> };
    let text: string;
    try {
      const stats = fs.statSync(file);
      if (!stats.isFile() || stats.size > CACHE_FILE_BYTES_MAX) return new SummaryCache(file, fresh, true);
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return new SummaryCache(file, fresh, false);
    }
    const body = parseChecked(text);
    if (body === null || body.format !== CACHE_FORMAT || body.build !== fresh.build || body.workspace !== workspace_path) return new SummaryCache(file, fresh, true);
    if (body.floor !== floor) return new SummaryCache(file, fresh, false);
    return new SummaryCache(file, { ...body, entries: Object.assign(Object.create(null) as Record<string, Entry>, body.entries) }, false);
  }

  /** The cached summary of `key` when its WAL is still exactly what it was; null otherwise. */
  lookup(key: string, wal_path: string): SessionSummary | null {
    const entry = this.body.entries[key];
    if (entry === undefined) return null;
    const now = identityOf(wal_path, entry.identity.verified_end);
    if (now === null || !sameIdentity(now, entry.identity)) return null;
    return entry.summary;
  }

  /** Remembers `summary` for the file as read up to `verified_end` of `size_bytes`; nothing when the file has
   *  changed since (its size is no longer the one read). */
  store(key: string, wal_path: string, size_bytes: number, verified_end: number, summary: SessionSummary): void {
    const identity = identityOf(wal_path, verified_end);
    if (identity === null || identity.size_bytes !== size_bytes) return;
    const added = this.body.entries[key] === undefined;
    if (added && this.entry_count >= CACHE_ENTRIES_MAX) return;
    this.body.entries[key] = { identity, summary };
    this.entry_count += added ? 1 : 0;
    this.dirty = true;
  }

  /** Drops entries of sessions no longer listed. */
  keepOnly(keys: ReadonlySet<string>): void {
    for (const key of Object.keys(this.body.entries)) {
      if (keys.has(key)) continue;
      delete this.body.entries[key];
      this.entry_count -= 1;
      this.dirty = true;
    }
  }

  /** Writes the cache when it changed (or was damaged): a temporary file renamed over the old one. A cache
   *  that cannot be written is only a slower next open. */
  flush(): void {
    if (!this.dirty && !this.damaged) return;
    const text = JSON.stringify(this.body);
    const checked = `${sha256(text)}\n${text}`;
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(temporary, checked, { mode: 0o600 });
      fs.renameSync(temporary, this.file);
      this.dirty = false;
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      process.emitWarning(`walscope: cannot write the summary cache ${this.file}: ${(error as Error).message}`);
    }
  }
}

let build_id: string | null = null;

/** This build's identity: the SHA-256 of the file this module runs from — in a build, the bundle that holds every
 *  maker of a list line — read once, when a cache is first loaded (not on every CLI start). */
function buildId(): string {
  if (build_id !== null) return build_id;
  try {
    build_id = createHash('sha256').update(fs.readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 32);
  } catch {
    build_id = 'unknown';
  }
  return build_id;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function parseChecked(text: string): Body | null {
  const newline = text.indexOf('\n');
  if (newline < 0) return null;
  const body = text.slice(newline + 1);
  if (text.slice(0, newline) !== sha256(body)) return null;
  try {
    const parsed = JSON.parse(body) as Body;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.entries === 'object' && parsed.entries !== null ? parsed : null;
  } catch {
    return null;
  }
}

function floorIdentity(root: string): string {
  try {
    const stats = fs.statSync(floorPath(root));
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

function identityOf(wal_path: string, verified_end: number): WalIdentity | null {
  let fd: number;
  try {
    fd = fs.openSync(wal_path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile() || stats.size < verified_end) return null;
    let end_digest = '';
    if (verified_end >= FRAME_DIGEST_BYTES) {
      const digest = Buffer.alloc(FRAME_DIGEST_BYTES);
      if (fs.readSync(fd, digest, 0, FRAME_DIGEST_BYTES, verified_end - FRAME_DIGEST_BYTES) !== FRAME_DIGEST_BYTES) return null;
      end_digest = digest.toString('hex');
    }
    return { dev: stats.dev, ino: stats.ino, size_bytes: stats.size, verified_end, end_digest };
  } finally {
    fs.closeSync(fd);
  }
}

function sameIdentity(a: WalIdentity, b: WalIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size_bytes === b.size_bytes && a.verified_end === b.verified_end && a.end_digest === b.end_digest;
}

// The state root's layout (wal-format §1): where the floor, its lock, the sessions, their WALs and leases live,
// and how a path a user hands us is recognised. Everything here only looks; nothing creates or changes a file.
import path from 'node:path';
import { nodeFileIO, type FileIO, type FileStat } from './file-io.js';
import { SESSION_ID_PATTERN } from './limits.js';

export const FLOOR_FILE_NAME = 'wal-feature-floor';
export const FLOOR_LOCK_FILE_NAME = 'wal-feature-floor.lock';
export const SESSIONS_DIR_NAME = 'sessions';
export const WAL_FILE_NAME = 'wal';
export const LEASE_FILE_NAME = 'lease';

/** A listing larger than this is refused rather than held in memory: it is not a state root we made. */
export const SESSIONS_LISTED_MAX = 1_000_000;

export const floorPath = (root: string): string => path.join(root, FLOOR_FILE_NAME);
export const floorLockPath = (root: string): string => path.join(root, FLOOR_LOCK_FILE_NAME);
export const sessionsDir = (root: string): string => path.join(root, SESSIONS_DIR_NAME);
export const sessionDir = (root: string, session_id: string): string => path.join(root, SESSIONS_DIR_NAME, session_id);
export const walPath = (session_dir: string): string => path.join(session_dir, WAL_FILE_NAME);
export const leasePath = (session_dir: string): string => path.join(session_dir, LEASE_FILE_NAME);

/** 1–128 characters of [A-Za-z0-9._-], not starting with '.' (wal-format §1). */
export function isValidSessionId(session_id: string): boolean {
  return SESSION_ID_PATTERN.test(session_id);
}

export class InvalidSessionIdError extends Error {
  override name = 'InvalidSessionIdError';
  readonly code = 'invalid_session_id';
  constructor(readonly session_id: string) {
    super(`"${session_id}" is not a session id: use 1-128 characters of [A-Za-z0-9._-], not starting with "."`);
  }
}

export interface SessionListing {
  /** Valid session ids whose entry is a folder, sorted. */
  sessions: string[];
  /** Everything else under sessions/, sorted: listed, never opened for writing. */
  not_sessions: string[];
  /** Valid session ids whose entry cannot even be looked at (a symlink loop, no permission), sorted: a reader
   *  reports each as refused, with its cause, and goes on with the others. */
  unreadable: string[];
}

/** Lists sessions/ without creating it: a root without one simply has no sessions. */
export function listSessions(root: string, io: FileIO = nodeFileIO): SessionListing {
  const dir = sessionsDir(root);
  const found = io.stat(dir);
  if (found === null || !found.is_directory) return { sessions: [], not_sessions: [], unreadable: [] };
  const entries = io.readdir(dir);
  if (entries.length > SESSIONS_LISTED_MAX) {
    throw new Error(`${dir} holds ${entries.length} entries, more than the ${SESSIONS_LISTED_MAX} a state root may hold`);
  }
  const listing: SessionListing = { sessions: [], not_sessions: [], unreadable: [] };
  for (const entry of entries.sort()) {
    if (!isValidSessionId(entry)) {
      listing.not_sessions.push(entry);
      continue;
    }
    let found: FileStat | null;
    try {
      found = io.stat(path.join(dir, entry));
    } catch {
      listing.unreadable.push(entry);
      continue;
    }
    (found?.is_directory === true ? listing.sessions : listing.not_sessions).push(entry);
  }
  return listing;
}

/** Which of walscope's folders `dir` is, by what it holds: a session folder holds a wal; a state root holds
 *  sessions/ or the feature floor (which exists before any session does). null for any other folder. Only a
 *  writer under the lease adds a file to either: a file put there by anything else is read as state. */
export function stateFolderKind(dir: string, io: FileIO = nodeFileIO): 'session_dir' | 'state_root' | null {
  if (io.stat(walPath(dir))?.is_file === true) return 'session_dir';
  if (io.stat(sessionsDir(dir))?.is_directory === true || io.stat(floorPath(dir)) !== null) return 'state_root';
  return null;
}

export type PathKind = 'wal_file' | 'session_dir' | 'state_root' | 'missing' | 'unrecognized';

/** What a user-given path is. Any file counts as a WAL: an export may carry any name (wal-format §1). A FIFO or
 *  a device counts too, so that opening it refuses it by name, at once, instead of it being "unrecognized". */
export function classifyPath(target: string, io: FileIO = nodeFileIO): PathKind {
  const found = io.stat(target);
  if (found === null) return 'missing';
  if (!found.is_directory) return 'wal_file';
  const wal = io.stat(walPath(target));
  if (wal !== null && !wal.is_directory) return 'session_dir';
  if (io.stat(sessionsDir(target))?.is_directory === true) return 'state_root';
  return 'unrecognized';
}

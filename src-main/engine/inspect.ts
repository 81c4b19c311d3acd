// Read-only inspection of whatever a user points at: a WAL file, a session folder or a state root. Nothing
// here writes, truncates, creates or locks: exports that customers send are opened exactly like this.
import path from 'node:path';
import type { LeaseTenure, VerifyReport } from '../../src-shared/wal.js';
import { archivePath } from './archive-format.js';
import { openMember } from './archive-member.js';
import { latestMember, readArchive } from './archive-reader.js';
import { verifyArchive } from './archive-verify.js';
import { describe } from './errors.js';
import { readFloor } from './feature-floor.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { type LeaseProbe, probeLease } from './lease.js';
import { MIB } from './limits.js';
import { hex, ioError, readWal, refusedRead, type ReadOptions, type ReadResult } from './reader.js';
import { classifyPath, isValidSessionId, listSessions, sessionDir, SESSIONS_DIR_NAME, WAL_FILE_NAME, walPath } from './state-root.js';

export interface WalTarget {
  wal_path: string;
  session: string | null;
  session_dir: string | null;
  /** The state root the WAL lives in, when it lives in one: its feature floor applies. */
  root: string | null;
  /** A bare file, or a session folder outside any state root: a copy, opened read-only for ever. */
  is_export: boolean;
  /** A sealed lineage of the session's archive (`SESSION_DIR@WAL_ID`): read-only for ever, like an export. */
  member?: { session_dir: string; wal_id: string };
}

export class TargetError extends Error {
  override name = 'TargetError';
}

/** Every WAL that `target` names, in a stable order. A path that cannot be looked at (a symlink loop, a path
 *  through a file, too long, no permission) throws TargetError with the cause in words, never a bare errno. */
export function resolveTargets(target: string, io: FileIO = nodeFileIO): WalTarget[] {
  try {
    return resolveTargetsOrThrow(target, io);
  } catch (error) {
    if (error instanceof TargetError) throw error;
    throw new TargetError(`${shortPath(target)}: ${describe(error)}`);
  }
}

/** A path for a one-line message: a hostile 5,000-character path is cut in the middle, not printed whole. */
function shortPath(target: string): string {
  const chars_max = 200;
  return target.length <= chars_max ? target : `${target.slice(0, chars_max / 2)}…(${target.length} characters)…${target.slice(-chars_max / 2)}`;
}

function resolveTargetsOrThrow(target: string, io: FileIO): WalTarget[] {
  const resolved = path.resolve(target);
  const kind = classifyPath(resolved, io);
  const sealed = kind === 'missing' ? parseMemberTarget(target) : null;
  if (sealed !== null) return [memberTarget(sealed.session_path, sealed.wal_id, io)];
  switch (kind) {
    case 'wal_file':
      return [fileTarget(resolved)];
    case 'session_dir':
      return [sessionTarget(resolved)];
    case 'state_root': {
      // An unreadable session is still a target: reading it reports why, and the others are read as usual.
      const listing = listSessions(resolved, io);
      return [...listing.sessions, ...listing.unreadable].sort().map((id) => sessionTarget(sessionDir(resolved, id)));
    }
    case 'missing':
      throw new TargetError(`${shortPath(target)}: no such file or folder`);
    default:
      throw new TargetError(`${shortPath(target)}: not a WAL file, a session folder (holding "${WAL_FILE_NAME}") or a state root (holding "${SESSIONS_DIR_NAME}/")`);
  }
}

/** Exports opened together (`serve a.wal b.wal`, `serve FOLDER`): at most this many, each a file of its own. */
export const EXPORTS_MAX = 10_000;

export interface ExportSet {
  /** Each export under a key unique in the set: its file name, or its path when two share a name. */
  exports: [string, WalTarget][];
  /** Entries of an exports folder that are folders: listed, never opened. */
  not_exports: string[];
}

/** Several exports, read-only for ever whatever folder they sit in: each PATH a file (a WAL export of any name),
 *  or one folder that is neither a session folder nor a state root, whose files are the exports. A file that
 *  cannot be read is still an export: reading it reports why, beside the others. */
export function exportTargets(paths: readonly string[], io: FileIO = nodeFileIO): ExportSet {
  if (paths.length === 1 && classifyPath(path.resolve(paths[0]!), io) === 'unrecognized') return exportFolder(path.resolve(paths[0]!), io);
  if (paths.length > EXPORTS_MAX) throw new TargetError(`${paths.length} exports named: at most ${EXPORTS_MAX} are opened at once`);
  const files = paths.map((given) => {
    const resolved = path.resolve(given);
    const kind = classifyPath(resolved, io);
    if (kind === 'missing') throw new TargetError(`${shortPath(given)}: no such file`);
    if (kind !== 'wal_file') throw new TargetError(`${shortPath(given)}: several paths are opened as exports, each a WAL file; a folder is opened alone`);
    return resolved;
  });
  return { exports: keyedExports(files), not_exports: [] };
}

function exportFolder(dir: string, io: FileIO): ExportSet {
  const names = io.readdir(dir);
  if (names.length > EXPORTS_MAX) throw new TargetError(`${shortPath(dir)} holds ${names.length} entries: at most ${EXPORTS_MAX} exports are opened at once`);
  const files: string[] = [];
  const not_exports: string[] = [];
  for (const name of names.sort()) {
    let found: ReturnType<FileIO['stat']>;
    try {
      found = io.stat(path.join(dir, name));
    } catch {
      found = null; // a link that loops, say: reading it names the cause
    }
    if (found?.is_directory === true) not_exports.push(name);
    else files.push(path.join(dir, name));
  }
  return { exports: keyedExports(files), not_exports };
}

function keyedExports(files: readonly string[]): [string, WalTarget][] {
  const named = new Map<string, number>();
  for (const file of files) named.set(path.basename(file), (named.get(path.basename(file)) ?? 0) + 1);
  const seen = new Set<string>();
  const keyed: [string, WalTarget][] = [];
  for (const file of files) {
    const key = named.get(path.basename(file)) === 1 ? path.basename(file) : file;
    if (seen.has(key)) continue; // the same file named twice
    seen.add(key);
    keyed.push([key, { wal_path: file, session: null, session_dir: null, root: null, is_export: true }]);
  }
  return keyed;
}

/** `SESSION_DIR@WAL_ID`: a sealed lineage of a session's archive, named by its 32-hex-digit wal_id. One syntax for
 *  every command that reads a lineage (dump, replay, serve, and any later one). */
const MEMBER_TARGET = /^(.+)@([0-9a-fA-F]{32})$/;

export function parseMemberTarget(target: string): { session_path: string; wal_id: string } | null {
  const match = MEMBER_TARGET.exec(target);
  return match === null ? null : { session_path: match[1]!, wal_id: match[2]!.toLowerCase() };
}

function memberTarget(session_path: string, wal_id: string, io: FileIO): WalTarget {
  const session_dir = path.resolve(session_path);
  if (classifyPath(session_dir, io) !== 'session_dir') throw new TargetError(`${session_path}: not a session folder (holding "${WAL_FILE_NAME}"), so it has no archive to open ${wal_id} from`);
  const base = sessionTarget(session_dir);
  return { ...base, wal_path: `${archivePath(session_dir)}@${wal_id}`, is_export: true, member: { session_dir, wal_id } };
}

/** A sealed lineage, read as a WAL once the archive is proven readable and the member's content its own. */
function readMemberTarget(member: NonNullable<WalTarget['member']>, options: ReadOptions & { io: FileIO }): ReadResult {
  const archive = readArchive(member.session_dir, { io: options.io, trust_index: true });
  if (archive.error !== null) {
    const kind = archive.error.kind === 'archive_malformed' ? 'malformed_frame' : archive.error.kind === 'archive_scan_bound' ? 'tail_scan_bound' : archive.error.kind;
    return refusedRead({ kind, offset: archive.error.offset, seq: null, features: [], message: archive.error.message });
  }
  const found = latestMember(archive, member.wal_id);
  if (found === null || found.reason !== 'sealed') {
    const message = found === null ? `lineage ${member.wal_id} is not in the archive of ${member.session_dir} (every member header was read)` : `lineage ${member.wal_id} was deleted by retention: only its tombstone (counts) is kept`;
    return refusedRead({ kind: 'not_archived', offset: found?.offset ?? null, seq: null, features: [], message });
  }
  const opened = openMember(member.session_dir, found, options);
  if (!opened.ok) return refusedRead({ kind: 'archive_member_damaged', offset: found.offset, seq: null, features: [], message: opened.damage.message });
  return opened.read;
}

function enclosingRoot(session_dir: string): string | null {
  const parent = path.dirname(session_dir);
  return path.basename(parent) === SESSIONS_DIR_NAME ? path.dirname(parent) : null;
}

/** The target of a session folder, whether or not it holds a `wal` yet: reading a missing one is an I/O error
 *  of that session alone. */
export function sessionTarget(session_dir: string): WalTarget {
  const root = enclosingRoot(session_dir);
  const id = path.basename(session_dir);
  return { wal_path: walPath(session_dir), session: id, session_dir, root, is_export: root === null };
}

function fileTarget(file: string): WalTarget {
  const dir = path.dirname(file);
  const inSession = path.basename(file) === WAL_FILE_NAME && isValidSessionId(path.basename(dir));
  return {
    wal_path: file,
    session: inSession ? path.basename(dir) : null,
    session_dir: inSession ? dir : null,
    root: inSession ? enclosingRoot(dir) : null,
    is_export: true,
  };
}

export interface TargetReadOptions extends Omit<ReadOptions, 'floor_features' | 'live'> {
  /** The caller holds the session's lease (a writer about to open it): no other writer can be mid-append, so
   *  the lease is not probed, and a partial frame at the end is a torn tail for the writer to cut, not a tail
   *  in progress. */
  under_lease?: boolean;
  /** The lease as the caller probed it for this read: not probed again (a live tail's refresh looks once). */
  lease?: LeaseProbe;
}

/** A read of a target, with the live writer that held its lease while it was read (null: none). */
export type TargetRead = ReadResult & { live_holder: { tenure: LeaseTenure | null } | null };

/** Reads a target as a reader should: under its root's floor, and live-aware where a writer holds it. The one
 *  way walscope reads a session: the service, the report, the recovery actions and the runtime all come here. */
export function readTarget(target: WalTarget, options: TargetReadOptions = {}): TargetRead {
  const io = options.io ?? nodeFileIO;
  let floor_features: string[] = [];
  if (target.root !== null) {
    try {
      floor_features = readFloor(target.root, io);
    } catch (error) {
      return notLive(refusedRead(ioError(`cannot read the feature floor of ${target.root}: ${describe(error)}`)));
    }
  }
  const { under_lease = false, lease, ...read_options } = options;
  if (target.member !== undefined) return notLive(readMemberTarget(target.member, { ...read_options, io, floor_features }));
  // Only a session inside a state root can have a live writer; a copied folder's lease file names some other
  // machine's process and says nothing about this copy.
  let live_holder: TargetRead['live_holder'] = null;
  try {
    const probe = under_lease || target.root === null || target.session_dir === null ? null : (lease ?? probeLease(target.session_dir, io));
    if (probe?.state === 'live') live_holder = { tenure: probe.holder };
  } catch (error) {
    return notLive(refusedRead(ioError(`cannot look at the lease of ${target.session_dir}: ${describe(error)}`)));
  }
  return { ...readWal(target.wal_path, { ...read_options, io, floor_features, live: live_holder !== null }), live_holder };
}

function notLive(read: ReadResult): TargetRead {
  return { ...read, live_holder: null };
}

/** From this size verify checks digests on a second thread while it validates the bodies: below it a worker's
 *  start (tens of ms of CPU) costs more than it saves. */
export const VERIFY_DIGEST_WORKER_FILE_BYTES_MIN = 16 * MIB;

/** `full_scan`: a scan after damage, in the WAL or its archive, is bounded by the file alone (`--full-scan`). */
export function verifyTarget(target: WalTarget, io: FileIO = nodeFileIO, full_scan = false): VerifyReport {
  return verifyReportOf(target, readTarget(target, { io, with_payload: false, digest_runs_from_bytes: VERIFY_DIGEST_WORKER_FILE_BYTES_MIN, full_tail_scan: full_scan }), io, full_scan);
}

/** The verify report of a read already made (a caller that folds the same read, say). */
export function verifyReportOf(target: WalTarget, result: ReadResult, io: FileIO = nodeFileIO, full_scan = false): VerifyReport {
  const archive = target.session_dir === null || target.member !== undefined ? null : verifyArchive(target.session_dir, floorOf(target, io), io, full_scan);
  return {
    path: target.wal_path,
    session: target.session,
    wal_id: result.wal_id === null ? null : hex(result.wal_id),
    frames: result.frames,
    records: result.records,
    last_seq: result.last_seq,
    bytes: result.bytes,
    valid_bytes: result.valid_bytes,
    digest_algorithms: result.digest_algorithms,
    features: result.features,
    torn_tail: result.torn_tail,
    in_progress_tail: result.in_progress_tail,
    error: result.error,
    archive,
  };
}

function floorOf(target: WalTarget, io: FileIO): string[] {
  try {
    return target.root === null ? [] : readFloor(target.root, io);
  } catch {
    return []; // the WAL's own read already reports an unreadable floor
  }
}

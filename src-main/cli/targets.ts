// What a PATH argument names, for every read-only command: a path that names no WAL is a usage error. A PATH of
// the form SESSION_DIR@WAL_ID names a sealed lineage of that session's archive (engine/inspect.ts parses it).
import {
  extractSealedLineage, parseMemberTarget, resolveTargets, TargetError, type WalTarget, classifyPath,
} from '../engine/index.js';
import { UsageError } from './command.js';

export function targetsOf(path: string): WalTarget[] {
  try {
    return resolveTargets(path);
  } catch (error) {
    if (error instanceof TargetError) throw new UsageError(error.message);
    throw error;
  }
}

/** The one WAL a single-session command reads; a state root names a set of them, so it is refused. */
export function singleTarget(path: string, command: string): WalTarget {
  if (classifyPath(path) === 'state_root') {
    throw new UsageError(`${path} is a state root: ${command} takes one session folder (sessions/<id>) or a WAL file`);
  }
  return targetsOf(path)[0]!;
}

/** For a command that needs a file of its own (serve): SESSION_DIR@WAL_ID as a verified read-only copy (see
 *  extractSealedLineage). null when PATH is not of that form; a string saying why it cannot be opened. */
export function sealedLineageCopy(target: string): { file: string; dispose(): void } | string | null {
  if (classifyPath(target) !== 'missing' || parseMemberTarget(target) === null) return null;
  const member = targetsOf(target)[0]!.member!;
  return extractSealedLineage(member.session_dir, member.wal_id);
}

// What a PATH argument names, for every read-only command: a path that names no WAL is a usage error. A PATH of
// the form SESSION_DIR@WAL_ID names a sealed lineage of that session's archive (engine/inspect.ts parses it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { extractMember } from '../engine/archive-member.js';
import { latestMember, readArchive } from '../engine/archive-reader.js';
import { parseMemberTarget, resolveTargets, TargetError, type WalTarget } from '../engine/inspect.js';
import { classifyPath } from '../engine/state-root.js';
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

/** For a command that needs a file of its own (serve): a sealed lineage's verified content, copied to a private
 *  temporary folder (never beside the archive, which stays untouched) and removed by `dispose`. null when PATH
 *  is not SESSION_DIR@WAL_ID; a string saying why when the lineage cannot be opened. */
export function sealedLineageCopy(target: string): { file: string; dispose(): void } | string | null {
  if (classifyPath(target) !== 'missing' || parseMemberTarget(target) === null) return null;
  const member_target = targetsOf(target)[0]!.member!;
  const archive = readArchive(member_target.session_dir, { trust_index: true });
  if (archive.error !== null) return archive.error.message;
  const member = latestMember(archive, member_target.wal_id);
  if (member === null || member.reason !== 'sealed') return `lineage ${member_target.wal_id} is not a sealed member of ${member_target.session_dir}'s archive`;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-sealed-'));
  const file = path.join(folder, `${path.basename(member_target.session_dir)}@${member_target.wal_id}.wal`);
  const damage = extractMember(member_target.session_dir, member, file);
  const dispose = () => fs.rmSync(folder, { recursive: true, force: true });
  if (damage !== null) {
    dispose();
    return damage.message;
  }
  fs.chmodSync(file, 0o444);
  return { file, dispose };
}

// A page written for the user to send on (`report --html`, `bundle --out`, the app's Export bundle): a new file the user names,
// never beside the WAL it describes (exports are never written), never inside a state root or a session folder (a
// reader would take the file for state: SESSION/archive, ROOT/wal-feature-floor), never over an existing file.
import fs from 'node:fs';
import path from 'node:path';
import { stateFolderKind } from '../engine/index.js';
import { printable } from '../../src-shared/format.js';

/** Why `out` is no place for the page, or null. Judged on the real folder (a symbolic link to a state root is
 *  that state root), and on every folder above it: anything inside a state root is a root's file. */
export function outFileProblem(out: string, wal_path: string): string | null {
  const named = printable(out, 400);
  let folder: string;
  try {
    folder = fs.realpathSync(path.dirname(out));
  } catch {
    return `${named}: its folder does not exist; name a file in an existing folder outside it`;
  }
  // A WAL not on this machine (a fleet host's) has no folder here for the page to be beside.
  if (folder === realFolder(wal_path)) return `${named} is beside the WAL it describes, in ${printable(folder, 400)}: name a file outside it`;
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const kind = stateFolderKind(dir);
    if (kind !== null) return `${named} is inside the ${kind === 'state_root' ? 'state root' : 'session folder'} ${printable(dir, 400)}: name a file outside it`;
    if (path.dirname(dir) === dir) return null;
  }
}

/** Writes `text` to the new file `out`; false when a file of that name exists (nothing is overwritten). */
export function writeNewFile(out: string, text: string): boolean {
  try {
    fs.writeFileSync(out, text, { flag: 'wx', mode: 0o644 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function realFolder(file: string): string | null {
  try {
    return fs.realpathSync(path.dirname(file));
  } catch {
    return null;
  }
}

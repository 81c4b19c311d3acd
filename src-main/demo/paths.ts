// Where the demo lives: a per-user folder by default (XDG data home). Everything `walscope demo DIR` writes is
// inside DIR. The side-effect ledger (the world outside the WAL) sits at DIR's top level beside the marker, not
// under sessions/: wal-format §1 gives a state root only the floor, its lock and sessions/, so the scanner,
// which reads sessions/ alone, never takes it for a session, and no session's WAL shares its file.
import os from 'node:os';
import path from 'node:path';

export function defaultDemoRoot(env: NodeJS.ProcessEnv = process.env): string {
  const data_home = env['XDG_DATA_HOME'] !== undefined && env['XDG_DATA_HOME'] !== '' ? env['XDG_DATA_HOME'] : path.join(os.homedir(), '.local', 'share');
  return path.join(data_home, 'walscope', 'demo');
}

export const LEDGER_FILE_NAME = 'walscope-demo.side-effects.jsonl';

export function ledgerPathFor(root: string): string {
  return path.join(path.resolve(root), LEDGER_FILE_NAME);
}

/** The file that marks a folder as a demo root: a refresh rewrites only folders that carry it (or are empty). */
export const DEMO_MARKER_FILE = 'walscope-demo.json';

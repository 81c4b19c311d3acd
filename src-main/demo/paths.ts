// Where the demo lives: a per-user folder by default (XDG data home), and the side-effect ledger beside the
// state root — never inside it, since the world outside the process and the WAL must not share a fate.
import os from 'node:os';
import path from 'node:path';

export function defaultDemoRoot(env: NodeJS.ProcessEnv = process.env): string {
  const data_home = env['XDG_DATA_HOME'] !== undefined && env['XDG_DATA_HOME'] !== '' ? env['XDG_DATA_HOME'] : path.join(os.homedir(), '.local', 'share');
  return path.join(data_home, 'walscope', 'demo');
}

export function ledgerPathFor(root: string): string {
  return `${path.resolve(root)}.side-effects.jsonl`;
}

/** The file that marks a folder as a demo root: a refresh rewrites only folders that carry it (or are empty). */
export const DEMO_MARKER_FILE = 'walscope-demo.json';

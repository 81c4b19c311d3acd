// What a PATH argument names, for every read-only command: a path that names no WAL is a usage error.
import { resolveTargets, TargetError, type WalTarget } from '../engine/inspect.js';
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

// The desktop's Export bundle: the session's bundle from the API (getBundle, read-only), a file chosen in a save
// dialog, written as a new file — never over one, never beside the WAL, never inside a state root or a session folder
// (services/out-file.ts: the rules `walscope bundle --out` keeps). Thin: main.ts hands in the dialog; the rest is here
// and unit-tested.
import { apiCallProblem, type WalscopeApi } from '../../src-shared/ipc.js';
import type { RedactClass, SavedBundle } from '../../src-shared/bundle.js';
import { outFileProblem, writeNewFile } from '../services/out-file.js';

export type { SavedBundle };

export interface SaveDeps {
  api: Pick<WalscopeApi, 'getBundle' | 'getSession'>;
  /** Shows the save dialog offering `file_name`; the path chosen, or null when it was closed. */
  choose: (file_name: string) => Promise<string | null>;
}

/** Saves `key`'s bundle, `redact`'s classes redacted, as a new file the user chooses. Arguments from the window are
 *  checked as getBundle's are at every transport. */
export async function saveBundle(deps: SaveDeps, key: unknown, redact: unknown): Promise<SavedBundle> {
  const problem = apiCallProblem('getBundle', [key, redact]);
  if (problem !== null) throw problem;
  const detail = await deps.api.getSession(key as string);
  const bundle = await deps.api.getBundle(key as string, redact as RedactClass[]);
  const chosen = await deps.choose(bundle.file_name);
  if (chosen === null) return { saved: false, canceled: true };
  const misplaced = outFileProblem(chosen, detail.wal_path);
  if (misplaced !== null) return { saved: false, canceled: false, message: misplaced };
  if (!writeNewFile(chosen, bundle.html)) return { saved: false, canceled: false, message: `${chosen} exists: choose a new file; a bundle never overwrites` };
  return { saved: true, path: chosen, size_bytes: bundle.size_bytes, markers: bundle.markers };
}

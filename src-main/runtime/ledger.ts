// The tool plane's side-effect ledger: the world outside the process, written by the tools themselves and
// never by the WAL writer. One entry per side effect a dispatch applied, keyed session/run/batch/tool_call_id.
// The ledger does not refuse a second entry for a key: it records what happened, and a key holding two
// entries is exactly the at-most-once violation the crash simulator looks for.
import fs from 'node:fs';
import { callKeyText, type CallKey } from './ports.js';

export interface LedgerEntry {
  key: string;
  session: string;
  run_id: string;
  batch_id: string;
  tool_call_id: string;
  tool: string;
  applied_ms: number;
}

export interface SideEffectLedger {
  apply(key: CallKey, tool: string, applied_ms: number): void;
  entries(): LedgerEntry[];
}

/** A ledger that lives only as long as the object: the simulator's world survives its simulated crashes. */
export class MemoryLedger implements SideEffectLedger {
  private readonly applied: LedgerEntry[] = [];

  apply(key: CallKey, tool: string, applied_ms: number): void {
    this.applied.push(entryFor(key, tool, applied_ms));
  }

  entries(): LedgerEntry[] {
    return [...this.applied];
  }
}

/** Bounds the file ledger a demo keeps beside its state root: past this it is not ours. */
export const LEDGER_FILE_BYTES_MAX = 64 * 1_048_576;

/** One JSON line per applied side effect, in a file beside the state root (never inside it: the WAL and the
 *  world must not share a fate). Appended and synced before the dispatch reports its outcome. */
export class FileLedger implements SideEffectLedger {
  constructor(readonly path: string) {}

  apply(key: CallKey, tool: string, applied_ms: number): void {
    const fd = fs.openSync(this.path, 'a');
    try {
      fs.writeSync(fd, `${JSON.stringify(entryFor(key, tool, applied_ms))}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  entries(): LedgerEntry[] {
    if (!fs.existsSync(this.path)) return [];
    const size_bytes = fs.statSync(this.path).size;
    if (size_bytes > LEDGER_FILE_BYTES_MAX) throw new Error(`${this.path} is ${size_bytes} bytes, over the ${LEDGER_FILE_BYTES_MAX} a ledger may hold`);
    return fs
      .readFileSync(this.path, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as LedgerEntry);
  }
}

function entryFor(key: CallKey, tool: string, applied_ms: number): LedgerEntry {
  return { key: callKeyText(key), ...key, tool, applied_ms };
}

/** Keys holding more than one applied side effect. */
export function duplicateKeys(entries: readonly LedgerEntry[]): string[] {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.key, (counts.get(entry.key) ?? 0) + 1);
  return [...counts].filter(([, count]) => count > 1).map(([key]) => key);
}

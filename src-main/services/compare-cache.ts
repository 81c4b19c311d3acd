// The comparisons (compareSessions) made last, kept: the compare view asks for its steps a window at a time, and
// each window of one comparison is cut from the one comparison, not made again. A comparison is kept with a stamp
// of what it read (the WALs' sizes and mtimes, or a fleet's summaries): one whose sides changed is made again. One
// still being made is waited for, not made twice; one that failed is not kept.
import fs from 'node:fs';
import type { CompareJson } from '../../src-shared/compare.js';

/** Comparisons kept at most: each holds its listed steps (up to COMPARE_STEPS_LISTED_MAX), word diffs and all. */
export const COMPARISONS_KEPT_MAX = 2;

export class ComparisonCache {
  private readonly kept = new Map<string, { stamp: string; comparison: Promise<CompareJson> }>();
  /** Comparisons made (not taken from the cache), for the tests. */
  made = 0;

  /** The comparison named `id`, made by `compare` unless the one kept was made from sides stamped `stamp`. */
  get(id: string, stamp: string, compare: () => CompareJson | Promise<CompareJson>): Promise<CompareJson> {
    const hit = this.kept.get(id);
    this.kept.delete(id);
    if (hit !== undefined && hit.stamp === stamp) {
      this.kept.set(id, hit);
      return hit.comparison;
    }
    this.made += 1;
    const entry = { stamp, comparison: Promise.resolve().then(compare) };
    this.kept.set(id, entry);
    entry.comparison.catch(() => {
      if (this.kept.get(id) === entry) this.kept.delete(id);
    });
    while (this.kept.size > COMPARISONS_KEPT_MAX) this.kept.delete(this.kept.keys().next().value!);
    return entry.comparison;
  }
}

/** What a comparison read of these files, as a stamp: each one's size and mtime (a WAL only grows, and a file
 *  replaced under its name has another mtime); a file that cannot be stat'ed is stamped as such. */
export function filesStamp(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const stat = fs.statSync(file);
        return `${stat.size}:${stat.mtimeMs}`;
      } catch {
        return 'none';
      }
    })
    .join('|');
}

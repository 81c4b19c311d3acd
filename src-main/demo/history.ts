// Demo sessions with history (wal-format §11): the reference runtime runs a script, the lineage is retired
// (sealed or deleted) through the engine's retire, and the runtime runs it again in the successor; the last
// lineage stays live. Then the archive is left in one of the states a user meets: a valid index, a stale one,
// none, a torn tail (a retire that died mid-member), or a damaged header with a valid one after it (refused).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  archiveIndexPath, archivePath, type RetireReason, readArchive, retireLineage, sessionDir,
} from '../engine/index.js';
import type { Clock } from '../runtime/clock.js';

export type ArchiveState = 'index_valid' | 'index_stale' | 'index_missing' | 'torn_tail' | 'damaged_header';

export const DEMO_RETIRE_WRITER = 'walscope-demo';

/** Runs the script once per lineage: `retired` lineages are retired in order, then one more run stays live. */
export function makeHistory(root: string, session_id: string, retired: readonly RetireReason[], state: ArchiveState, clock: Clock, run: (lineage: number) => void): void {
  assert.ok(retired.length >= 2, 'a stale index needs two retires');
  const dir = sessionDir(root, session_id);
  let first_index: Buffer | null = null;
  for (const [lineage, reason] of retired.entries()) {
    run(lineage);
    const outcome = retireLineage(root, session_id, { writer_name: DEMO_RETIRE_WRITER, reason, now_ms: () => clock.now_ms() });
    assert.equal(outcome.kind, 'retired', `demo retire of ${session_id}: ${outcome.kind === 'refused' ? outcome.message : outcome.kind}`);
    first_index ??= fs.readFileSync(archiveIndexPath(dir));
  }
  run(retired.length);
  leaveArchive(dir, state, first_index!);
}

function leaveArchive(dir: string, state: ArchiveState, first_index: Buffer): void {
  switch (state) {
    case 'index_valid':
      return;
    case 'index_stale':
      // As a retire that died between its steps 2 and 3 leaves it: the index covers the first member only.
      fs.writeFileSync(archiveIndexPath(dir), first_index);
      return;
    case 'index_missing':
      fs.rmSync(archiveIndexPath(dir));
      return;
    case 'torn_tail': {
      // A retire that died part-way through appending its member: the header and half the content.
      const archive = fs.readFileSync(archivePath(dir));
      const last = readArchive(dir).members.at(-1)!;
      const cut = last.content_offset + Math.floor((last.end - last.content_offset) / 2);
      fs.appendFileSync(archivePath(dir), archive.subarray(last.offset, Math.max(cut, last.offset + last.header_bytes - 9)));
      return;
    }
    case 'damaged_header': {
      // A bad sector in the first member's header, with whole members after it: archive corruption.
      const bytes = fs.readFileSync(archivePath(dir));
      bytes[20] = bytes[20]! ^ 0x5a;
      fs.writeFileSync(archivePath(dir), bytes);
      return;
    }
  }
}

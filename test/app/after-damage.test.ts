// Records after a non-tail damage, inspected read-only: the Records list carries the frames the damage scan finds
// past it (the support report's scan) after the verified records, each marked unverified; nothing about them
// reaches the timeline, the fold, the resume plan or jump-to-seq. On the demo's corrupt-middle session and on a
// flipped copy of a demo WAL opened as an export; the files are re-read to show nothing was written.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AFTER_DAMAGE_ROWS_MAX, type RecordRow } from '../../src-shared/ipc.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { scanAfterDamage } from '../../src-main/engine/damage-scan.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { flippedCopy } from './e2e-root.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-after-damage-');
const opened: SessionService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

function demoRoot(): string {
  const root = path.join(tempDir(), 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  return root;
}

/** Opens `workspace` and checks session `key` (whose WAL is `wal`) as the issue asks. */
async function checkAfterDamage(workspace: string, key: string, wal: string): Promise<void> {
  const bytes_before = fs.readFileSync(wal);
  const service = await SessionService.open(workspace, { watch: false, cache: false });
  opened.push(service);
  const detail = await service.getSession(key);
  const error = detail.integrity.error!;
  expect(error.kind).toBe('non_tail_corruption');
  const found: number[] = [];
  const scan = scanAfterDamage(wal, error.offset!, undefined, (frame) => found.push(frame.offset));
  expect(scan.records).toBeGreaterThan(0);
  const replay = replayTarget(resolveTargets(wal)[0]!);
  const verified = replay.read.frames;
  expect(detail.after_damage).toEqual({
    damage_offset: error.offset,
    first_index: verified,
    frames: scan.frames,
    records: scan.records,
    seq_first: scan.seq_first,
    seq_last: scan.seq_last,
    listed: scan.frames,
    scan_cut: false,
  });
  expect(detail.rows.records).toBe(verified + scan.frames);
  const page = (await service.getRows(key, 'records', 0, detail.rows.records)).rows as RecordRow[];
  expect(page.slice(0, verified).every((row) => row.unverified === undefined)).toBe(true);
  const after = page.slice(verified);
  expect(after.map((row) => [row.index, row.offset, row.unverified])).toEqual(found.map((offset, at) => [verified + at, offset, true]));
  const first = await service.getRecord(key, verified);
  expect(first).toMatchObject({ unverified: true, digest_ok: true, timeline_row: null, offset: found[0] });
  // Nothing after the damage is used: the last seq, the timeline and the plan are the verified prefix's.
  expect(detail.summary.last_seq).toBe(replay.read.last_seq);
  expect(detail.resume).toEqual(replay.resume);
  expect(detail.actions.filter((action) => action.applies)).toEqual([]);
  for (const row of after) if (row.seq > 0) expect(await service.locateSeq(key, row.seq)).toBeNull();
  const timeline = (await service.getRows(key, 'timeline', 0, detail.rows.timeline)).rows;
  expect(timeline.flatMap((row) => row.seqs).every((seq) => seq <= replay.read.last_seq)).toBe(true);
  expect(fs.readFileSync(wal)).toEqual(bytes_before);
}

describe('records after a non-tail damage', () => {
  it('the demo\'s corrupt-middle session lists them after the verified records, unverified, unused', async () => {
    const root = demoRoot();
    await checkAfterDamage(root, 'corrupt-middle', walPath(sessionDir(root, 'corrupt-middle')));
  });

  it('a flipped copy of a demo WAL, opened as an export, does the same', async () => {
    const root = demoRoot();
    const exports = tempDir();
    const file = flippedCopy(root, 'approvals', exports);
    await checkAfterDamage(file, path.basename(file), file);
  });

  it('lists at most AFTER_DAMAGE_ROWS_MAX of them and counts the rest', async () => {
    const root = tempDir();
    const extra = 50;
    withSession(root, 'many', (_append, session) => {
      for (let at = 0; at < AFTER_DAMAGE_ROWS_MAX + extra; at++) session.writer.append('operator_action', { action: 'resume', operator: 'o', reason: `r${at}`, based_on_seq: 0, via: 'cli', ts_ms: at });
      session.writer.barrier();
    });
    const wal = walPath(sessionDir(root, 'many'));
    const bytes = fs.readFileSync(wal);
    const second = readFrameOffsets(wal)[2]!;
    bytes[second + 20]! ^= 0x01;
    fs.writeFileSync(wal, bytes);
    const service = await SessionService.open(wal, { watch: false, cache: false });
    opened.push(service);
    const detail = await service.getSession('many');
    expect(detail.after_damage).toMatchObject({ listed: AFTER_DAMAGE_ROWS_MAX, records: AFTER_DAMAGE_ROWS_MAX + extra - 2 });
    expect(detail.rows.records).toBe(detail.after_damage!.first_index + AFTER_DAMAGE_ROWS_MAX);
  });
});

function readFrameOffsets(wal: string): number[] {
  const offsets: number[] = [];
  readWal(wal, { with_payload: false, on_frame: (frame) => offsets.push(frame.offset) });
  return offsets;
}

// Long sessions in the session service. A real WAL of a hundred thousand records (written frame by frame with
// the codec: a million take about a minute to write and index on a small machine, too long for every run) is
// indexed and paged from both ends; and a million-record episode, folded in memory, still lays out as a
// timeline (spreading its rows into push() once overflowed the stack past ~125k rows).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ReadFrame } from '../../src-shared/wal.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { FRAME_VER_PLAIN } from '../../src-main/engine/limits.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionFolder } from '../../src-main/replay/fold.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { PAYLOADS_UNREAD } from '../../src-main/replay/payloads.js';
import { buildTimeline } from '../../src-main/views/timeline.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-big-');
const WAL_RECORDS = 100_000;
const FOLD_RECORDS = 1_000_000;
/** Frames are appended in slabs this big: one write per slab, not per frame. */
const SLAB_FRAMES = 10_000;
const BIG_TEST_MS_MAX = 120_000;

const note = (seq: number) => ({ note: `note ${seq}` });

/** A session whose one run holds `count` notes after its run_started, written by the writer and then the codec. */
function writeLongSession(root: string, count: number): string {
  withSession(root, 'long', (append) => {
    append('run_started', { run_id: 'long-1', session: 'long', config: { model: 'm' }, input: [] });
  });
  const file = walPath(sessionDir(root, 'long'));
  const head = readWal(file);
  const fd = fs.openSync(file, 'a');
  try {
    let slab: Buffer[] = [];
    for (let seq = head.last_seq + 1; seq <= head.last_seq + count; seq++) {
      slab.push(encodeFrame({ ver: FRAME_VER_PLAIN, seq, fence: head.max_fence, type: 'run_note', features: [], payload: note(seq) }));
      if (slab.length === SLAB_FRAMES) {
        fs.writeSync(fd, Buffer.concat(slab));
        slab = [];
      }
    }
    fs.writeSync(fd, Buffer.concat(slab));
  } finally {
    fs.closeSync(fd);
  }
  return sessionDir(root, 'long');
}

describe('long sessions', () => {
  it(`indexes a ${WAL_RECORDS.toLocaleString('en')}-record WAL and pages it from both ends`, () => {
    const model = new SessionModel('long', resolveTargets(writeLongSession(tempDir(), WAL_RECORDS))[0]!);
    model.refresh();
    const detail = model.detail();
    const last_seq = detail.summary.last_seq;
    expect(detail.integrity.error).toBeNull();
    expect(last_seq).toBeGreaterThan(WAL_RECORDS);
    const frames_total = detail.rows.records;
    expect(frames_total).toBeGreaterThan(WAL_RECORDS);

    const tail = model.rows('records', frames_total - 3, 10);
    expect(tail.rows.map((row) => row.seq)).toEqual([last_seq - 2, last_seq - 1, last_seq]);
    const middle_seq = Math.floor(last_seq / 2);
    const middle = model.locateSeq(middle_seq)!;
    expect(model.rows('records', middle, 1).rows[0]).toMatchObject({ index: middle, seq: middle_seq, type: 'run_note' });

    const record = model.record(frames_total - 1)!;
    expect(record).toMatchObject({ seq: last_seq, digest_ok: true, payload: note(last_seq) });
    expect(record.timeline_row).toBe(detail.rows.timeline - 1);
    expect(model.rows('timeline', detail.rows.timeline - 1, 10).rows).toEqual([expect.objectContaining({ kind: 'event', seqs: [last_seq] })]);
  }, BIG_TEST_MS_MAX);

  it(`lays out a ${FOLD_RECORDS.toLocaleString('en')}-record episode as a timeline`, () => {
    const folder = new SessionFolder();
    const frame = (seq: number, type: string, payload: ReadFrame['payload']): ReadFrame => ({ offset: 0, size_bytes: 0, digest_algorithm: 'sha256', ver: FRAME_VER_PLAIN, seq, fence: 1, type, features: [], payload });
    folder.push(frame(1, 'run_started', { run_id: 'r1', session: 's', config: {}, input: [] }));
    for (let seq = 2; seq <= FOLD_RECORDS + 1; seq++) folder.push(frame(seq, 'run_note', note(seq)));
    const timeline = buildTimeline(folder.snapshot(), PAYLOADS_UNREAD);
    expect(timeline.rows).toHaveLength(FOLD_RECORDS + 1);
    expect(timeline.rows.at(-1)).toMatchObject({ kind: 'event', seqs: [FOLD_RECORDS + 1] });
    expect(timeline.row_of_seq[FOLD_RECORDS + 1]).toBe(FOLD_RECORDS);
  }, BIG_TEST_MS_MAX);
});

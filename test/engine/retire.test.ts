// Retiring a lineage (wal-format §11) on real files: the three steps with every barrier and folder sync in
// order, re-read from disk; the successor's counters from the retired lineage; idempotence after a failure at
// each step; the archive's torn tail kept in a copy before the cut; and refusals that write nothing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArchive } from '../../src-main/engine/archive-reader.js';
import { readHistory } from '../../src-main/engine/lineage-chain.js';
import { hex, readWal } from '../../src-main/engine/reader.js';
import { previewRetire, retireLineage } from '../../src-main/engine/retire.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { FaultyIO } from '../helpers/faulty-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';

const tempDir = useTempDirs('walscope-retire-');

/** A root with session s1: a run tagged 1..3 and a compaction notice 4. */
function writeSession(root = tempDir()): { root: string; dir: string } {
  const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
  session.writer.append('run_started', { run_id: 'r1', session: 's1', config: {}, input: [], tags: [[1, 2, 3]] });
  session.writer.append('compaction_notice', { notice_seq: 4, headers: {} });
  session.writer.append('turn_finished', { step_id: 1 });
  session.close();
  return { root, dir: sessionDir(root, 's1') };
}

function files(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).sort().map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('hex')]));
}

describe('retiring a lineage', () => {
  it('seals: member, then successor (synced, renamed, folder synced), then index, each barrier in order', () => {
    const { root, dir } = writeSession();
    const wal_before = fs.readFileSync(walPath(dir));
    const recorder = new FaultyIO();
    const outcome = retireLineage(root, 's1', { io: recorder.io, writer_name: 'test', reason: 'sealed' });
    expect(outcome.kind).toBe('retired');
    const steps = recorder
      .mutations()
      .filter((effect) => effect.path !== null && !effect.path.endsWith('/lease') && effect.op !== 'open')
      .map((effect) => `${effect.op} ${path.basename(effect.path!)}${effect.to === undefined ? '' : ` -> ${path.basename(effect.to)}`}`);
    expect(steps).toEqual([
      'write archive', 'write archive', 'fdatasync archive', 'fsyncDirectory s1',
      'write wal.successor', 'fsync wal.successor', 'rename wal.successor -> wal', 'fsyncDirectory s1',
      'write archive.index.tmp', 'fsync archive.index.tmp', 'rename archive.index.tmp -> archive.index', 'fsyncDirectory s1',
    ]);
    // Re-read from disk: the member's content is the old WAL byte for byte; the successor carries on.
    const archive = readArchive(dir);
    expect(archive).toMatchObject({ index: 'valid', error: null, torn_tail: null });
    const member = archive.members[0]!;
    expect(fs.readFileSync(path.join(dir, 'archive')).subarray(member.content_offset, member.end)).toEqual(wal_before);
    expect(member).toMatchObject({ reason: 'sealed', first_seq: 1, last_seq: 3, next_tag: 4, next_notice_seq: 5 });
    const frames: { payload: unknown }[] = [];
    const successor = readWal(walPath(dir), { on_frame: (frame) => frames.push(frame) });
    expect(successor.records).toBe(0);
    expect(frames[0]!.payload).toMatchObject({ parent_wal_id: member.wal_id, next_tag: 4, next_notice_seq: 5 });
  });

  it('deletes: a tombstone of 0 content bytes carrying the counters; the history shows it', () => {
    const { root, dir } = writeSession();
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'deleted' }).kind).toBe('retired');
    const archive = readArchive(dir);
    expect(archive.members[0]).toMatchObject({ reason: 'deleted', content_bytes: 0, last_seq: 3, next_tag: 4 });
    expect(readHistory(dir).lineages.map((entry) => entry.where)).toEqual(['live', 'deleted']);
  });

  it.each([
    ['the successor write', 'write', /wal\.successor$/],
    ['the successor rename', 'rename', /wal\.successor$/],
    ['the index write', 'write', /archive\.index\.tmp$/],
  ] as const)('fails at %s, then a second retire finishes without a second member', (_name, op, pattern) => {
    const { root, dir } = writeSession();
    const faulty = new FaultyIO().fail(op, { path: pattern });
    expect(() => retireLineage(root, 's1', { io: faulty.io, writer_name: 'test', reason: 'sealed' })).toThrow(/EIO/);
    const after_failure = readArchive(dir);
    expect(after_failure.members).toHaveLength(1);
    const second = retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed' });
    expect(['retired', 'index_completed']).toContain(second.kind);
    if (second.kind === 'retired') expect(second.member).toBeNull();
    const archive = readArchive(dir);
    expect(archive.members).toHaveLength(1);
    expect(archive.index).toBe('valid');
    expect(readHistory(dir).problems).toEqual([]);
    // A third time there is nothing to do, and nothing is written.
    const settled = files(dir);
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed' })).toMatchObject({ kind: 'refused', code: 'nothing_to_retire' });
    expect(files(dir)).toEqual({ ...settled, lease: files(dir).lease });
  });

  it('keeps the archive torn tail in a copy beside it, synced, before cutting it and appending', () => {
    const { root, dir } = writeSession();
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'deleted' }).kind).toBe('retired');
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 1 });
    session.close();
    const garbage = Buffer.from('BWAL\x01\x01\x00\x00half a member that never finished');
    fs.appendFileSync(path.join(dir, 'archive'), garbage);
    const torn_at = fs.statSync(path.join(dir, 'archive')).size - garbage.length;
    const preview = previewRetire(root, 's1', 'sealed');
    expect(preview.kind).toBe('plan');
    const copy_name = preview.kind === 'plan' ? preview.plan.archive_torn_tail!.copy_name : '';
    expect(copy_name).toMatch(new RegExp(`^archive\\.torn-${torn_at}-[0-9a-f]{16}$`));
    const recorder = new FaultyIO();
    expect(retireLineage(root, 's1', { io: recorder.io, writer_name: 'test', reason: 'sealed' }).kind).toBe('retired');
    expect(fs.readFileSync(path.join(dir, copy_name))).toEqual(garbage);
    const order = recorder.mutations().map((effect) => `${effect.op} ${path.basename(effect.path ?? '')}`);
    const copy_synced = order.indexOf(`fsync ${copy_name}`);
    expect(copy_synced).toBeGreaterThan(-1);
    expect(order.indexOf('fsyncDirectory s1')).toBeGreaterThan(copy_synced);
    expect(order.indexOf('ftruncate archive')).toBeGreaterThan(order.indexOf('fsyncDirectory s1'));
    const archive = readArchive(dir);
    expect(archive).toMatchObject({ torn_tail: null, error: null });
    expect(archive.members.map((member) => member.offset)).toEqual([0, torn_at]);
  });

  it('is refused under a live lease and on a corrupt archive, writing nothing', async () => {
    const { root, dir } = writeSession();
    const child = runFixture('hold-lease.ts', [dir, 'child-writer']);
    await child.nextLine();
    const before = files(dir);
    expect(previewRetire(root, 's1', 'sealed')).toMatchObject({ kind: 'refused', code: 'lease_held' });
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed' })).toMatchObject({ kind: 'refused', code: 'lease_held' });
    expect(files(dir)).toEqual(before);
    await killHard(child);
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed' }).kind).toBe('retired');
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 1 });
    session.close();
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'deleted' }).kind).toBe('retired');
    const archive_file = path.join(dir, 'archive');
    const bytes = fs.readFileSync(archive_file);
    bytes[20] = bytes[20]! ^ 0x01;
    fs.writeFileSync(archive_file, bytes);
    const session2 = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session2.writer.append('turn_finished', { step_id: 1 });
    session2.close();
    const corrupt = files(dir);
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed' })).toMatchObject({ kind: 'refused', code: 'archive_refused' });
    expect({ ...files(dir), lease: '' }).toEqual({ ...corrupt, lease: '' });
  });

  it('refuses a plan the operator did not approve, and stamps who approved the one they did', () => {
    const { root, dir } = writeSession();
    const preview = previewRetire(root, 's1', 'sealed');
    if (preview.kind !== 'plan') throw new Error(preview.message);
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 2 });
    session.close();
    const before = files(dir);
    expect(retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed', expected: preview.plan })).toMatchObject({ kind: 'refused', code: 'plan_changed' });
    expect({ ...files(dir), lease: '' }).toEqual({ ...before, lease: '' });
    const fresh = previewRetire(root, 's1', 'sealed');
    if (fresh.kind !== 'plan') throw new Error(fresh.message);
    const outcome = retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed', expected: fresh.plan, operator: { operator: 'ann', reason: 'month end', via: 'cli' } });
    expect(outcome.kind).toBe('retired');
    const types: string[] = [];
    const member = readArchive(dir).members[0]!;
    expect(member.last_seq).toBe(5);
    const history = readHistory(dir);
    expect(history.lineages[1]).toMatchObject({ where: 'sealed', wal_id: hex(member.wal_id), last_seq: 5 });
    readWal(walPath(dir), { on_frame: (frame) => types.push(frame.type) });
    expect(types).toEqual(['lineage']);
  });
});

describe('an ordinary writer after a retire that died between steps 1 and 2', () => {
  /** A sealed (or deleted) retire whose successor write fails: the member is in the archive, `wal` is the old one. */
  function interruptedRetire(reason: 'sealed' | 'deleted'): { root: string; dir: string; wal_before: Buffer; wal_id: string } {
    const { root, dir } = writeSession();
    const wal_before = fs.readFileSync(walPath(dir));
    const faulty = new FaultyIO().fail('write', { path: /wal\.successor$/ });
    expect(() => retireLineage(root, 's1', { io: faulty.io, writer_name: 'test', reason })).toThrow(/EIO/);
    const wal_id = hex(readWal(walPath(dir)).wal_id!);
    expect(readArchive(dir).members.map((member) => hex(member.wal_id))).toEqual([wal_id]);
    expect(fs.readFileSync(walPath(dir))).toEqual(wal_before);
    return { root, dir, wal_before, wal_id };
  }

  it.each(['sealed', 'deleted'] as const)('finishes the %s retire (successor, index) before it appends, then writes to the successor', (reason) => {
    const { root, dir, wal_before, wal_id } = interruptedRetire(reason);
    const recorder = new FaultyIO();
    const session = openSessionForWrite(root, 's1', { io: recorder.io, writer_name: 'runtime' });
    session.writer.append('turn_finished', { step_id: 9 });
    session.close();
    const steps = recorder.mutations().filter((effect) => effect.op !== 'open' && effect.path !== null && !effect.path.endsWith('/lease')).map((effect) => `${effect.op} ${path.basename(effect.path!)}`);
    const renamed = steps.indexOf('rename wal.successor');
    const indexed = steps.indexOf('rename archive.index.tmp');
    expect(steps.slice(0, renamed + 2)).toEqual(['write wal.successor', 'fsync wal.successor', 'rename wal.successor', 'fsyncDirectory s1']);
    expect(steps[indexed + 1]).toBe('fsyncDirectory s1');
    expect(steps.indexOf('write wal')).toBeGreaterThan(indexed);
    expect(steps).not.toContain('write archive');
    // Re-read from disk: one member, the old lineage whole; the index covers it; the successor carries on.
    const archive = readArchive(dir);
    expect(archive).toMatchObject({ index: 'valid', error: null, torn_tail: null });
    expect(archive.members).toHaveLength(1);
    const member = archive.members[0]!;
    expect(member).toMatchObject({ reason, last_seq: 3, next_tag: 4, next_notice_seq: 5 });
    if (reason === 'sealed') expect(fs.readFileSync(path.join(dir, 'archive')).subarray(member.content_offset, member.end)).toEqual(wal_before);
    const frames: { type: string; seq: number; payload: unknown }[] = [];
    const successor = readWal(walPath(dir), { on_frame: (frame) => frames.push(frame) });
    expect(hex(successor.wal_id!)).not.toBe(wal_id);
    expect(frames[0]!.payload).toMatchObject({ parent_wal_id: member.wal_id, next_tag: 4, next_notice_seq: 5 });
    expect(frames.map((frame) => `${frame.type}@${frame.seq}`)).toEqual(['lineage@0', 'lineage@0', 'turn_finished@1']);
    const history = readHistory(dir);
    expect(history.problems).toEqual([]);
    expect(history.lineages.map((entry) => [entry.where, entry.wal_id])).toEqual([['live', hex(successor.wal_id!)], [reason, wal_id]]);
  });

  it('leaves a stale member alone: the WAL grew since step 1, so the live WAL is authoritative and only appended to', () => {
    const { root, dir, wal_id } = interruptedRetire('sealed');
    // The WAL grows past the member (as a writer that did not finish the retire left it).
    const grown = openSessionForWrite(root, 's1', { writer_name: 'old-runtime', finish_interrupted_retire: false });
    grown.writer.append('turn_finished', { step_id: 4 });
    grown.close();
    const archive_before = fs.readFileSync(path.join(dir, 'archive'));
    const session = openSessionForWrite(root, 's1', { writer_name: 'runtime' });
    session.writer.append('turn_finished', { step_id: 5 });
    session.close();
    expect(fs.readFileSync(path.join(dir, 'archive'))).toEqual(archive_before);
    const live = readWal(walPath(dir));
    expect(hex(live.wal_id!)).toBe(wal_id);
    expect(live.last_seq).toBe(5);
    // The next retire appends a newer member holding every record, and the history loses nothing.
    const outcome = retireLineage(root, 's1', { writer_name: 'test', reason: 'sealed' });
    expect(outcome.kind).toBe('retired');
    const members = readArchive(dir).members;
    expect(members.map((member) => [hex(member.wal_id), member.last_seq])).toEqual([[wal_id, 3], [wal_id, 5]]);
    expect(readHistory(dir).problems).toEqual([]);
  });

  it('does not retire a lineage whose member holds different content (a damaged member is no interrupted retire)', () => {
    const { root, dir, wal_id } = interruptedRetire('sealed');
    const archive_file = path.join(dir, 'archive');
    const bytes = fs.readFileSync(archive_file);
    const member = readArchive(dir).members[0]!;
    bytes[member.end - 1] = bytes[member.end - 1]! ^ 0x01;
    fs.writeFileSync(archive_file, bytes);
    const session = openSessionForWrite(root, 's1', { writer_name: 'runtime' });
    session.writer.append('turn_finished', { step_id: 5 });
    session.close();
    expect(hex(readWal(walPath(dir)).wal_id!)).toBe(wal_id);
    expect(fs.readFileSync(archive_file)).toEqual(bytes);
  });
});

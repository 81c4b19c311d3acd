// The audit trail (wal-format §6 operator_action) and the torn tail kept beside the WAL, on copies of the demo
// root's sessions. Every check re-reads the disk: the audit record is first, in the action's first barrier; an
// action that appends nothing writes none; a refused audit writes nothing at all; the truncated tail's bytes
// are in the `.broken` copy, made durable (file fsync, rename, folder fsync) before the truncation.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { tornTailCopyPath } from '../../src-main/engine/writer.js';
import { previewRecovery, resumeSession, sealSession, type OperatorAudit } from '../../src-main/recovery/actions.js';
import { planResume, planSeal } from '../../src-main/replay/plan.js';
import { RecoveryLog } from '../../src-main/replay/recoveries.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { FaultyIO } from '../helpers/faulty-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { writesPerBarrier } from '../replay/session-script.js';

const tempDir = useTempDirs('walscope-audit-');
const REPO = path.resolve(import.meta.dirname, '../..');
const AUDIT: OperatorAudit = { operator: 'alice', reason: 'customer ticket 42: the run crashed overnight', via: 'cli' };
const NOW_MS = 1_800_000_000_000;

/** A fresh demo root per test (actions change it). */
function demoRoot(): string {
  const root = path.join(tempDir(), 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  return root;
}

function records(root: string, id: string) {
  const found: { seq: number; type: string; fence: number; payload: unknown }[] = [];
  const read = readWal(walPath(sessionDir(root, id)), { on_frame: (frame) => found.push({ seq: frame.seq, type: frame.type, fence: frame.fence, payload: frame.payload }) });
  expect(read.error).toBeNull();
  return found;
}

describe('operator_action', () => {
  it('is the first record an approved close-out appends, in its first barrier, with who, why, from which view and when', () => {
    const root = demoRoot();
    const id = 'indeterminate';
    const before = records(root, id);
    const last = before.at(-1)!.seq;
    const preview = previewRecovery(root, id, planResume);
    if (preview.kind !== 'plan') throw new Error(preview.message);
    const planned = preview.plan.records;
    const recorder = new FaultyIO();
    const outcome = resumeSession(root, id, { io: recorder.io, audit: AUDIT, now_ms: () => NOW_MS });
    expect(outcome.kind).toBe('done');
    const after = records(root, id).filter((record) => record.seq > last);
    expect(after[0]).toMatchObject({
      seq: last + 1,
      type: 'operator_action',
      payload: { action: 'resume', operator: 'alice', reason: AUDIT.reason, based_on_seq: last, via: 'cli', ts_ms: NOW_MS },
    });
    expect(after.slice(1).map((record) => record.type)).toEqual(planned.map((record) => record.type));
    // The lineage frame, the audit record and the close-out's first group are made durable by one barrier.
    const first_group = planned.filter((record) => record.barrier === 0).length;
    expect(writesPerBarrier(recorder, walPath(sessionDir(root, id)))).toEqual([1 + 1 + first_group, planned.length - first_group]);
    // Replay is identical with it: the session is now finished, nothing more is planned.
    expect(resumeSession(root, id, { audit: AUDIT }).kind === 'done').toBe(true);

    const log = new RecoveryLog();
    for (const record of records(root, id)) log.push({ ...record, payload: record.payload as never });
    expect(log.entries()).toEqual([expect.objectContaining({ seq: last + 1, action: 'resume', operator: 'alice', ts_ms: NOW_MS, records: after.slice(1).map(({ seq, type }) => ({ seq, type })) })]);
  });

  it('an action that appends nothing writes none, and the WAL is byte for byte the same', () => {
    const root = demoRoot();
    const wal = walPath(sessionDir(root, 'finished'));
    const bytes = fs.readFileSync(wal);
    const outcome = sealSession(root, 'finished', { audit: AUDIT });
    expect(outcome).toMatchObject({ kind: 'done', audit: null, appended: [] });
    expect(fs.readFileSync(wal).equals(bytes)).toBe(true);
  });

  it('an empty reason is refused and nothing is written, not even the lineage frame or the tail cut', () => {
    const root = demoRoot();
    const dir = sessionDir(root, 'torn-tail');
    const bytes = fs.readFileSync(walPath(dir));
    const entries = fs.readdirSync(dir).sort();
    const outcome = sealSession(root, 'torn-tail', { audit: { ...AUDIT, reason: '   ' } });
    expect(outcome.kind).toBe('refused');
    expect(fs.readFileSync(walPath(dir)).equals(bytes)).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(entries);
  });

  it('an operator name that is not one line of plain text (a number, an escape, a line break, a bidi override) is refused, nothing written', () => {
    const root = demoRoot();
    const dir = sessionDir(root, 'torn-tail');
    const bytes = fs.readFileSync(walPath(dir));
    const entries = fs.readdirSync(dir).sort();
    for (const operator of [42, 'ann\u001b[2J', 'ann\nOK  session forged', 'ann\u202edesrever', '']) {
      const outcome = sealSession(root, 'torn-tail', { audit: { ...AUDIT, operator: operator as string } });
      expect({ operator, kind: outcome.kind }).toEqual({ operator, kind: 'refused' });
    }
    expect(fs.readFileSync(walPath(dir)).equals(bytes)).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(entries);
  });
});

describe('a torn tail cut by a recovery', () => {
  it('is in the preview, and its bytes are kept beside the WAL, durably, before the WAL is truncated', () => {
    const root = demoRoot();
    const dir = sessionDir(root, 'torn-tail');
    const wal = walPath(dir);
    const original = fs.readFileSync(wal);
    const preview = previewRecovery(root, 'torn-tail', planSeal);
    if (preview.kind !== 'plan') throw new Error(preview.message);
    const repair = preview.tail_repair!;
    expect(repair).toEqual({ offset: expect.any(Number), bytes: 29, copy_path: tornTailCopyPath(wal, repair.offset) });
    expect(repair.offset + repair.bytes).toBe(original.length);

    const recorder = new FaultyIO();
    expect(sealSession(root, 'torn-tail', { io: recorder.io, audit: AUDIT }).kind).toBe('done');
    // Re-read from disk: the copy holds exactly the cut bytes, and the WAL goes on from the intact prefix.
    expect(fs.readFileSync(repair.copy_path).equals(original.subarray(repair.offset))).toBe(true);
    expect(fs.readFileSync(wal).subarray(0, repair.offset).equals(original.subarray(0, repair.offset))).toBe(true);
    expect(fs.existsSync(`${repair.copy_path}.tmp`)).toBe(false);
    const order = recorder.mutations().map((effect) => `${effect.op} ${path.basename(effect.path ?? '')}${effect.to === undefined ? '' : ` -> ${path.basename(effect.to)}`}`);
    const copy = path.basename(repair.copy_path);
    const at = (entry: string) => order.indexOf(entry);
    expect(at(`fsync ${copy}.tmp`)).toBeGreaterThan(-1);
    expect(at(`rename ${copy}.tmp -> ${copy}`)).toBeGreaterThan(at(`fsync ${copy}.tmp`));
    expect(at(`fsyncDirectory ${path.basename(dir)}`)).toBeGreaterThan(at(`rename ${copy}.tmp -> ${copy}`));
    expect(at('ftruncate wal')).toBeGreaterThan(at(`fsyncDirectory ${path.basename(dir)}`));
  });

  it('a failed copy leaves the WAL untouched: the evidence is never cut without being kept', () => {
    const root = demoRoot();
    const wal = walPath(sessionDir(root, 'torn-tail'));
    const original = fs.readFileSync(wal);
    const recorder = new FaultyIO().fail('fsync', { path: /\.broken\.tmp$/ });
    expect(() => sealSession(root, 'torn-tail', { io: recorder.io, audit: AUDIT })).toThrow(/keep_torn_tail/);
    expect(fs.readFileSync(wal).equals(original)).toBe(true);
  });
});

describe('walscope seal|resume --json, --operator, --reason', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/walscope.js', ...args], { cwd: REPO, encoding: 'utf8' });

  it('--yes without --reason is a usage error and writes nothing', () => {
    const root = demoRoot();
    const wal = walPath(sessionDir(root, 'natural-end'));
    const bytes = fs.readFileSync(wal);
    const result = cli('resume', sessionDir(root, 'natural-end'), '--yes');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--reason');
    expect(fs.readFileSync(wal).equals(bytes)).toBe(true);
  });

  it('--json prints the plan, the contradiction and the outcome; the audit record names the operator', () => {
    const root = demoRoot();
    const result = cli('seal', sessionDir(root, 'torn-tail'), '--yes', '--reason', 'closing <b>it</b>', '--operator', 'bob', '--json');
    expect(result.status).toBe(0);
    const json = JSON.parse(result.stdout) as { plan: { records: unknown[] }; contradicts: string; tail_repair: { bytes: number }; outcome: { kind: string; appended: { type: string }[] } };
    expect(json.contradicts).toMatch(/resume \(finalize\) records the run as "completed"; seal would record it as "interrupted"/);
    expect(json.tail_repair.bytes).toBe(29);
    expect(json.outcome.kind).toBe('done');
    expect(json.outcome.appended.map((record) => record.type)).toEqual(['operator_action', 'run_finished']);
    const audit = records(root, 'torn-tail').find((record) => record.type === 'operator_action')!;
    expect(audit.payload).toMatchObject({ action: 'seal', operator: 'bob', reason: 'closing <b>it</b>', via: 'cli' });
  });
});

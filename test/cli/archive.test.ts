// The archive's command line as a user runs it (real child processes): `retire` previews then writes, refuses
// exports; `verify --json` reports the archive; `lineages` lists and finds; `dump`/`replay` open SESSION@WAL_ID.
// Run on archives this project wrote AND on ones an independent §11 encoder wrote (hand-built bytes).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../src-shared/wal.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { archiveBytes, handWal, indexBytes, memberBytes, sealedMember, tombstone, walId } from '../helpers/archive-bytes.js';
import { useTempDirs } from '../helpers/temp.js';
import { sealedLineageCopy } from '../../src-main/cli/targets.js';
import { readArchive } from '../../src-main/engine/archive-reader.js';
import { readWal } from '../../src-main/engine/reader.js';
import { runFixture } from '../fixtures/run-fixture.js';

const tempDir = useTempDirs('walscope-cli-archive-');
const REPO = path.resolve(import.meta.dirname, '../..');

function walscope(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts'), ...args], { cwd: REPO, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeSession(root = tempDir()): string {
  const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
  session.writer.append('run_started', { run_id: 'r1', session: 's1', config: {}, input: [] });
  session.writer.append('turn_finished', { step_id: 1 });
  session.close();
  return sessionDir(root, 's1');
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).sort().map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('hex')]));
}

/** A session of a state root whose archive an independent encoder wrote: A sealed, B deleted, C live. */
function handSession(options: { index?: 'valid' | 'stale' | 'none'; flip_at?: number } = {}): { dir: string; ids: Record<'A' | 'B' | 'C', string> } {
  const [A, B, C] = [walId(0xa1), walId(0xb2), walId(0xc3)];
  const members = [sealedMember({ wal_id: A, records: 2 }, 3, 1), tombstone(B, 1, 4, 1)];
  const { bytes, offsets } = archiveBytes(members);
  const dir = sessionDir(tempDir(), 's1');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(walPath(dir), handWal({ wal_id: C, parent: B, next_tag: 4, records: 1 }));
  if (options.flip_at !== undefined) bytes[options.flip_at] = bytes[options.flip_at]! ^ 0x01;
  fs.writeFileSync(path.join(dir, 'archive'), bytes);
  if (options.index !== 'none') fs.writeFileSync(path.join(dir, 'archive.index'), indexBytes(members, offsets, options.index === 'stale' ? 1 : 2));
  return { dir, ids: { A: A.toString('hex'), B: B.toString('hex'), C: C.toString('hex') } };
}

describe('walscope retire', () => {
  it('--dry-run prints the member, successor and index it would write, and writes nothing', () => {
    const dir = writeSession();
    const before = snapshot(dir);
    const { code, stdout } = walscope('retire', dir, '--seal', '--dry-run');
    expect(code).toBe(0);
    expect(stdout).toMatch(/1\. append member to archive at offset 0: \{wal_id [0-9a-f]{32}, reason sealed, first_seq 1, last_seq 2/);
    expect(stdout).toMatch(/2\. successor wal: one lineage frame \{wal_id <new>, parent_wal_id [0-9a-f]{32}, next_tag 1, next_notice_seq 1/);
    expect(stdout).toContain('3. archive.index rewritten to cover the whole archive (1 member; it is missing now)');
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses exports: a WAL file and a folder outside a state root', () => {
    const dir = writeSession();
    const copy = path.join(tempDir(), 's1');
    fs.cpSync(dir, copy, { recursive: true });
    const before = snapshot(copy);
    const file = walscope('retire', walPath(copy), '--seal', '--yes');
    expect(file.code).toBe(1);
    expect(file.stderr).toContain('exports are read-only');
    const folder = walscope('retire', copy, '--delete', '--yes');
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain('is an export and is read-only');
    expect(snapshot(copy)).toEqual(before);
  });

  it('--yes retires; verify, lineages, --find, dump and replay then see the sealed lineage', () => {
    const dir = writeSession();
    const retired = walscope('retire', dir, '--seal', '--yes', '--operator', 'ann', '--reason', 'month end');
    expect(retired.code, retired.stderr).toBe(0);
    expect(retired.stdout).toMatch(/^retired [0-9a-f]{32}: member at archive offset 0/m);
    const verify = walscope('verify', dir, '--json');
    expect(verify.code).toBe(0);
    expect((JSON.parse(verify.stdout) as VerifyReport).archive).toEqual({ index: 'valid', members: 1, torn_tail: null, error: null, damaged_members: [] });
    const lineages = JSON.parse(walscope('lineages', dir, '--json').stdout);
    expect(lineages.problems).toEqual([]);
    expect(lineages.lineages.map((entry: { where: string }) => entry.where)).toEqual(['live', 'sealed']);
    const sealed = lineages.lineages[1];
    expect(sealed).toMatchObject({ parent_wal_id: null, first_seq: 1, last_seq: 3, next_tag: 1, next_notice_seq: 1 });
    expect(lineages.lineages[0].parent_wal_id).toBe(sealed.wal_id);
    expect(JSON.parse(walscope('lineages', dir, '--find', sealed.wal_id, '--json').stdout)).toEqual({ found: true, where: 'sealed', offset: 0 });
    const dump = walscope('dump', `${dir}@${sealed.wal_id}`, '--json');
    expect(dump.code).toBe(0);
    expect(dump.stdout.trim().split('\n').map((line) => JSON.parse(line).type)).toEqual(['lineage', 'run_started', 'turn_finished', 'lineage', 'operator_action']);
    const replay = walscope('replay', `${dir}@${sealed.wal_id}`, '--json');
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout).wal_id).toBe(sealed.wal_id);
  });
});

describe('a retire killed between its steps 2 and 3 (successor written, index not yet)', () => {
  /** Two retires, the second SIGKILLed just before its index's rename: the index covers the first member only. */
  async function killedAfterStep2(): Promise<{ root: string; dir: string }> {
    const dir = writeSession();
    const root = path.dirname(path.dirname(dir));
    expect(walscope('retire', dir, '--seal', '--yes').code).toBe(0);
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 2 });
    session.close();
    const child = runFixture('retire-kill.ts', [root, 's1']);
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const archive = readArchive(dir);
    expect([archive.members.length, archive.index]).toEqual([2, 'stale']);
    expect(readWal(walPath(dir)).records).toBe(0);
    return { root, dir };
  }

  it('the next retire completes the index (--dry-run says so and writes nothing), and retires nothing else', async () => {
    const { dir } = await killedAfterStep2();
    const before = snapshot(dir);
    const dry = walscope('retire', dir, '--seal', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('a retire stopped before its step 3): retiring now writes only the index');
    expect(snapshot(dir)).toEqual(before);
    const wal = fs.readFileSync(walPath(dir));
    const retired = walscope('retire', dir, '--seal', '--yes');
    expect(retired.code, retired.stderr).toBe(0);
    expect(retired.stdout).toMatch(/completed the index under lease epoch \d+/);
    // Re-read from the disk: the index covers both members, the live WAL is the same successor.
    const archive = readArchive(dir, { trust_index: true });
    expect([archive.members.length, archive.index]).toEqual([2, 'valid']);
    expect(fs.readFileSync(walPath(dir))).toEqual(wal);
    const again = walscope('retire', dir, '--seal', '--yes');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('nothing_to_retire');
  });

  it('the next ordinary writer under the lease completes it before it appends', async () => {
    const { root, dir } = await killedAfterStep2();
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 3 });
    session.close();
    const archive = readArchive(dir);
    expect([archive.members.length, archive.index]).toEqual([2, 'valid']);
  });
});

describe('retire records its operator_action as resume|cancel|seal do', () => {
  it('--reason alone records the OS user; --operator without --reason is refused and writes nothing', () => {
    const dir = writeSession();
    const before = snapshot(dir);
    const nameless = walscope('retire', dir, '--seal', '--yes', '--operator', 'ann');
    expect(nameless.code).toBe(2);
    expect(nameless.stderr).toContain('--operator needs --reason');
    expect(snapshot(dir)).toEqual(before);
    const retired = walscope('retire', dir, '--seal', '--yes', '--reason', 'month end');
    expect(retired.code, retired.stderr).toBe(0);
    const sealed = JSON.parse(walscope('lineages', dir, '--json').stdout).lineages[1];
    const frames = walscope('dump', `${dir}@${sealed.wal_id}`, '--json').stdout.trim().split('\n').map((line) => JSON.parse(line));
    const audit = frames.find((frame: { type: string }) => frame.type === 'operator_action');
    expect(audit.payload).toMatchObject({ action: 'retire', operator: os.userInfo().username, reason: 'month end', via: 'cli' });
  });
});

describe('archives written by an independent §11 encoder', () => {
  it('verify reports the archive with exactly the contract fields; a stale index alone is usable', () => {
    const { dir } = handSession({ index: 'stale' });
    const { code, stdout } = walscope('verify', dir, '--json');
    expect(code).toBe(0);
    const archive = (JSON.parse(stdout) as VerifyReport).archive!;
    expect(Object.keys(archive)).toEqual(['index', 'members', 'torn_tail', 'error', 'damaged_members']);
    expect(archive).toEqual({ index: 'stale', members: 2, torn_tail: null, error: null, damaged_members: [] });
  });

  it('lineages lists live, deleted and sealed newest first, and proves absence', () => {
    const { dir, ids } = handSession({ index: 'none' });
    const { code, stdout } = walscope('lineages', dir, '--json');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.lineages.map((entry: { wal_id: string; where: string }) => [entry.wal_id, entry.where])).toEqual([[ids.C, 'live'], [ids.B, 'deleted'], [ids.A, 'sealed']]);
    expect(json.problems).toEqual([]);
    expect(JSON.parse(walscope('lineages', dir, '--find', '0'.repeat(32), '--json').stdout)).toEqual({ found: false, proven: true });
  });

  it('a damaged header with a valid one after it: verify refuses, --find never says "not found"', () => {
    const { dir } = handSession({ flip_at: 20 });
    const verify = walscope('verify', dir, '--json');
    expect(verify.code).toBe(1);
    expect((JSON.parse(verify.stdout) as VerifyReport).archive!.error).toMatchObject({ kind: 'archive_corruption', offset: 0 });
    const find = walscope('lineages', dir, '--find', '0'.repeat(32), '--json');
    expect(find.code).toBe(1);
    expect(JSON.parse(find.stdout)).toEqual({ error: expect.objectContaining({ kind: 'archive_corruption', offset: 0 }) });
    expect(find.stderr).toContain('archive corruption at offset 0');
    const lineages = walscope('lineages', dir, '--json');
    expect(lineages.code).toBe(1);
    expect(JSON.parse(lineages.stdout).problems[0]).toMatchObject({ kind: 'archive_corruption', offset: 0 });
  });

  it.each([
    ['2^53 - 1', Number.MAX_SAFE_INTEGER],
    ['4 GiB', 2 ** 32],
  ])('a digest-valid header claiming %s of content with a valid member after it is corruption, not the torn tail: nothing is cut', (_name, content_bytes) => {
    // X claims content past the end of the file; A, sealed and whole, follows it; the live C names A as parent.
    const [X, A, C] = [walId(0xee), walId(0xa1), walId(0xc3)];
    const hostile = memberBytes(sealedMember({ wal_id: X, records: 1 }), content_bytes).subarray(0, -handWal({ wal_id: X, records: 1 }).length);
    const archive = Buffer.concat([hostile, memberBytes(sealedMember({ wal_id: A, records: 2 }))]);
    const root = tempDir();
    const dir = sessionDir(root, 's1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(walPath(dir), handWal({ wal_id: C, parent: A, records: 1 }));
    fs.writeFileSync(path.join(dir, 'archive'), archive);
    const before = snapshot(dir);
    const verify = walscope('verify', dir, '--json');
    expect(verify.code).toBe(1);
    const error = (JSON.parse(verify.stdout) as VerifyReport).archive!.error;
    expect(error).toMatchObject({ kind: 'archive_corruption', offset: 0 });
    expect(error!.message).toContain(`a digest-valid member header follows at offset ${hostile.length}`);
    const lineages = walscope('lineages', dir, '--json');
    expect(lineages.code).toBe(1);
    const problems = JSON.parse(lineages.stdout).problems as { kind: string }[];
    expect(problems.map((problem) => problem.kind)).toEqual(['archive_corruption']);
    const find = walscope('lineages', dir, '--find', A.toString('hex'), '--json');
    expect(find.code).toBe(1);
    expect(JSON.parse(find.stdout)).toEqual({ error: expect.objectContaining({ kind: 'archive_corruption', offset: 0 }) });
    const retire = walscope('retire', dir, '--seal', '--yes');
    expect(retire.code).toBe(1);
    expect(retire.stderr).toContain('archive_refused');
    // Re-read from the disk: the archive, the live WAL and the folder are as they were, no side copy made.
    expect(snapshot(dir)).toEqual(before);
  });

  it('a digest-valid header whose content runs past the end with nothing valid after it is still the torn tail', () => {
    const { dir } = handSession({ index: 'none' });
    const cut = memberBytes(sealedMember({ wal_id: walId(0xdd), records: 40 }));
    fs.appendFileSync(path.join(dir, 'archive'), cut.subarray(0, cut.length - 100));
    const verify = walscope('verify', dir, '--json');
    expect(verify.code).toBe(0);
    expect((JSON.parse(verify.stdout) as VerifyReport).archive).toMatchObject({ error: null, members: 2, torn_tail: { bytes: cut.length - 100 } });
  });

  it('verify of a session with no archive says archive: null', () => {
    const dir = writeSession();
    expect((JSON.parse(walscope('verify', dir, '--json').stdout) as VerifyReport).archive).toBeNull();
  });

  it('serve gets a sealed lineage as a verified read-only copy outside the session, removed on dispose', () => {
    const { dir, ids } = handSession();
    const before = snapshot(dir);
    const copy = sealedLineageCopy(`${dir}@${ids.A}`);
    if (copy === null || typeof copy === 'string') throw new Error(String(copy));
    expect(path.dirname(path.dirname(copy.file))).not.toBe(path.dirname(dir));
    expect(fs.readFileSync(copy.file)).toEqual(handWal({ wal_id: walId(0xa1), records: 2 }));
    expect(fs.statSync(copy.file).mode & 0o222).toBe(0);
    copy.dispose();
    expect(fs.existsSync(copy.file)).toBe(false);
    expect(sealedLineageCopy(`${dir}@${ids.B}`)).toMatch(/not a sealed member/);
    expect(sealedLineageCopy(dir)).toBeNull();
    expect(snapshot(dir)).toEqual(before);
    const damaged = handSession({ flip_at: 20 });
    expect(sealedLineageCopy(`${damaged.dir}@${damaged.ids.A}`)).toMatch(/archive corruption at offset 0/);
  });
});

// `walscope verify` and `walscope dump` as a user runs them: real child processes on engine-written WALs,
// their damaged copies and a whole state root; and proof that neither writes, creates or locks anything.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../src-shared/wal.js';
import { formatBytes } from '../../src-shared/format.js';
import { encodeCbor } from '../../src-main/engine/cbor.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { FOLD_RECORD_ITEMS_MAX } from '../../src-main/replay/fold.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { leasePath, sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { useTempDirs } from '../helpers/temp.js';
import { lineageBody, rawFrame, recordBody } from '../helpers/wal-bytes.js';

const tempDir = useTempDirs('walscope-cli-verify-');
const REPO = path.resolve(import.meta.dirname, '../..');

function walscope(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts'), ...args], {
    cwd: REPO,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A state root with one session of `steps` finished turns, written by the engine. */
function writeRoot(steps = 5, session_id = 's1', root = tempDir()): string {
  fs.mkdirSync(root, { recursive: true });
  const session = openSessionForWrite(root, session_id, { writer_name: 'test' });
  session.writer.append('run_started', { run_id: 'r1', session: session_id, config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
  for (let step = 1; step <= steps; step++) {
    session.writer.append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `step ${step} `.repeat(20) }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    session.writer.append('turn_finished', { step_id: step });
    session.writer.barrier();
  }
  session.writer.append('run_cancel_requested', { run_id: 'r1', at: 'now' });
  session.close();
  return root;
}

function snapshot(dir: string): Record<string, { bytes: string; mtime_ms: number }> {
  const files: Record<string, { bytes: string; mtime_ms: number }> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const file = path.join(dir, entry);
    const stat = fs.statSync(file);
    files[entry] = { bytes: stat.isFile() ? fs.readFileSync(file).toString('hex') : 'dir', mtime_ms: stat.mtimeMs };
  }
  return files;
}

describe('walscope verify', () => {
  it('an engine-written WAL is OK', () => {
    const wal = walPath(sessionDir(writeRoot(), 's1'));
    const { code, stdout } = walscope('verify', wal, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as VerifyReport;
    expect(report).toMatchObject({ session: 's1', records: 12, last_seq: 12, frames: 13, torn_tail: null, error: null, features: ['run-cancel-at/v1'] });
    expect(Object.keys(report)).toEqual(['path', 'session', 'wal_id', 'frames', 'records', 'last_seq', 'bytes', 'valid_bytes', 'digest_algorithms', 'features', 'torn_tail', 'in_progress_tail', 'error', 'archive', 'run', 'attention']);
    expect(walscope('verify', wal).stdout).toMatch(/^OK\s+session s1 \(/);
  });

  it('a truncated copy is usable with its torn tail reported', () => {
    const wal = walPath(sessionDir(writeRoot(), 's1'));
    const copy = path.join(tempDir(), 'export.wal');
    const bytes = fs.readFileSync(wal);
    fs.writeFileSync(copy, bytes.subarray(0, bytes.length - 7));
    const { code, stdout } = walscope('verify', copy, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as VerifyReport;
    expect(report.error).toBeNull();
    expect(report.torn_tail).toMatchObject({ offset: report.valid_bytes, bytes: bytes.length - 7 - report.valid_bytes, reason: 'past_end' });
    expect(report.last_seq).toBe(11);
    expect(walscope('verify', copy).stdout).toContain('torn tail');
  });

  it('a copy with a flipped byte in its middle is refused as non-tail corruption at that frame', () => {
    const wal = walPath(sessionDir(writeRoot(), 's1'));
    const copy = path.join(tempDir(), 'export.wal');
    const bytes = fs.readFileSync(wal);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle]! ^= 0x01;
    fs.writeFileSync(copy, bytes);
    const { code, stdout } = walscope('verify', copy, '--json');
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as VerifyReport;
    expect(report.error).toMatchObject({ kind: 'non_tail_corruption' });
    expect(report.error!.offset).toBeLessThanOrEqual(middle);
    expect(report.error!.offset).toBe(report.valid_bytes);
    const human = walscope('verify', copy);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`damaged: non-tail corruption at offset ${report.error!.offset}`);
    // An export gets support's advice, never a state root's (nor a live writer's).
    expect(human.stdout).toContain('what to do: ask the customer for the file again with its size and SHA-256');
    expect(human.stdout).not.toContain('restore the WAL from a good copy');
    // Said once: no doubled prefix, no clause repeated from the refusal the scan found after the damage.
    expect(human.stdout.split('nothing from this offset on is used').length - 1).toBe(1);
    expect(human.stdout).not.toMatch(/non tail corruption: non-tail/);
    // Issue 28: the figure counts the intact prefix, the bytes before the damaged frame, not the whole file.
    const prefix = `${report.records} records (last seq ${report.last_seq}), ${report.frames} frames, ${formatBytes(report.valid_bytes)} of the file's ${formatBytes(bytes.length)} (up to offset ${report.valid_bytes})`;
    expect(report.valid_bytes).toBeLessThan(bytes.length);
    expect(human.stdout).toContain(`intact before it: ${prefix}\n`);
  });

  it('an intact WAL holding a record of more CBOR items than the fold builds is intact: the bound is named where the run would be', () => {
    // A run_started whose config is an array of empty maps: one byte each, ~60 bytes each once built.
    const count = FOLD_RECORD_ITEMS_MAX + 1_000;
    const config = Buffer.concat([Buffer.from([0x9a, count >>> 24, (count >>> 16) & 0xff, (count >>> 8) & 0xff, count & 0xff]), Buffer.alloc(count, 0xa0)]);
    const body = encodeCbor([2, 1, 1, 'run_started', [], { run_id: 'r1', session: 's', config: 'PLACEHOLDER', input: [] }]);
    const at = body.indexOf('kPLACEHOLDER');
    const hostile = rawFrame(Buffer.concat([body.subarray(0, at), config, body.subarray(at + 'kPLACEHOLDER'.length)]));
    const wal = path.join(tempDir(), 'wide.wal');
    fs.writeFileSync(wal, Buffer.concat([encodeFrame(lineageBody()), hostile, encodeFrame(recordBody(2, 'turn_finished', { step_id: 1 }))]));
    const json = walscope('verify', wal, '--json');
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as VerifyReport & { run: unknown };
    expect(report).toMatchObject({ error: null, torn_tail: null, records: 2, last_seq: 2, valid_bytes: fs.statSync(wal).size, run: null });
    const human = walscope('verify', wal);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^OK /);
    expect(human.stdout).toContain(`status: not folded (too large: record run_started at offset ${encodeFrame(lineageBody()).length} (seq 1) holds more CBOR items than the 4,194,304 items walscope builds for one record`);
    const replay = walscope('replay', wal, '--json');
    expect(JSON.parse(replay.stdout).integrity.error).toMatchObject({ kind: 'too_large', seq: 1 });
  });

  it('a tail whose candidate headers claim more than the scan hashes is refused as unproven, and --full-scan proves it torn', () => {
    const prefix = Buffer.concat([encodeFrame(lineageBody()), encodeFrame(recordBody(1, 'turn_finished', { step_id: 1 }))]);
    // 100 overlapping headers, each claiming about 1 MiB to the end of the file: 100 MiB to hash in all.
    const region = Buffer.alloc(1_048_576 + 100 * 64, 0x5a);
    for (let index = 0; index < 100; index++) {
      const header = Buffer.from([0x42, 0x57, 0x41, 0x4c, 1, 1, 0, 0, 0, 0, 0, 0]);
      header.writeUInt32LE(region.length - index * 64 - 44, 8);
      header.copy(region, index * 64);
    }
    const wal = path.join(tempDir(), 'hostile.wal');
    fs.writeFileSync(wal, Buffer.concat([prefix, region]));
    const bounded = walscope('verify', wal, '--json');
    expect(bounded.code).toBe(1);
    expect((JSON.parse(bounded.stdout) as VerifyReport).error).toMatchObject({ kind: 'tail_scan_bound', offset: prefix.length });
    const human = walscope('verify', wal);
    expect(human.stdout).toContain('needs a full scan: a damaged frame at offset');
    expect(human.stdout).toContain('what to do: run walscope verify --full-scan on it to check every candidate frame');
    const full = walscope('verify', wal, '--full-scan', '--json');
    expect(full.code, full.stderr).toBe(0);
    expect((JSON.parse(full.stdout) as VerifyReport).torn_tail).toMatchObject({ offset: prefix.length, bytes: region.length, reason: 'digest_mismatch' });
  });

  it('a state root gives an array, and exit 1 when any session is refused', () => {
    const root = writeRoot(2, 'good');
    writeRoot(2, 'bad', root);
    const bad = walPath(sessionDir(root, 'bad'));
    const bytes = fs.readFileSync(bad);
    bytes[60]! ^= 0xff;
    fs.writeFileSync(bad, bytes);
    const { code, stdout } = walscope('verify', root, '--json');
    expect(code).toBe(1);
    const reports = JSON.parse(stdout) as VerifyReport[];
    expect(reports.map((report) => [report.session, report.error?.kind ?? null])).toEqual([['bad', 'non_tail_corruption'], ['good', null]]);
    expect(walscope('verify', root).stdout).toContain('2 sessions: 1 usable (0 with a torn tail), 1 refused');
  });

  it("a floor naming an unknown feature refuses the root's sessions as NewerWriter", () => {
    const root = writeRoot(1);
    fs.writeFileSync(path.join(root, 'wal-feature-floor'), 'quantum-tools/v1\nrun-cancel-at/v1\n');
    const { code, stdout } = walscope('verify', root, '--json');
    expect(code).toBe(1);
    expect((JSON.parse(stdout) as VerifyReport[])[0]!.error).toMatchObject({ kind: 'newer_writer', features: ['quantum-tools/v1'] });
  });

  it('usage errors exit 2', () => {
    expect(walscope('verify').code).toBe(2);
    expect(walscope('verify', path.join(tempDir(), 'missing')).code).toBe(2);
    expect(walscope('verify', 'a', 'b').code).toBe(2);
    expect(walscope('dump', tempDir(), '--from', 'x').code).toBe(2);
    expect(walscope('nonsense').code).toBe(2);
  });
});

describe('walscope dump', () => {
  it('prints one line per frame, and decoded frames as JSON lines', () => {
    const folder = sessionDir(writeRoot(2), 's1');
    const text = walscope('dump', folder);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(1 + 1 + 1 + 4 + 1); // heading, lineage, run start, 2 × (step, turn), cancel
    expect(lines[1]).toMatch(/^\s+0\s+0\s+2\s+1\s+lineage \d+B\s+wal_id=0x/);
    expect(lines.at(-1)).toMatch(/run_cancel_requested \[run-cancel-at\/v1\] \d+B\s+run_id="r1" at="now"/);
    const json = walscope('dump', folder, '--json').stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(json.map((frame) => frame.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(json[0].payload.wal_id).toMatch(/^[0-9a-f]{32}$/);
    expect(json[6]).toMatchObject({ ver: 3, type: 'run_cancel_requested', features: ['run-cancel-at/v1'], payload: { run_id: 'r1', at: 'now' } });
  });

  it('filters by --from and --type', () => {
    const folder = sessionDir(writeRoot(3), 's1');
    const json = walscope('dump', folder, '--json', '--from', '3', '--type', 'turn_finished').stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(json.map((frame) => [frame.seq, frame.payload.step_id])).toEqual([[3, 1], [5, 2], [7, 3]]);
  });

  it('escapes control characters in untrusted text instead of sending them to the terminal', () => {
    const root = tempDir();
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('queued', { submission_id: 'x', request: {}, title: 'evil\u001b[2J\u0007title' });
    session.close();
    const { stdout } = walscope('dump', sessionDir(root, 's1'));
    expect(stdout).not.toContain('\u001b');
    expect(stdout).toContain('\\u001b[2J');
  });

  it('prints the frames before a refusal, then the refusal, and exits 1', () => {
    const wal = walPath(sessionDir(writeRoot(3), 's1'));
    const bytes = fs.readFileSync(wal);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    fs.writeFileSync(wal, bytes);
    const { code, stderr, stdout } = walscope('dump', wal);
    expect(code).toBe(1);
    expect(stderr).toContain('REFUSED: non_tail_corruption');
    expect(stdout.trim().split('\n').length).toBeGreaterThan(2);
  });
});

describe('read-only by construction', () => {
  it('verify, dump and their JSON forms change no byte and no mtime, and create no lease or floor', () => {
    const root = writeRoot(3);
    const dir = sessionDir(root, 's1');
    fs.rmSync(leasePath(dir));
    const before = snapshot(root);
    for (const args of [['verify', root], ['verify', root, '--json'], ['verify', dir], ['dump', dir], ['dump', walPath(dir), '--json']]) {
      expect(walscope(...args).code).toBe(0);
    }
    expect(snapshot(root)).toEqual(before);
    expect(fs.existsSync(leasePath(dir))).toBe(false);
  });

  it('a torn export stays torn: verify reports the tail but never truncates it', () => {
    const copy = path.join(tempDir(), 'export.wal');
    const bytes = fs.readFileSync(walPath(sessionDir(writeRoot(), 's1')));
    fs.writeFileSync(copy, Buffer.concat([bytes, Buffer.alloc(100)]));
    const before = snapshot(path.dirname(copy));
    expect(walscope('verify', copy).code).toBe(0);
    expect(snapshot(path.dirname(copy))).toEqual(before);
  });
});

describe('terminal safety', () => {
  const HOSTILE = 'call\u001b]0;PWNED\u0007\u001b[31mRED\u202e\r';

  /** A crashed batch whose call id carries terminal escape sequences. */
  function hostileSession(): string {
    const root = tempDir();
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    const use = { type: 'tool_use', id: HOSTILE, name: 'bash\u001b[2J', input: {} };
    session.writer.append('run_started', { run_id: 'r\u001b[1m', session: 's1', config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
    session.writer.append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [use] }, usage: {} });
    session.writer.append('tool_batch_started', { batch_id: 'b\u0085', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: HOSTILE, name: 'bash', plan: 'dispatch' }] });
    session.writer.append('tool_dispatch_intent', { batch_id: 'b\u0085', tool_call_id: HOSTILE, args: {} });
    session.close();
    return sessionDir(root, 's1');
  }

  it('no command prints a control or bidi character from WAL content raw', () => {
    const folder = hostileSession();
    for (const args of [['replay', folder], ['seal', folder, '--dry-run'], ['resume', folder, '--dry-run'], ['dump', folder], ['verify', folder]]) {
      const { stdout, stderr } = walscope(...args);
      // eslint-disable-next-line no-control-regex -- the control characters are what the test looks for
      expect(stdout + stderr, args.join(' ')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    }
    expect(walscope('replay', folder).stdout).toContain('call\\u001b]0;PWNED');
  });

  it('JSON output stays exact: the escapes are JSON escapes of the same characters', () => {
    const folder = hostileSession();
    const frames = walscope('dump', folder, '--json').stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(frames[3].payload.planned_calls[0].tool_call_id).toBe(HOSTILE);
    expect(frames[3].payload.batch_id).toBe('b\u0085');
    const replay = JSON.parse(walscope('replay', folder, '--json').stdout);
    expect(replay.episodes[0].batches.at(0).calls[0].tool_call_id).toBe(HOSTILE);
  });
});

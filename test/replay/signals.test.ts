// The one status word (wal-format §10 "Session status") and the attention queue ("Needs attention") as `replay`,
// `verify --json` and the app's services say them, over the real demo root and copies of its WALs: every ending
// under its own name (only `completed` is the good one), a torn tail beside the status and never as it, a WAL that
// is cut or damaged never "running", a file that is not a WAL never a torn tail, and an unknown outcome that its
// owner acknowledged is "finished, checked".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { STATUS_TONE, statusLabel } from '../../src-shared/status.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { DEMO_SESSION_IDS, DEMO_SESSIONS } from '../../src-main/demo/sessions.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { acknowledgeCall } from '../../src-main/recovery/acknowledge.js';
import { resumeSession, sealSession } from '../../src-main/recovery/actions.js';
import { retireLineage } from '../../src-main/engine/retire.js';
import { episodeJson } from '../../src-main/replay/report.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { episodeWord } from '../../src-main/replay/signals.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from '../app/wal-fixture.js';

const tempDir = useTempDirs('walscope-signals-');
const REPO = path.resolve(import.meta.dirname, '../..');

/** One demo root for the file (building it is the slow part); the tests that write copy a session first. */
function demoRoot(): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-signals-root-'));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
  const root = path.join(work, 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  return root;
}

const replayOf = (target: string) => replayTarget(resolveTargets(target)[0]!);
const runOf = (target: string) => replayOf(target).run;

function walscope(...args: string[]) {
  const result = spawnSync(process.execPath, ['bin/walscope.js', ...args], { cwd: REPO, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A root holding a copy of the demo session `id`, to write to. */
function copyOf(root: string, id: string): string {
  const copy = path.join(tempDir(), 'root');
  fs.cpSync(sessionDir(root, id), sessionDir(copy, id), { recursive: true });
  return copy;
}

describe('the session status', () => {
  const root = demoRoot();

  it('every demo session reads under its own word; only a completed run is the good one', () => {
    for (const id of DEMO_SESSION_IDS) {
      // The demo's own test holds the archive's refusal (verify's alone); replay reads the live WAL.
      if (id === 'history-damaged-archive') continue;
      expect({ id, status: runOf(sessionDir(root, id)).status }).toEqual({ id, status: DEMO_SESSIONS[id].status });
    }
    const good = Object.entries(STATUS_TONE).filter(([, tone]) => tone === 'good').map(([status]) => status);
    expect(good).toEqual(['completed']);
  });

  it('a run that ended in an error is failed, naming its error kind and message', () => {
    const run = runOf(sessionDir(root, 'compaction-ceiling'));
    expect(run.status).toBe('failed');
    expect(run.finish).toMatchObject({ reason: 'error', error_kind: expect.any(String) });
    expect(run.detail).toContain(run.finish!.error_kind!);
    expect(run.attention).toBeNull();
  });

  it('a reason this build has no word for is "ended", by its own name', () => {
    const dir = tempDir();
    withSession(dir, 's', (append) => {
      append('run_started', { run_id: 'r1', session: 's', config: {}, input: [] });
      append('run_finished', { reason: 'budget_exhausted' });
    });
    const run = runOf(sessionDir(dir, 's'));
    expect(run.status).toBe('ended');
    expect(statusLabel(run.status, run.finish!.reason)).toBe('ended: budget_exhausted');
    expect(run.detail).toContain('"budget_exhausted"');
  });

  it('a torn tail is beside the status, never it: the plan decides, and the cut is the plan\'s', () => {
    const replay = replayOf(sessionDir(root, 'torn-tail'));
    expect(replay.read.torn_tail).not.toBeNull();
    expect(replay.run.status).toBe('needs_operator');
    expect(replay.run.attention).toMatchObject({ kind: 'finalize' });
    expect(replay.run.open_end).toBe('cut');
    expect(replay.run.last_durable).toContain('natural end');
    expect(episodeWord(replay.fold.episodes[0]!, replay.run, 1)).toBe('cut short');
  });

  it('non-tail damage is damaged, with its offset, in the attention queue; the call without a result is unconfirmed', () => {
    const run = runOf(sessionDir(root, 'corrupt-middle'));
    expect(run.status).toBe('damaged');
    expect(run.detail).toMatch(/non-tail corruption at offset \d+/);
    expect(run.attention).toMatchObject({ kind: 'damaged', message: expect.stringContaining('good copy') });
    expect(run.unconfirmed.map((call) => call.tool_call_id)).toEqual(['c1']);
  });

  it('a newer writer needs a newer walscope, never "damaged", and waits on nobody here', () => {
    const run = runOf(sessionDir(root, 'newer-writer'));
    expect(run.status).toBe('newer_writer');
    expect(statusLabel(run.status)).toBe('needs a newer walscope');
    expect(run.attention).toBeNull();
  });

  it('the attention queue holds what waits on a person: a plan, a held call, an unchecked unknown outcome, damage', () => {
    const kinds = Object.fromEntries(DEMO_SESSION_IDS.filter((id) => id !== 'history-damaged-archive').map((id) => [id, runOf(sessionDir(root, id)).attention?.kind ?? null]));
    expect(kinds).toMatchObject({
      'natural-end': 'finalize',
      indeterminate: 'close_out',
      'torn-tail': 'finalize',
      'held-sequential': 'wait_held',
      'parallel-unknown': 'finished_unconfirmed',
      'corrupt-middle': 'damaged',
      finished: null,
      checked: null,
      cancelled: null,
      'newer-writer': null,
      'not-a-wal': null,
      live: null,
    });
  });

  it('an export speaks as a copy: cut in transfer, or open in this copy, with support\'s advice', () => {
    const exports = tempDir();
    const cut = path.join(exports, 'cut.wal');
    const whole = fs.readFileSync(walPath(sessionDir(root, 'finished')));
    fs.writeFileSync(cut, whole.subarray(0, whole.length - 7));
    const cut_replay = replayOf(cut);
    expect(cut_replay.read.torn_tail).not.toBeNull();
    expect(cut_replay.run.open_end).toBe('cut');
    expect(episodeWord(cut_replay.fold.episodes[0]!, cut_replay.run, 1)).toBe('cut short');

    const open = path.join(exports, 'open.wal');
    fs.copyFileSync(walPath(sessionDir(root, 'indeterminate')), open);
    const open_replay = replayOf(open);
    expect(open_replay.run.status).toBe('needs_operator');
    expect(open_replay.run.open_end).toBe('copy');
    expect(open_replay.run.last_durable).toMatch(/batch \S+ open/);
    expect(open_replay.run.attention!.message).toContain("customer's state root");
    expect(episodeWord(open_replay.fold.episodes[0]!, open_replay.run, 1)).toBe('open in this copy');
  });

  it('a session whose lease a live writer holds is running, and waits on nobody', () => {
    const copy = copyOf(root, 'indeterminate');
    const writer = openSessionForWrite(copy, 'indeterminate', { writer_name: 'signals-test' });
    try {
      const run = runOf(sessionDir(copy, 'indeterminate'));
      expect(run.status).toBe('running');
      expect(run.detail).toContain(`pid ${process.pid}`);
      expect(run.attention).toBeNull();
    } finally {
      writer.close();
    }
    expect(runOf(sessionDir(copy, 'indeterminate')).status).toBe('needs_operator');
  });

  it('an acknowledged unknown outcome makes the run finished, checked, naming the finding and who; replay is otherwise the same', () => {
    const copy = copyOf(root, 'parallel-unknown');
    const dir = sessionDir(copy, 'parallel-unknown');
    const before = replayOf(dir);
    expect(before.run.status).toBe('finished_unconfirmed');
    const audit = { operator: 'alice', reason: 'the card processor shows no charge', via: 'cli' as const };
    expect(acknowledgeCall(copy, 'parallel-unknown', { tool_call_id: 'u1', batch_id: null }, 'not_applied', audit)).toMatchObject({ kind: 'done' });
    const after = replayOf(dir);
    expect(after.run.status).toBe('finished_checked');
    expect(after.run.attention).toBeNull();
    expect(after.run.unconfirmed[0]!.acknowledged).toMatchObject({ finding: 'not_applied', operator: 'alice', os_user: os.userInfo().username, via: 'cli' });
    expect(after.run.detail).toContain('u1 (charge_card) not applied, by alice');
    // It changes no class, no plan and nothing replay renders.
    expect(after.fold.episodes.map(episodeJson)).toEqual(before.fold.episodes.map(episodeJson));
    expect(after.resume).toEqual(before.resume);
    // A later acknowledgement of the same call supersedes the earlier one.
    expect(acknowledgeCall(copy, 'parallel-unknown', { tool_call_id: 'u1', batch_id: 'r1.b1' }, 'applied', { ...audit, operator: 'bob' })).toMatchObject({ kind: 'done' });
    expect(replayOf(dir).run.unconfirmed[0]!.acknowledged).toMatchObject({ finding: 'applied', operator: 'bob' });
  });

  it('verify --json and replay --json carry the word as run.status, and verify gives attention per session', () => {
    const json = (...args: string[]) => JSON.parse(walscope(...args).stdout) as { run: { status: string }; attention: { kind: string } | null };
    expect(json('verify', sessionDir(root, 'parallel-unknown'), '--json')).toMatchObject({ run: { status: 'finished_unconfirmed' }, attention: { kind: 'finished_unconfirmed' } });
    expect(json('replay', sessionDir(root, 'cancelled'), '--json').run.status).toBe('cancelled');
    expect(json('verify', sessionDir(root, 'torn-tail'), '--json')).toMatchObject({ run: { status: 'needs_operator' }, attention: { kind: 'finalize' } });
    expect(json('verify', sessionDir(root, 'max-steps'), '--json')).toMatchObject({ run: { status: 'max_steps' }, attention: null });
    // The archive is verify's: the live WAL reads, the session is refused.
    expect(json('verify', sessionDir(root, 'history-damaged-archive'), '--json')).toMatchObject({ run: { status: 'damaged' }, attention: { kind: 'damaged' } });
    const every = JSON.parse(walscope('verify', root, '--json').stdout) as { session: string; run: { status: string } }[];
    expect(Object.fromEntries(every.map((report) => [report.session, report.run.status]))).toEqual(Object.fromEntries(DEMO_SESSION_IDS.map((id) => [id, DEMO_SESSIONS[id].status])));
  });

  it('a flipped byte in the middle is damaged, never running', () => {
    const flipped = path.join(tempDir(), 'flipped.wal');
    const bytes = Buffer.from(fs.readFileSync(walPath(sessionDir(root, 'finished'))));
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    fs.writeFileSync(flipped, bytes);
    const replay = replayOf(flipped);
    expect(replay.read.error).not.toBeNull();
    expect(replay.run.status).toBe('damaged');
  });
});

describe('not a WAL (wal-format §5 rule 0)', () => {
  const files = () => {
    const dir = tempDir();
    const write = (name: string, bytes: Uint8Array | string) => {
      fs.writeFileSync(path.join(dir, name), bytes);
      return path.join(dir, name);
    };
    return {
      text: write('notes.txt', 'hello, these are my notes about the run\n'),
      png: write('shot.png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')),
      empty: write('empty.wal', ''),
      zeros: write('zeros.wal', Buffer.alloc(100)),
      magic_prefix: write('cut.wal', Buffer.from('4257', 'hex')),
    };
  };

  it('verify refuses a text file or an image by name, quoting its first bytes, and exits 1', () => {
    const { text, png } = files();
    for (const file of [text, png]) {
      const result = walscope('verify', file, '--json');
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as { error: { kind: string; offset: number; message: string }; torn_tail: unknown; run: { status: string }; attention: unknown };
      expect(report).toMatchObject({ error: { kind: 'not_a_wal', offset: 0 }, torn_tail: null, run: { status: 'not_a_wal' }, attention: null });
      expect(report.error.message).toContain(fs.readFileSync(file).subarray(0, 4).toString('hex').match(/../g)!.join(' '));
    }
    expect(JSON.parse(walscope('verify', png, '--json').stdout).error.message).toContain('a PNG image');
    const human = walscope('verify', text);
    expect(human.stdout).toMatch(/^REFUSED {2}/);
    expect(human.stdout).toContain('not a WAL: the file is not a WAL');
    expect(human.stdout).not.toContain('torn tail');
  });

  it('an empty file, zeros, or the first bytes of the magic are no run yet, never "not a WAL"', () => {
    const { empty, zeros, magic_prefix } = files();
    for (const file of [empty, zeros, magic_prefix]) {
      const result = walscope('verify', file, '--json');
      expect({ file: path.basename(file), code: result.code }).toEqual({ file: path.basename(file), code: 0 });
      expect(JSON.parse(result.stdout)).toMatchObject({ error: null, run: { status: 'empty' } });
    }
    expect(JSON.parse(walscope('verify', zeros, '--json').stdout).torn_tail).toMatchObject({ offset: 0, bytes: 100 });
  });

  it('no recovery, acknowledgement or retire takes a session that is not a WAL for a torn tail: each refuses, writing nothing', () => {
    const root = path.join(tempDir(), 'root');
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    const dir = sessionDir(root, 'not-a-wal');
    const before = Object.fromEntries(fs.readdirSync(dir).map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]));
    const audit = { operator: 'ann', reason: 'trying every write', via: 'cli' as const };
    expect(resumeSession(root, 'not-a-wal', { audit })).toMatchObject({ kind: 'refused', message: expect.stringContaining('not_a_wal') });
    expect(sealSession(root, 'not-a-wal', { audit })).toMatchObject({ kind: 'refused' });
    expect(acknowledgeCall(root, 'not-a-wal', { tool_call_id: 'c1', batch_id: null }, 'applied', audit)).toMatchObject({ kind: 'refused' });
    expect(retireLineage(root, 'not-a-wal', { writer_name: 'test', reason: 'sealed', operator: audit })).toMatchObject({ kind: 'refused', code: 'wal_refused' });
    const after = Object.fromEntries(fs.readdirSync(dir).map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]));
    expect(after).toEqual(before);
    expect(walscope('verify', dir).code).toBe(1);
  });

  it('the support report says what the file looks like, never "cut in transfer"', () => {
    const { text } = files();
    const report = JSON.parse(walscope('report', text, '--json').stdout) as { integrity: { verdict: string; summary: string; lost: string; ask_customer: string } };
    expect(report.integrity.verdict).toBe('not_a_wal');
    expect(report.integrity.summary).toContain('looks like text');
    expect(report.integrity.ask_customer).toContain('sessions/<session id>/');
    expect(JSON.stringify(report.integrity)).not.toMatch(/cut in transfer/);
  });
});

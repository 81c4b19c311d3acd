// Issue 13, M1, M4 and L1: hostile entries in and around a state root. A `lease` or `wal` linked to a file
// elsewhere is refused and the file it points at is untouched (re-read); a FIFO as `wal`, `lease` or
// `wal-feature-floor` is refused at once by verify, replay and resume run as real child processes (a timeout
// proves they do not block); bad paths give one clear typed line, and one bad session never stops the others.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnsafeEntryError } from '../../src-main/engine/errors.js';
import { nodeFileIO, type OpenMode } from '../../src-main/engine/file-io.js';
import { resolveTargets, TargetError, verifyTarget } from '../../src-main/engine/inspect.js';
import { acquireLease } from '../../src-main/engine/lease.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { floorPath, leasePath, sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { resumeSession } from '../../src-main/recovery/actions.js';
import { useTempDirs } from '../helpers/temp.js';
import { SessionScript } from '../replay/session-script.js';

const tempDir = useTempDirs('walscope-hostile-paths-');
const REPO = path.resolve(import.meta.dirname, '../..');
const CHILD_TIMEOUT_MS = 60_000;

/** A state root whose sessions each hold a run with a dispatched, unanswered call: resume has records to write. */
function rootWithSessions(ids: string[], root = tempDir()): string {
  for (const id of ids) {
    SessionScript.write(
      root,
      (s) => {
        s.start('r1');
        s.step(1, [{ id: 'a', name: 'read_file' }]);
        s.batch('b1', 1, [{ id: 'a', name: 'read_file' }]);
        s.intent('b1', 'a');
      },
      id,
    );
  }
  return root;
}

/** `walscope …` as a user runs it, bounded by a timeout: a null status means it blocked. */
function walscope(args: string[], options: { uid?: number; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts'), ...args], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    env: { ...process.env, NO_COLOR: '1' },
    ...options,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, output: result.stdout + result.stderr };
}

function mkfifo(file: string): void {
  fs.rmSync(file, { force: true });
  const made = spawnSync('mkfifo', [file]);
  expect(made.status).toBe(0);
}

/** Runs `action`; returns the error it threw, or its value. */
function attempt<T>(action: () => T): T | Error {
  try {
    return action();
  } catch (error) {
    return error as Error;
  }
}

describe('M1: a lease or WAL linked out of the root is refused, and the linked file is untouched', () => {
  const OUTSIDE_TEXT = 'a file that is not walscope’s to touch\n'.repeat(40);

  it.each(['lease', 'wal'] as const)('a symlinked %s: open for writing and resume refuse, naming it; the target is byte for byte as it was', (name) => {
    const root = rootWithSessions(['s1']);
    const outside = path.join(tempDir(), 'precious.txt');
    fs.writeFileSync(outside, OUTSIDE_TEXT);
    const entry = name === 'lease' ? leasePath(sessionDir(root, 's1')) : walPath(sessionDir(root, 's1'));
    if (name === 'wal') fs.copyFileSync(entry, outside); // the link leads to a real WAL: a writer would append to it
    const before = fs.readFileSync(outside);
    fs.rmSync(entry);
    fs.symlinkSync(outside, entry);

    const opened = attempt(() => openSessionForWrite(root, 's1', { writer_name: 'test' }));
    expect(opened).toBeInstanceOf(UnsafeEntryError);
    expect((opened as UnsafeEntryError).path).toBe(entry);
    expect((opened as Error).message).toContain(`${entry} is a symbolic link, not a regular file`);
    // Resume has records to write here, so it must take the lease: refused, as a thrown UnsafeEntryError or a refusal.
    const resumed = attempt(() => resumeSession(root, 's1', { writer_name: 'test' }));
    if (resumed instanceof Error) expect(resumed).toBeInstanceOf(UnsafeEntryError);
    else expect(resumed).toMatchObject({ kind: 'refused', message: expect.stringContaining('is a symbolic link') });

    expect(fs.readFileSync(outside).equals(before)).toBe(true);
    expect(fs.lstatSync(entry).isSymbolicLink()).toBe(true);
  });

  it('the lease itself, taken directly (no check before), never writes through a link', () => {
    const dir = tempDir();
    const outside = path.join(tempDir(), 'precious.txt');
    fs.writeFileSync(outside, OUTSIDE_TEXT);
    fs.symlinkSync(outside, leasePath(dir));
    expect(() => acquireLease(dir, { writer_name: 'test', wal_max_fence: 0 })).toThrow(UnsafeEntryError);
    expect(fs.readFileSync(outside, 'utf8')).toBe(OUTSIDE_TEXT);
  });

  it.each<OpenMode>(['read_write_create', 'create_exclusive', 'write_truncate'])('every open for writing (%s) refuses a link, so a race after the check cannot write through one', (mode) => {
    const outside = path.join(tempDir(), 'precious.txt');
    fs.writeFileSync(outside, OUTSIDE_TEXT);
    const link = path.join(tempDir(), 'link');
    fs.symlinkSync(outside, link);
    expect(() => nodeFileIO.open(link, mode)).toThrow(mode === 'create_exclusive' ? /EEXIST|symbolic link/ : /is a symbolic link, not a regular file/);
    expect(fs.readFileSync(outside, 'utf8')).toBe(OUTSIDE_TEXT);
  });

  it('a session folder linked out of the root is refused before anything is created in it', () => {
    const root = rootWithSessions(['s1']);
    const elsewhere = tempDir();
    fs.symlinkSync(elsewhere, sessionDir(root, 's2'));
    expect(() => openSessionForWrite(root, 's2', { writer_name: 'test' })).toThrow(/sessions\/s2 is a symbolic link, not a folder/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});

describe('M4: a FIFO as wal, lease or wal-feature-floor is refused at once (child processes with a timeout)', () => {
  it('as wal: verify ROOT refuses that session naming the FIFO and verifies the others; replay and resume end', () => {
    const root = rootWithSessions(['s1', 's2']);
    const fifo = walPath(sessionDir(root, 's1'));
    mkfifo(fifo);

    const verify = walscope(['verify', root]);
    expect(verify.status).toBe(1);
    expect(verify.stdout).toMatch(/REFUSED\s+session s1 .*\n.*sessions\/s1\/wal is a FIFO \(named pipe\), not a regular file/);
    expect(verify.stdout).toMatch(/OK\s+session s2/);

    const replay = walscope(['replay', sessionDir(root, 's1')]);
    expect(replay.status).not.toBeNull();
    expect(replay.status).not.toBe(0);
    expect(replay.output).toContain('is a FIFO (named pipe), not a regular file');

    const resume = walscope(['resume', '--yes', '--reason', 'test', sessionDir(root, 's1')]);
    expect(resume.status, resume.output).not.toBeNull();
    // A typed refusal naming the FIFO, not an empty session's "nothing to resume".
    expect(resume.status, resume.output).toBe(1);
    expect(resume.output).toMatch(/refused \(io\).*sessions\/s1\/wal is a FIFO \(named pipe\), not a regular file/);
    expect(resume.output).not.toContain('nothing to resume');
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('as lease: resume refuses naming it and writes nothing; verify and replay, which never lock, still read the WAL', () => {
    const root = rootWithSessions(['s1']);
    const fifo = leasePath(sessionDir(root, 's1'));
    mkfifo(fifo);
    const wal = fs.readFileSync(walPath(sessionDir(root, 's1')));

    const resume = walscope(['resume', '--yes', '--reason', 'test', sessionDir(root, 's1')]);
    expect(resume.status, resume.output).not.toBeNull();
    expect(resume.status).not.toBe(0);
    expect(resume.output).toContain(`${fifo} is a FIFO (named pipe), not a regular file`);
    expect(fs.readFileSync(walPath(sessionDir(root, 's1'))).equals(wal)).toBe(true);
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);

    expect(walscope(['verify', root]).status).toBe(0);
    expect(walscope(['replay', sessionDir(root, 's1')]).status).toBe(0);
  });

  it('as wal-feature-floor: verify, replay and resume refuse naming it', () => {
    const root = rootWithSessions(['s1']);
    mkfifo(floorPath(root));
    const wal = fs.readFileSync(walPath(sessionDir(root, 's1')));
    for (const args of [['verify', root], ['replay', sessionDir(root, 's1')], ['resume', '--yes', '--reason', 'test', sessionDir(root, 's1')]]) {
      const run = walscope(args);
      expect(run.status, `${args[0]}: ${run.output}`).not.toBeNull();
      expect(run.status, args[0]).not.toBe(0);
      expect(run.output, args[0]).toContain('wal-feature-floor is a FIFO (named pipe), not a regular file');
    }
    expect(fs.readFileSync(walPath(sessionDir(root, 's1'))).equals(wal)).toBe(true);
  });
});

describe('L1: bad paths give one clear typed line; one bad session never stops the others', () => {
  function expectTargetError(target: string, cause: RegExp): void {
    const thrown = attempt(() => resolveTargets(target));
    expect(thrown).toBeInstanceOf(TargetError);
    expect((thrown as Error).message).toMatch(cause);
    expect((thrown as Error).message).not.toContain('\n');
    expect((thrown as Error).message.length).toBeLessThan(400);
  }

  it('a symlink loop, a path through a file, a 5,000-character path: TargetError naming the cause', () => {
    const dir = tempDir();
    fs.symlinkSync(path.join(dir, 'loop-b'), path.join(dir, 'loop-a'));
    fs.symlinkSync(path.join(dir, 'loop-a'), path.join(dir, 'loop-b'));
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    expectTargetError(path.join(dir, 'loop-a'), /symlink loop \(ELOOP\)/);
    expectTargetError(path.join(dir, 'file', 'wal'), /a part of the path is a file, not a folder \(ENOTDIR\)/);
    expectTargetError(path.join(dir, 'x'.repeat(5_000)), /too long \(ENAMETOOLONG\)/);
  });

  it('the CLI prints one line for each, with no stack', () => {
    const dir = tempDir();
    fs.symlinkSync(path.join(dir, 'loop'), path.join(dir, 'loop'));
    for (const target of [path.join(dir, 'loop'), path.join(dir, 'x'.repeat(5_000))]) {
      const run = walscope(['verify', target]);
      expect(run.status).toBe(2);
      const first = run.stderr.split('\n')[0]!;
      expect(first).toMatch(/^walscope verify: .*(symlink loop|too long)/);
      expect(first.length).toBeLessThan(400);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a looping symlink under sessions/: verify ROOT refuses that one session and verifies every other', () => {
    const root = rootWithSessions(['s1', 's3']);
    fs.symlinkSync(sessionDir(root, 's2'), sessionDir(root, 's2'));
    const reports = resolveTargets(root).map((target) => verifyTarget(target));
    expect(reports.map((report) => [report.session, report.error?.kind ?? 'ok'])).toEqual([['s1', 'ok'], ['s2', 'io'], ['s3', 'ok']]);
    expect(reports[1]!.error!.message).toMatch(/symlink loop \(ELOOP\)/);
    const run = walscope(['verify', root]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/OK\s+session s1[\s\S]*REFUSED\s+session s2[\s\S]*symlink loop[\s\S]*OK\s+session s3/);
  });

  it('an unreadable folder (the CLI run as an unprivileged user): one line for the folder; in a root, that session alone is refused', () => {
    const root = rootWithSessions(['s1', 's2']);
    fs.chmodSync(path.dirname(root), 0o755);
    for (const entry of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) fs.chmodSync(path.join(root, entry), fs.statSync(path.join(root, entry)).isDirectory() ? 0o755 : 0o644);
    fs.chmodSync(root, 0o755);
    fs.chmodSync(sessionDir(root, 's1'), 0o000);
    // The unprivileged child needs a temporary folder of its own (tsx caches there).
    const childTemp = tempDir();
    fs.chmodSync(childTemp, 0o777);
    const asNobody = { uid: 65_534, env: { ...process.env, NO_COLOR: '1', TMPDIR: childTemp } };
    const folder = walscope(['verify', sessionDir(root, 's1')], asNobody);
    expect(folder.status, folder.output).toBe(2);
    expect(folder.stderr.split('\n')[0]).toMatch(/^walscope verify: .*sessions\/s1: permission denied \(EACCES\)$/);
    const whole = walscope(['verify', root], asNobody);
    expect(whole.status, whole.output).toBe(1);
    expect(whole.stdout).toMatch(/REFUSED\s+session s1[\s\S]*permission denied[\s\S]*OK\s+session s2/);
  });
});

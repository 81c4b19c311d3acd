// A FileIO over the real one that records every call and fails the ones a test programs: the Nth write, a
// short write (a prefix reaches the file, then the disk is full), an fsync/fdatasync, a directory sync, a
// rename, or runs a hook just before a call (to SIGKILL a child at an exact point).
import path from 'node:path';
import { nodeFileIO, type FileIO, type OpenMode } from '../../src-main/engine/file-io.js';

export type IoOp = keyof FileIO;

export interface Effect {
  op: IoOp;
  /** The file or folder the call touched (an fd is mapped back to the path it was opened with). */
  path: string | null;
  mode?: OpenMode;
  position?: number;
  length?: number;
  to?: string;
  /** Set when the call failed, injected or real. */
  error?: string;
}

export interface Match {
  /** Exact (resolved) path, or a pattern tested against it. Absent: any path. */
  path?: string | RegExp;
  /** 1-based count among the calls this rule matches. Default 1. */
  nth?: number;
}

type Action = { kind: 'error'; code: string } | { kind: 'short'; keep_bytes: number } | { kind: 'hook'; run: () => void };

type Rule = Action & { op: IoOp; match: Match; seen: number };

export class FaultyIO {
  readonly effects: Effect[] = [];
  readonly io: FileIO;
  private readonly rules: Rule[] = [];
  private readonly fd_paths = new Map<number, string>();
  private readonly disk_full = new Set<string>();

  constructor(private readonly base: FileIO = nodeFileIO) {
    this.io = this.build();
  }

  /** The matching call throws an Error with `code` (EIO by default) and does nothing. */
  fail(op: IoOp, match: Match = {}, code = 'EIO'): this {
    return this.add(op, match, { kind: 'error', code });
  }

  /** The matching write puts only `keep_bytes` on disk and returns that; later writes of the file get ENOSPC. */
  shortWrite(keep_bytes: number, match: Match = {}): this {
    return this.add('write', match, { kind: 'short', keep_bytes });
  }

  /** Runs `hook` just before the matching call reaches the disk. */
  before(op: IoOp, run: () => void, match: Match = {}): this {
    return this.add(op, match, { kind: 'hook', run });
  }

  /** Effects recorded from `from` on that changed something or forced it to disk (reads and stats left out). */
  mutations(from = 0): Effect[] {
    const mutating: ReadonlySet<IoOp> = new Set<IoOp>(['open', 'write', 'fsync', 'fdatasync', 'ftruncate', 'mkdir', 'rename', 'fsyncDirectory']);
    return this.effects.slice(from).filter((effect) => mutating.has(effect.op) && (effect.op !== 'open' || effect.mode !== 'read'));
  }

  private add(op: IoOp, match: Match, action: Action): this {
    this.rules.push({ op, match, seen: 0, ...action });
    return this;
  }

  private build(): FileIO {
    const call = <T>(effect: Effect, run: () => T, short?: (keep_bytes: number) => number): T => this.call(effect, run, short);
    const pathOf = (fd: number): string | null => this.fd_paths.get(fd) ?? null;
    const base = this.base;
    return {
      open: (file, mode) => {
        const fd = call({ op: 'open', path: path.resolve(file), mode }, () => base.open(file, mode));
        this.fd_paths.set(fd, path.resolve(file));
        return fd;
      },
      close: (fd) => {
        call({ op: 'close', path: pathOf(fd) }, () => base.close(fd));
        this.fd_paths.delete(fd);
      },
      read: (fd, buffer, offset, length, position) =>
        call({ op: 'read', path: pathOf(fd), position, length }, () => base.read(fd, buffer, offset, length, position)),
      write: (fd, buffer, offset, length, position) =>
        call({ op: 'write', path: pathOf(fd), position, length }, () => base.write(fd, buffer, offset, length, position), (keep_bytes: number) =>
          base.write(fd, buffer, offset, Math.min(keep_bytes, length), position),
        ),
      fsync: (fd) => call({ op: 'fsync', path: pathOf(fd) }, () => base.fsync(fd)),
      fdatasync: (fd) => call({ op: 'fdatasync', path: pathOf(fd) }, () => base.fdatasync(fd)),
      ftruncate: (fd, size_bytes) => call({ op: 'ftruncate', path: pathOf(fd), length: size_bytes }, () => base.ftruncate(fd, size_bytes)),
      fstat: (fd) => call({ op: 'fstat', path: pathOf(fd) }, () => base.fstat(fd)),
      stat: (file) => call({ op: 'stat', path: path.resolve(file) }, () => base.stat(file)),
      mkdir: (dir) => call({ op: 'mkdir', path: path.resolve(dir) }, () => base.mkdir(dir)),
      readdir: (dir) => call({ op: 'readdir', path: path.resolve(dir) }, () => base.readdir(dir)),
      rename: (from, to) => call({ op: 'rename', path: path.resolve(from), to: path.resolve(to) }, () => base.rename(from, to)),
      fsyncDirectory: (dir) => call({ op: 'fsyncDirectory', path: path.resolve(dir) }, () => base.fsyncDirectory(dir)),
      tryLockExclusive: (fd) => call({ op: 'tryLockExclusive', path: pathOf(fd) }, () => base.tryLockExclusive(fd)),
      unlock: (fd) => call({ op: 'unlock', path: pathOf(fd) }, () => base.unlock(fd)),
    };
  }

  private call<T>(effect: Effect, run: () => T, short?: (keep_bytes: number) => number): T {
    this.effects.push(effect);
    try {
      if (effect.op === 'write' && effect.path !== null && this.disk_full.has(effect.path)) throw injected('ENOSPC', effect);
      const rule = this.matchingRule(effect);
      if (rule?.kind === 'hook') rule.run();
      if (rule?.kind === 'error') throw injected(rule.code, effect);
      if (rule?.kind === 'short' && short !== undefined) {
        this.disk_full.add(effect.path ?? '');
        return short(rule.keep_bytes) as T;
      }
      return run();
    } catch (error) {
      effect.error = (error as NodeJS.ErrnoException).code ?? String(error);
      throw error;
    }
  }

  private matchingRule(effect: Effect): Rule | null {
    let firing: Rule | null = null;
    for (const rule of this.rules) {
      if (rule.op !== effect.op || !pathMatches(rule.match.path, effect.path)) continue;
      rule.seen += 1;
      if (firing === null && rule.seen === (rule.match.nth ?? 1)) firing = rule;
    }
    return firing;
  }
}

function pathMatches(expected: string | RegExp | undefined, actual: string | null): boolean {
  if (expected === undefined) return true;
  if (actual === null) return false;
  return typeof expected === 'string' ? path.resolve(expected) === actual : expected.test(actual);
}

function injected(code: string, effect: Effect): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected failure of ${effect.op} on ${effect.path ?? '?'}`), { code });
}

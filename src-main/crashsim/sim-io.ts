// One simulated process's FileIO over a SimDisk: the engine's seam, so the engine, the lease, the floor and the
// runtime run unchanged. It counts every effect that changes the disk (a write, truncate, fsync, create,
// mkdir, rename, folder sync): those are the persistence points a crash can fall between. Past its crash
// point every call throws SimulatedCrash — the process is dead — except close and unlock, which the OS does
// for a dead process anyway.
//
// Each process mounts the disk at a path of its own. The engine memoizes the proven feature floor per
// absolute root path for the life of a process; a fresh mount is a fresh process to that memo, exactly as a
// restarted process would be.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { FileIO, FileStat, OpenMode } from '../engine/index.js';
import { SimDisk } from './disk.js';

export class SimulatedCrash extends Error {
  override name = 'SimulatedCrash';
  constructor(readonly after_mutations: number) {
    super(`simulated crash after ${after_mutations} disk mutations`);
  }
}

/** What a process did to the disk, in order: for reports and for counting persistence points. */
export interface SimEffect {
  op: 'create' | 'write' | 'truncate' | 'fsync' | 'mkdir' | 'rename' | 'fsync_dir';
  path: string;
  bytes: number;
}

let mounts = 0;

/** Bounds the effects a process may make: a runaway runtime fails instead of filling memory. */
export const SIM_MUTATIONS_MAX = 200_000;

interface OpenFile {
  inode: number;
  path: string;
}

export class SimProcess {
  readonly mount: string;
  readonly io: FileIO;
  readonly effects: SimEffect[] = [];
  private crashed_flag = false;
  private readonly fds = new Map<number, OpenFile>();
  private next_fd = 3;
  private readonly locks = new Set<number>();

  /** `crash_after`: the process dies just before its (crash_after + 1)-th mutation; null: it never does. */
  constructor(
    readonly disk: SimDisk,
    private readonly crash_after: number | null,
  ) {
    assert.ok(crash_after === null || (Number.isSafeInteger(crash_after) && crash_after >= 0), `crash_after ${crash_after}`);
    mounts += 1;
    this.mount = `/walsim/m${mounts}`;
    this.io = this.build();
  }

  get crashed(): boolean {
    return this.crashed_flag;
  }

  get mutations(): number {
    return this.effects.length;
  }

  /** The absolute path of a namespace path (like "root/sessions/x/wal") under this process's mount. */
  at(relative: string): string {
    return path.join(this.mount, relative);
  }

  /** The bytes this process sees at `absolute` (its page cache), or null when nothing is there. */
  currentBytes(absolute: string): Buffer | null {
    const inode = this.disk.lookup(this.parts(absolute));
    if (inode === null || this.disk.node(inode).kind !== 'file') return null;
    return Buffer.from(this.disk.file(inode).data);
  }

  private parts(absolute: string): string[] {
    const relative = path.relative(this.mount, path.resolve(absolute));
    assert.ok(!relative.startsWith('..') && !path.isAbsolute(relative), `${absolute} is outside the simulated disk ${this.mount}`);
    return relative === '' ? [] : relative.split(path.sep);
  }

  /** Every call goes through here: a dead process does nothing. */
  private alive(): void {
    if (this.crashed_flag) throw new SimulatedCrash(this.crash_after!);
  }

  /** A call about to change the disk: the crash point falls just before it. */
  private mutate(effect: SimEffect): void {
    this.alive();
    if (this.crash_after !== null && this.effects.length >= this.crash_after) {
      this.crashed_flag = true;
      throw new SimulatedCrash(this.crash_after);
    }
    assert.ok(this.effects.length < SIM_MUTATIONS_MAX, `a simulated process makes at most ${SIM_MUTATIONS_MAX} mutations`);
    this.effects.push(effect);
  }

  private fd(fd: number): OpenFile {
    const open = this.fds.get(fd);
    if (open === undefined) throw errno('EBADF', `fd ${fd} is not open`);
    return open;
  }

  private parentOf(absolute: string): { dir: number; name: string } {
    const parts = this.parts(absolute);
    const name = parts.pop();
    if (name === undefined) throw errno('EISDIR', `${absolute} is the disk root`);
    const dir = this.disk.lookup(parts);
    if (dir === null || this.disk.node(dir).kind !== 'dir') throw errno('ENOENT', `no folder for ${absolute}`);
    return { dir, name };
  }

  private build(): FileIO {
    const disk = this.disk;
    return {
      open: (file, mode) => this.openFile(file, mode),
      close: (fd) => {
        this.fds.delete(fd);
        this.locks.delete(fd);
      },
      read: (fd, buffer, offset, length, position) => this.readAt(fd, buffer, offset, length, position),
      write: (fd, buffer, offset, length, position) => {
        const open = this.fd(fd);
        this.mutate({ op: 'write', path: open.path, bytes: length });
        disk.write(open.inode, position, Buffer.from(buffer.subarray(offset, offset + length)));
        return length;
      },
      fsync: (fd) => this.syncFile(fd),
      fdatasync: (fd) => this.syncFile(fd),
      ftruncate: (fd, size_bytes) => {
        const open = this.fd(fd);
        this.mutate({ op: 'truncate', path: open.path, bytes: size_bytes });
        disk.truncate(open.inode, size_bytes);
      },
      fstat: (fd) => {
        this.alive();
        return fileStat(disk.file(this.fd(fd).inode).data.length, false);
      },
      stat: (target) => this.statPath(target),
      mkdir: (target) => this.makeDir(target),
      readdir: (target) => [...disk.dir(this.dirAt(target, 'ENOTDIR')).entries.keys()].sort(),
      rename: (from, to) => this.renameEntry(from, to),
      fsyncDirectory: (target) => {
        const inode = this.dirAt(target, 'ENOENT');
        this.mutate({ op: 'fsync_dir', path: target, bytes: 0 });
        disk.syncDir(inode);
      },
      tryLockExclusive: (fd) => this.lock(fd),
      unlock: (fd) => {
        this.locks.delete(fd);
      },
    };
  }

  private openFile(file: string, mode: OpenMode): number {
    this.alive();
    const disk = this.disk;
    const { dir, name } = this.parentOf(file);
    let inode = disk.dir(dir).entries.get(name) ?? null;
    if (inode !== null && disk.node(inode).kind !== 'file') throw errno('EISDIR', `${file} is a folder`);
    if (inode !== null && mode === 'create_exclusive') throw errno('EEXIST', `${file} exists`);
    if (inode === null) {
      if (mode === 'read') throw errno('ENOENT', `${file} does not exist`);
      this.mutate({ op: 'create', path: file, bytes: 0 });
      inode = disk.newFile();
      disk.link(dir, name, inode);
    } else if (mode === 'write_truncate' && disk.file(inode).data.length > 0) {
      this.mutate({ op: 'truncate', path: file, bytes: 0 });
      disk.truncate(inode, 0);
    }
    const fd = this.next_fd++;
    this.fds.set(fd, { inode, path: path.resolve(file) });
    return fd;
  }

  private readAt(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
    this.alive();
    const data = this.disk.file(this.fd(fd).inode).data;
    if (position >= data.length) return 0;
    const count = Math.min(length, data.length - position);
    data.copy(buffer, offset, position, position + count);
    return count;
  }

  private statPath(target: string): FileStat | null {
    this.alive();
    const inode = this.disk.lookup(this.parts(target));
    if (inode === null) return null;
    const node = this.disk.node(inode);
    return node.kind === 'dir' ? fileStat(0, true) : fileStat(node.data.length, false);
  }

  private makeDir(target: string): void {
    this.alive();
    const { dir, name } = this.parentOf(target);
    if (this.disk.dir(dir).entries.has(name)) throw errno('EEXIST', `${target} exists`);
    this.mutate({ op: 'mkdir', path: target, bytes: 0 });
    this.disk.link(dir, name, this.disk.newDir());
  }

  /** The folder at `target`, or the errno `missing` names when there is none. */
  private dirAt(target: string, missing: 'ENOTDIR' | 'ENOENT'): number {
    this.alive();
    const inode = this.disk.lookup(this.parts(target));
    if (inode === null || this.disk.node(inode).kind !== 'dir') throw errno(missing, `${target} is not a folder`);
    return inode;
  }

  private renameEntry(from: string, to: string): void {
    this.alive();
    const source = this.parentOf(from);
    const target = this.parentOf(to);
    // The engine renames only within the state root; a cross-folder rename would need two entry changes.
    assert.equal(source.dir, target.dir, 'simulated renames stay within one folder');
    if (!this.disk.dir(source.dir).entries.has(source.name)) throw errno('ENOENT', `${from} does not exist`);
    this.mutate({ op: 'rename', path: from, bytes: 0 });
    this.disk.rename(source.dir, source.name, target.name);
  }

  private lock(fd: number): boolean {
    this.alive();
    const inode = this.fd(fd).inode;
    for (const other of this.locks) if (this.fds.get(other)?.inode === inode) return false;
    this.locks.add(fd);
    return true;
  }

  private syncFile(fd: number): void {
    const open = this.fd(fd);
    this.mutate({ op: 'fsync', path: open.path, bytes: 0 });
    this.disk.syncFile(open.inode);
  }
}

function fileStat(size_bytes: number, is_directory: boolean): FileStat {
  return { size_bytes, mtime_ms: 0, is_directory, is_file: !is_directory };
}

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

// The simulated disk: what a process sees (the page cache) and what a power loss keeps. In the spirit of ALICE,
// every file keeps its durable bytes plus the ordered list of changes made since its last fsync, and every
// folder keeps its durable entries plus the ordered list of creates and renames since its last sync. A file's
// fsync makes its bytes durable, never its name: only a sync of its folder does (POSIX; ext4 often does more,
// which is exactly why relying on it is a bug).
//
// A crash image keeps, per file and per folder independently, a PREFIX of the changes since the last sync
// (appends persist in order on the file systems the format targets), and may tear the first change it drops:
// part of a write reaches the disk, and the rest of its range reads as nothing, zeros or garbage. A rename is
// one atomic entry change, so a floor replaced by rename is either the old file or the new one.
import assert from 'node:assert/strict';
import type { Prng } from './prng.js';

type FileChange = { kind: 'write'; position: number; bytes: Buffer } | { kind: 'truncate'; size_bytes: number };
type EntryChange = { kind: 'link'; name: string; inode: number } | { kind: 'rename'; from: string; to: string; inode: number };

export interface FileNode {
  kind: 'file';
  data: Buffer;
  durable: Buffer;
  pending: FileChange[];
}

export interface DirNode {
  kind: 'dir';
  entries: Map<string, number>;
  durable: Map<string, number>;
  pending: EntryChange[];
}

export type SimNode = FileNode | DirNode;

/** How a crash image treats what was not synced. */
export type ImageKind =
  /** nothing unsynced survives: the harshest power loss */
  | 'synced'
  /** everything written survives: a process crash (kill -9), the page cache intact */
  | 'all'
  /** a seeded choice per file and folder: a prefix, maybe a torn write, zero- or garbage-filled */
  | 'random';

export const IMAGE_KINDS: readonly ImageKind[] = ['synced', 'all', 'random'];

/** Bounds a simulated file: the scripted sessions write a few kilobytes. */
export const SIM_FILE_BYTES_MAX = 16 * 1_048_576;

export class SimDisk {
  readonly nodes = new Map<number, SimNode>();
  private next_inode = 1;
  static readonly ROOT_INODE = 0;

  /** A disk whose namespace holds one durable empty folder, `root_name` (the state root). */
  static withFolder(root_name: string): SimDisk {
    const disk = new SimDisk();
    disk.nodes.set(SimDisk.ROOT_INODE, { kind: 'dir', entries: new Map(), durable: new Map(), pending: [] });
    const root = disk.newDir();
    const top = disk.dir(SimDisk.ROOT_INODE);
    top.entries.set(root_name, root);
    top.durable.set(root_name, root);
    return disk;
  }

  node(inode: number): SimNode {
    const node = this.nodes.get(inode);
    assert.ok(node !== undefined, `inode ${inode} exists`);
    return node;
  }

  dir(inode: number): DirNode {
    const node = this.node(inode);
    assert.equal(node.kind, 'dir', `inode ${inode} is a folder`);
    return node as DirNode;
  }

  file(inode: number): FileNode {
    const node = this.node(inode);
    assert.equal(node.kind, 'file', `inode ${inode} is a file`);
    return node as FileNode;
  }

  newDir(): number {
    const inode = this.next_inode++;
    this.nodes.set(inode, { kind: 'dir', entries: new Map(), durable: new Map(), pending: [] });
    return inode;
  }

  newFile(): number {
    const inode = this.next_inode++;
    this.nodes.set(inode, { kind: 'file', data: Buffer.alloc(0), durable: Buffer.alloc(0), pending: [] });
    return inode;
  }

  /** The inode at `parts` (names from the namespace root), following current entries; null when absent. */
  lookup(parts: readonly string[]): number | null {
    let inode = SimDisk.ROOT_INODE;
    for (const name of parts) {
      const node = this.node(inode);
      if (node.kind !== 'dir') return null;
      const next = node.entries.get(name);
      if (next === undefined) return null;
      inode = next;
    }
    return inode;
  }

  link(dir_inode: number, name: string, inode: number): void {
    const dir = this.dir(dir_inode);
    assert.ok(!dir.entries.has(name), `${name} is new`);
    dir.entries.set(name, inode);
    dir.pending.push({ kind: 'link', name, inode });
  }

  rename(dir_inode: number, from: string, to: string): void {
    const dir = this.dir(dir_inode);
    const inode = dir.entries.get(from);
    assert.ok(inode !== undefined, `${from} exists`);
    dir.entries.delete(from);
    dir.entries.set(to, inode);
    dir.pending.push({ kind: 'rename', from, to, inode });
  }

  syncDir(dir_inode: number): void {
    const dir = this.dir(dir_inode);
    dir.durable = new Map(dir.entries);
    dir.pending = [];
  }

  write(inode: number, position: number, bytes: Buffer): void {
    const file = this.file(inode);
    assert.ok(position + bytes.length <= SIM_FILE_BYTES_MAX, `simulated files stay under ${SIM_FILE_BYTES_MAX} bytes`);
    file.data = applyChange(file.data, { kind: 'write', position, bytes });
    file.pending.push({ kind: 'write', position, bytes: Buffer.from(bytes) });
  }

  truncate(inode: number, size_bytes: number): void {
    const file = this.file(inode);
    file.data = applyChange(file.data, { kind: 'truncate', size_bytes });
    file.pending.push({ kind: 'truncate', size_bytes });
  }

  syncFile(inode: number): void {
    const file = this.file(inode);
    file.durable = Buffer.from(file.data);
    file.pending = [];
  }

  /** The disk a power loss (or process crash) at this moment would leave. Reachable nodes only; every byte of
   *  the image is the new durable state (a reboot starts from what is on disk). */
  crashImage(kind: ImageKind, prng: Prng): SimDisk {
    const image = new SimDisk();
    image.next_inode = this.next_inode;
    const visit = (inode: number) => {
      const node = this.node(inode);
      if (node.kind === 'file') {
        const data = fileImage(node, kind, prng);
        image.nodes.set(inode, { kind: 'file', data, durable: Buffer.from(data), pending: [] });
        return;
      }
      const entries = dirImage(node, kind, prng);
      image.nodes.set(inode, { kind: 'dir', entries, durable: new Map(entries), pending: [] });
      for (const name of [...entries.keys()].sort()) visit(entries.get(name)!);
    };
    visit(SimDisk.ROOT_INODE);
    return image;
  }
}

function keptCount(pending_count: number, kind: ImageKind, prng: Prng): number {
  if (kind === 'synced') return 0;
  if (kind === 'all') return pending_count;
  return prng.int(pending_count + 1);
}

function dirImage(dir: DirNode, kind: ImageKind, prng: Prng): Map<string, number> {
  const entries = new Map(dir.durable);
  const kept = keptCount(dir.pending.length, kind, prng);
  for (const change of dir.pending.slice(0, kept)) {
    if (change.kind === 'rename') entries.delete(change.from);
    entries.set(change.kind === 'rename' ? change.to : change.name, change.inode);
  }
  return entries;
}

function fileImage(file: FileNode, kind: ImageKind, prng: Prng): Buffer {
  let data: Buffer = Buffer.from(file.durable);
  const kept = keptCount(file.pending.length, kind, prng);
  for (const change of file.pending.slice(0, kept)) data = applyChange(data, change);
  const torn = file.pending[kept];
  if (kind !== 'random' || torn === undefined || torn.kind !== 'write' || torn.bytes.length < 2 || !prng.chance(0.5)) return data;
  // The first dropped write is torn: a prefix of it landed; the rest of its range is absent, zeros or garbage.
  const landed = prng.int(torn.bytes.length);
  const fill = prng.pick(['absent', 'zeros', 'garbage'] as const);
  const rest = torn.bytes.length - landed;
  const tail = fill === 'absent' ? Buffer.alloc(0) : fill === 'zeros' ? Buffer.alloc(rest) : prng.bytes(rest);
  return applyChange(data, { kind: 'write', position: torn.position, bytes: Buffer.concat([torn.bytes.subarray(0, landed), tail]) });
}

function applyChange(data: Buffer, change: FileChange): Buffer {
  if (change.kind === 'truncate') {
    if (change.size_bytes <= data.length) return Buffer.from(data.subarray(0, change.size_bytes));
    return Buffer.concat([data, Buffer.alloc(change.size_bytes - data.length)]);
  }
  const end = change.position + change.bytes.length;
  const out = end > data.length ? Buffer.concat([data, Buffer.alloc(end - data.length)]) : Buffer.from(data);
  change.bytes.copy(out, change.position);
  return out;
}

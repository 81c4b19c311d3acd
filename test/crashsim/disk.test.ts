// The simulated disk is the simulator's ground truth, so its power-loss model is tested on its own: a file's
// fsync keeps its bytes but not its name, a folder sync keeps names, a rename is atomic, a torn write keeps a
// prefix of the unsynced appends, and the PRNG and case texts are deterministic.
import { describe, expect, it } from 'vitest';
import { formatCase, parseCase } from '../../src-main/crashsim/case.js';
import { SimDisk } from '../../src-main/crashsim/disk.js';
import { Prng } from '../../src-main/crashsim/prng.js';
import { SimProcess, SimulatedCrash } from '../../src-main/crashsim/sim-io.js';

function fresh() {
  const disk = SimDisk.withFolder('root');
  const process = new SimProcess(disk, null);
  return { disk, process, io: process.io, at: (name: string) => process.at(`root/${name}`) };
}

function bytesAt(disk: SimDisk, name: string): Buffer | null {
  const reader = new SimProcess(disk, null);
  return reader.currentBytes(reader.at(`root/${name}`));
}

describe('simulated disk', () => {
  it('a file fsync keeps the bytes but not the name; a folder sync keeps the name', () => {
    const { disk, io, at } = fresh();
    const fd = io.open(at('wal'), 'read_write_create');
    io.write(fd, Buffer.from('hello'), 0, 5, 0);
    io.fdatasync(fd);
    expect(bytesAt(disk.crashImage('synced', new Prng(1)), 'wal')).toBeNull();
    io.fsyncDirectory(at(''));
    expect(bytesAt(disk.crashImage('synced', new Prng(1)), 'wal')?.toString()).toBe('hello');
  });

  it('unsynced appends survive as a prefix; the all image keeps everything', () => {
    const { disk, io, at } = fresh();
    const fd = io.open(at('log'), 'read_write_create');
    io.fsyncDirectory(at(''));
    io.write(fd, Buffer.from('aaaa'), 0, 4, 0);
    io.fdatasync(fd);
    io.write(fd, Buffer.from('bbbb'), 0, 4, 4);
    io.write(fd, Buffer.from('cccc'), 0, 4, 8);
    expect(bytesAt(disk.crashImage('all', new Prng(1)), 'log')?.toString()).toBe('aaaabbbbcccc');
    expect(bytesAt(disk.crashImage('synced', new Prng(1)), 'log')?.toString()).toBe('aaaa');
    const seen = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const image = bytesAt(disk.crashImage('random', new Prng(seed)), 'log')!;
      expect(image.subarray(0, 4).toString()).toBe('aaaa');
      seen.add(image.length === 12 ? 'all' : image.length === 4 ? 'synced' : 'torn');
      // Appends persist in order: anything past bbbb's range means bbbb landed whole.
      if (image.length > 8) expect(image.subarray(4, 8).toString()).toBe('bbbb');
    }
    expect(seen).toEqual(new Set(['all', 'synced', 'torn']));
  });

  it('a rename is atomic: the image holds the old file or the new one, never a mix', () => {
    const { disk, io, at } = fresh();
    const old = io.open(at('floor'), 'read_write_create');
    io.write(old, Buffer.from('old\n'), 0, 4, 0);
    io.fsync(old);
    io.fsyncDirectory(at(''));
    const temp = io.open(at('floor.tmp'), 'create_exclusive');
    io.write(temp, Buffer.from('new\n'), 0, 4, 0);
    io.fsync(temp);
    io.rename(at('floor.tmp'), at('floor'));
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 100; seed++) outcomes.add(bytesAt(disk.crashImage('random', new Prng(seed)), 'floor')!.toString());
    expect(outcomes).toEqual(new Set(['old\n', 'new\n']));
  });

  it('a process dies just before its chosen mutation and does nothing after', () => {
    const disk = SimDisk.withFolder('root');
    const process = new SimProcess(disk, 2);
    const fd = process.io.open(process.at('root/f'), 'read_write_create');
    process.io.write(fd, Buffer.from('x'), 0, 1, 0);
    expect(() => process.io.fsync(fd)).toThrow(SimulatedCrash);
    expect(() => process.io.stat(process.at('root'))).toThrow(SimulatedCrash);
    expect(() => process.io.close(fd)).not.toThrow();
    expect(process.mutations).toBe(2);
  });

  it('the PRNG and case texts are deterministic', () => {
    const draw = (seed: number) => Array.from({ length: 8 }, ((prng) => () => prng.u32())(new Prng(seed)));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    const text = 'sim-basic/17/dispatch_before_intent_barrier/23@random,5@synced';
    expect(formatCase(parseCase(text))).toBe(text);
    expect(() => parseCase('sim-basic/17/none/23@sideways')).toThrow(/image/);
  });
});

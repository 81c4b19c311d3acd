// Crashing retention (wal-format §11): every persistence point of the scripted retire session under every image
// kind; any interleaving of retires and crashes (fast-check chooses the crash points, images and script) leaves
// a readable history; and a retire that drops its archive barrier is caught, so the invariants can fail.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exhaustiveRetireSuite, simulateRetire } from '../../src-main/crashsim/retire-sim.js';
import { IMAGE_KINDS } from '../../src-main/crashsim/disk.js';
import type { FileIO } from '../../src-main/engine/file-io.js';
import type { RetireScript } from '../../src-main/runtime/retire-script.js';

describe('crash simulator, retiring lineages', () => {
  it('every persistence point of sim-retire, every image: zero violations', () => {
    const report = exhaustiveRetireSuite();
    expect(report.failures.map((failure) => failure.violations)).toEqual([]);
    expect(report.points).toBeGreaterThan(50);
    expect(report.cases).toBe(report.points * 3 + 1);
  });

  it('its persistence points include every step of retiring: member append, successor write and rename, index rewrite', () => {
    const points = simulateRetire([], 0).points;
    for (const point of ['write archive', 'fsync archive', 'create wal.successor', 'write wal.successor', 'fsync wal.successor', 'rename wal.successor', 'write archive.index.tmp', 'fsync archive.index.tmp', 'rename archive.index.tmp', 'fsync_dir sim-retire']) {
      expect(points).toContain(point);
    }
    // Each retire: the member's barrier, then the successor's rename and folder sync, then the index's.
    const order = ['fsync archive', 'rename wal.successor', 'fsync_dir sim-retire', 'rename archive.index.tmp', 'fsync_dir sim-retire'];
    let from = 0;
    for (const point of order) {
      from = points.indexOf(point, from) + 1;
      expect(from, point).toBeGreaterThan(0);
    }
  });

  it('a retire whose archive append skips its barrier loses a lineage, and the simulator says so', () => {
    const report = exhaustiveRetireSuite(['synced'], { wrap_io: droppingArchiveSync });
    expect(report.failures.length).toBeGreaterThan(0);
    expect(report.failures[0]!.violations[0]!.invariant).toBe('lineage_lost');
  });

  it('a writer that ignores a retire interrupted after step 1 is caught: the runtime that opens the session next must finish it', () => {
    const report = exhaustiveRetireSuite(['synced'], { finish_interrupted_retire: false });
    expect(report.failures.length).toBeGreaterThan(0);
    const invariants = new Set(report.failures.flatMap((failure) => failure.violations.map((violation) => violation.invariant)));
    expect([...invariants]).toEqual(['retire_unfinished']);
  });

  it('any interleaving of retires and crashes leaves a readable history, with nothing lost or repeated', () => {
    const lineage = fc.record({ records: fc.integer({ min: 1, max: 3 }), retire: fc.constantFrom<'sealed' | 'deleted'>('sealed', 'deleted') });
    const script = fc.array(lineage, { minLength: 1, maxLength: 3 }).map((retired): RetireScript => ({
      session_id: 'sim-retire',
      lineages: [...retired, { records: 1, retire: null }],
    }));
    const crash = fc.record({ after_mutations: fc.integer({ min: 0, max: 120 }), image: fc.constantFrom(...IMAGE_KINDS) });
    fc.assert(
      fc.property(script, fc.array(crash, { maxLength: 3 }), fc.integer({ min: 0, max: 1_000_000 }), (chosen, crashes, seed) => {
        const result = simulateRetire(crashes, seed, { script: chosen });
        expect(result.violations).toEqual([]);
      }),
      { numRuns: 60, seed: 1105 },
    );
  });
});

/** The archive's fdatasync does nothing: the member's bytes may never reach the disk. */
function droppingArchiveSync(io: FileIO): FileIO {
  const archives = new Set<number>();
  return {
    ...io,
    open(path, mode) {
      const fd = io.open(path, mode);
      if (path.endsWith('/archive')) archives.add(fd);
      return fd;
    },
    close(fd) {
      archives.delete(fd);
      io.close(fd);
    },
    fdatasync(fd) {
      if (!archives.has(fd)) io.fdatasync(fd);
    },
  };
}

// The feature floor against the real file system and real processes (wal-format §7, contract §3).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FloorRaiseError } from '../../src-main/engine/errors.js';
import { ensureFloor, FloorFormatError, FloorLockTimeoutError, readFloor } from '../../src-main/engine/feature-floor.js';
import { nodeFileIO } from '../../src-main/engine/file-io.js';
import { floorLockPath, floorPath } from '../../src-main/engine/state-root.js';
import { FaultyIO } from '../helpers/faulty-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';
import { captureError } from '../helpers/capture.js';

const tempDir = useTempDirs('walscope-floor-');

const floorText = (root: string): string => fs.readFileSync(floorPath(root), 'utf8');

describe('readFloor', () => {
  it('reads no floor as empty and never creates one', () => {
    const root = tempDir();
    expect(readFloor(root)).toEqual([]);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('names the line of a malformed floor', () => {
    const root = tempDir();
    const cases: Array<[string, number]> = [
      ['scope/v1\nNot A Name\n', 2],
      ['scope/v1\nsteer-queue/v1', 2],
      ['steer-queue/v1\nscope/v1\n', 2],
      ['scope/v1\nscope/v1\n', 2],
      ['\n', 1],
    ];
    for (const [text, line] of cases) {
      fs.writeFileSync(floorPath(root), text);
      const error = captureError(() => readFloor(root));
      expect(error).toBeInstanceOf(FloorFormatError);
      expect((error as FloorFormatError).line).toBe(line);
      expect((error as FloorFormatError).message).toContain(`line ${line}`);
    }
  });
});

describe('ensureFloor', () => {
  it('writes the union sorted, unique and LF-terminated, and only grows', () => {
    const root = tempDir();
    ensureFloor(root, ['steer-queue/v1', 'run-cancel-at/v1']);
    ensureFloor(root, ['scope/v1', 'steer-queue/v1']);
    expect(floorText(root)).toBe('run-cancel-at/v1\nscope/v1\nsteer-queue/v1\n');
    expect(fs.readFileSync(floorLockPath(root)).length).toBe(0);
    // No temp files survive a successful raise.
    expect(fs.readdirSync(root).sort()).toEqual(['wal-feature-floor', 'wal-feature-floor.lock']);
  });

  it('keeps names another process added, and proves an already-covering floor with a directory sync', () => {
    const root = tempDir();
    fs.writeFileSync(floorPath(root), 'provider-held/v1\ntool-times/v1\n');
    const faulty = new FaultyIO();
    ensureFloor(root, ['tool-times/v1'], faulty.io);
    expect(floorText(root)).toBe('provider-held/v1\ntool-times/v1\n');
    const mutations = faulty.mutations().filter((effect) => effect.op !== 'open');
    expect(mutations.map((effect) => [effect.op, effect.path])).toEqual([['fsyncDirectory', root]]);
    // The proof covered every name read, so the other one is memoized too.
    const mark = faulty.effects.length;
    ensureFloor(root, ['provider-held/v1'], faulty.io);
    expect(faulty.effects.length).toBe(mark);
  });

  it('does no I/O at all once the names are memoized', () => {
    const root = tempDir();
    const faulty = new FaultyIO();
    ensureFloor(root, ['scope/v1', 'tool-times/v1'], faulty.io);
    const raise = faulty.mutations().map((effect) => effect.op);
    expect(raise).toEqual(['open', 'open', 'write', 'fsync', 'rename', 'fsyncDirectory']);
    const mark = faulty.effects.length;
    ensureFloor(root, ['tool-times/v1'], faulty.io);
    ensureFloor(root, ['scope/v1', 'tool-times/v1'], faulty.io);
    ensureFloor(root, [], faulty.io);
    expect(faulty.effects.slice(mark)).toEqual([]);
  });

  it('writes the temp file, syncs it, renames it over the floor, then syncs the root, under the lock', () => {
    const root = tempDir();
    const faulty = new FaultyIO();
    ensureFloor(root, ['context-ceiling/v1'], faulty.io);
    const steps = faulty.effects
      .filter((effect) => !['stat', 'fstat', 'read', 'open', 'close'].includes(effect.op))
      .map((effect) => `${effect.op} ${path.basename(effect.path ?? '')}`);
    expect(steps).toEqual([
      'tryLockExclusive wal-feature-floor.lock',
      expect.stringMatching(/^write wal-feature-floor\.tmp-\d+-\d+$/),
      expect.stringMatching(/^fsync wal-feature-floor\.tmp-\d+-\d+$/),
      expect.stringMatching(/^rename wal-feature-floor\.tmp-\d+-\d+$/),
      `fsyncDirectory ${path.basename(root)}`,
      'unlock wal-feature-floor.lock',
    ]);
  });

  it('a failed raise throws FloorRaiseError, memoizes nothing and leaves the old floor', () => {
    for (const op of ['fsync', 'rename', 'fsyncDirectory'] as const) {
      const root = tempDir();
      fs.writeFileSync(floorPath(root), 'scope/v1\n');
      const faulty = new FaultyIO().fail(op);
      const error = captureError(() => ensureFloor(root, ['steer-queue/v1'], faulty.io));
      expect(error).toBeInstanceOf(FloorRaiseError);
      expect((error as FloorRaiseError).features).toEqual(['steer-queue/v1']);
      if (op !== 'fsyncDirectory') expect(floorText(root)).toBe('scope/v1\n');
      // Not memoized: the next ensure takes the locked path again (and now succeeds).
      const retry = new FaultyIO();
      ensureFloor(root, ['steer-queue/v1'], retry.io);
      expect(retry.effects.some((effect) => effect.op === 'tryLockExclusive')).toBe(true);
      expect(floorText(root)).toBe('scope/v1\nsteer-queue/v1\n');
    }
  });

  it('a malformed floor refuses the raise and is left as it is', () => {
    const root = tempDir();
    fs.writeFileSync(floorPath(root), 'scope/v1\nbad\n');
    const error = captureError(() => ensureFloor(root, ['scope/v1']));
    expect(error).toBeInstanceOf(FloorRaiseError);
    expect((error as FloorRaiseError).cause).toBeInstanceOf(FloorFormatError);
    expect(floorText(root)).toBe('scope/v1\nbad\n');
  });

  it('times out with a typed error while another process holds the lock, then waits it out', async () => {
    const root = tempDir();
    const holder = runFixture('hold-lock.ts', [floorLockPath(root), '1500']);
    expect(await holder.nextLine()).toBe('locked');
    const started_ms = performance.now();
    const error = captureError(() => ensureFloor(root, ['scope/v1'], nodeFileIO, 100));
    expect(performance.now() - started_ms).toBeGreaterThanOrEqual(95);
    expect((error as FloorRaiseError).cause).toBeInstanceOf(FloorLockTimeoutError);
    expect(fs.existsSync(floorPath(root))).toBe(false);
    // The full wait outlasts the holder: polling picks the lock up once it is free.
    ensureFloor(root, ['scope/v1']);
    expect(floorText(root)).toBe('scope/v1\n');
    await killHard(holder);
  });

  it('four processes raising different features concurrently end with the union', async () => {
    const root = tempDir();
    const sets = [
      ['scope/v1', 'plan-manifest/v1', 'dispatch-module/v1', 'steer-queue/v1'],
      ['google-rpc-error-details/v1', 'run-cancel-at/v1', 'provider-held/v1', 'tool-times/v1'],
      ['provider-text-state/v1', 'media-content/v1', 'openrouter-reasoning/v1', 'chatgpt-codex-wire/v1'],
      ['compaction/v1', 'compaction-view/v1', 'context-ceiling/v1', 'runner-tags/v1', 'scope/v1'],
    ];
    const go_file = path.join(tempDir(), 'go');
    const children = sets.map((set) => runFixture('raise-floor.ts', [root, set.join(','), 'normal', go_file]));
    for (const child of children) expect(await child.nextLine()).toBe('ready');
    fs.writeFileSync(go_file, '');
    let attempts = 0;
    for (const child of children) {
      const [word, tries, raises] = (await child.nextLine()).split(' ');
      expect(word).toBe('done');
      expect(Number(tries)).toBeGreaterThanOrEqual(Number(raises));
      attempts += Number(tries);
      expect((await child.exited).code).toBe(0);
    }
    // The children really contended: some found the lock taken and polled.
    expect(attempts).toBeGreaterThan(sets.flat().length);
    const union = [...new Set(sets.flat())].sort();
    expect(floorText(root)).toBe(union.map((name) => `${name}\n`).join(''));
    expect(readFloor(root)).toEqual(union);
  });

  it('a crash between the synced temp file and the rename leaves the old floor intact', async () => {
    const root = tempDir();
    fs.writeFileSync(floorPath(root), 'scope/v1\n');
    const child = runFixture('raise-floor.ts', [root, 'steer-queue/v1', 'crash-before-rename']);
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(floorText(root)).toBe('scope/v1\n');
    expect(readFloor(root)).toEqual(['scope/v1']);
    const temps = fs.readdirSync(root).filter((name) => name.startsWith('wal-feature-floor.tmp-'));
    expect(temps.length).toBe(1);
    expect(fs.readFileSync(path.join(root, temps[0]!), 'utf8')).toBe('scope/v1\nsteer-queue/v1\n');
    // The OS released the dead child's lock: a raise goes through at once.
    ensureFloor(root, ['steer-queue/v1'], nodeFileIO, 0);
    expect(readFloor(root)).toEqual(['scope/v1', 'steer-queue/v1']);
  });
});


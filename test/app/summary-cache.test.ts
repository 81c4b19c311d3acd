// The summary cache (issue 9): a second open of a root shows each session's line from the cache when its WAL is
// the same file of the same size ending in the same verified bytes, and reads the WAL again when it is not
// (grown, shrunk, replaced by another file of the same size); a damaged cache is rebuilt, never trusted; and
// the cache lives in the cache folder, never beside the WAL.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../src-shared/ipc.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { CACHE_DIR_ENV, cacheDir } from '../../src-main/services/summary-cache.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession, writeFinished, writeIndeterminate } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-cache-');
let cache_dir = '';
const env_before = process.env[CACHE_DIR_ENV];
beforeEach(() => {
  cache_dir = tempDir();
  process.env[CACHE_DIR_ENV] = cache_dir;
});
afterEach(() => {
  if (env_before === undefined) delete process.env[CACHE_DIR_ENV];
  else process.env[CACHE_DIR_ENV] = env_before;
});

/** Opens, waits until every summary is current, and closes (which writes the cache). */
async function openOnce(target: string): Promise<{ summaries: SessionSummary[]; counts: SessionService['counts'] }> {
  const service = await SessionService.open(target, { watch: false });
  await service.whenRead();
  const summaries = await service.listSessions();
  await service.close();
  return { summaries, counts: { ...service.counts } };
}

function root3(): string {
  const root = tempDir();
  writeFinished(root, 'a');
  writeIndeterminate(root, 'b');
  writeFinished(root, 'c', 'third');
  return root;
}

const cacheFiles = () => fs.readdirSync(cache_dir).filter((name) => name.endsWith('.json'));

describe('summary cache', () => {
  it('a second open takes every summary from the cache when nothing changed', async () => {
    const root = root3();
    const first = await openOnce(root);
    expect(first.counts).toEqual({ sessions_read: 3, summaries_from_cache: 0 });
    expect(cacheFiles()).toHaveLength(1);
    const second = await openOnce(root);
    expect(second.counts).toEqual({ sessions_read: 0, summaries_from_cache: 3 });
    expect(second.summaries).toEqual(first.summaries);
  });

  it('a grown WAL, a shrunk one and one replaced by a same-size file are read again', async () => {
    const root = root3();
    const first = await openOnce(root);
    withSession(root, 'a', (append) => append('steered', { input: [] }));
    const wal_b = walPath(sessionDir(root, 'b'));
    const b_bytes = fs.readFileSync(wal_b);
    fs.truncateSync(wal_b, b_bytes.length - 10);
    const wal_c = walPath(sessionDir(root, 'c'));
    fs.copyFileSync(wal_c, `${wal_c}.copy`);
    fs.renameSync(`${wal_c}.copy`, wal_c);
    const second = await openOnce(root);
    expect(second.counts).toEqual({ sessions_read: 3, summaries_from_cache: 0 });
    const by_key = Object.fromEntries(second.summaries.map((summary) => [summary.key, summary]));
    expect(by_key['a']!.records).toBe(first.summaries.find((summary) => summary.key === 'a')!.records + 1);
    expect(by_key['b']!.torn_tail).not.toBeNull();
    expect(by_key['c']!.status).toBe('completed');
    // And now that they were read again, a third open takes them from the cache.
    expect((await openOnce(root)).counts).toEqual({ sessions_read: 0, summaries_from_cache: 3 });
  });

  it('a WAL rewritten in place to the same size is read again', async () => {
    const root = root3();
    await openOnce(root);
    const wal = walPath(sessionDir(root, 'a'));
    const bytes = fs.readFileSync(wal);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01;
    fs.writeFileSync(wal, bytes);
    const second = await openOnce(root);
    expect(second.counts).toEqual({ sessions_read: 1, summaries_from_cache: 2 });
    expect(second.summaries.find((summary) => summary.key === 'a')!.status).not.toBe('completed');
  });

  it.each([
    ['a flipped byte', (text: Buffer) => { text[text.length - 20] = text[text.length - 20]! ^ 0x04; return text; }],
    ['a cut file', (text: Buffer) => text.subarray(0, text.length >> 1)],
    ['a forged body with a stale checksum', (text: Buffer) => Buffer.from(text.toString('utf8').replace('"finished"', '"needs_operator"'))],
    ['not JSON at all', () => Buffer.from('garbage\n{')],
  ])('a damaged cache (%s) is rebuilt, never trusted', async (_name, damage) => {
    const root = root3();
    const first = await openOnce(root);
    const file = path.join(cache_dir, cacheFiles()[0]!);
    fs.writeFileSync(file, damage(fs.readFileSync(file)));
    const second = await openOnce(root);
    expect(second.counts).toEqual({ sessions_read: 3, summaries_from_cache: 0 });
    expect(second.summaries).toEqual(first.summaries);
    expect((await openOnce(root)).counts).toEqual({ sessions_read: 0, summaries_from_cache: 3 });
  });

  it('a cache another build wrote (an older walscope: its lines lack fields) is rebuilt, never shown', async () => {
    const root = root3();
    const first = await openOnce(root);
    const file = path.join(cache_dir, cacheFiles()[0]!);
    const text = fs.readFileSync(file, 'utf8');
    const body = JSON.parse(text.slice(text.indexOf('\n') + 1)) as { build: string; entries: Record<string, { summary: Partial<SessionSummary> }> };
    body.build = 'an older build';
    for (const entry of Object.values(body.entries)) delete entry.summary.recoveries;
    const older = JSON.stringify(body);
    fs.writeFileSync(file, `${createHash('sha256').update(older).digest('hex')}\n${older}`);
    const second = await openOnce(root);
    expect(second.counts).toEqual({ sessions_read: 3, summaries_from_cache: 0 });
    expect(second.summaries).toEqual(first.summaries);
    expect((await openOnce(root)).counts).toEqual({ sessions_read: 0, summaries_from_cache: 3 });
  });

  it('a cached session that a writer holds now is read again and shown live', async () => {
    const root = root3();
    await openOnce(root);
    const holder = runFixture('hold-lease.ts', [sessionDir(root, 'a'), 'live-writer', '9']);
    try {
      await holder.nextLine();
      const second = await openOnce(root);
      expect(second.counts).toEqual({ sessions_read: 1, summaries_from_cache: 3 });
      expect(second.summaries.find((summary) => summary.key === 'a')!.status).toBe('running');
    } finally {
      await killHard(holder);
    }
  });

  it('an export is cached in the cache folder, never beside it', async () => {
    const source = tempDir();
    writeFinished(source, 's');
    const exported = path.join(tempDir(), 'customer.wal');
    fs.copyFileSync(walPath(sessionDir(source, 's')), exported);
    const listing_before = fs.readdirSync(path.dirname(exported));
    await openOnce(exported);
    expect((await openOnce(exported)).counts).toEqual({ sessions_read: 0, summaries_from_cache: 1 });
    expect(fs.readdirSync(path.dirname(exported))).toEqual(listing_before);
    expect(cacheFiles()).toHaveLength(1);
  });

  it('the cache folder is the user cache folder unless overridden', () => {
    expect(cacheDir({ [CACHE_DIR_ENV]: '/x/y' })).toBe('/x/y');
    expect(cacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/walscope');
    expect(cacheDir({ HOME: process.env['HOME'] })).toMatch(/\.cache\/walscope$/);
  });
});

// The list says what verify says: a session whose live WAL reads but whose archive verify refuses (the demo's
// `history-damaged-archive`) is "refused" in the list, never a green "finished" — also when its line comes from
// the summary cache, which is keyed on the WAL alone and so must judge the archive again.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../src-shared/ipc.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { archivePath } from '../../src-main/engine/archive-format.js';
import { resolveTargets, verifyTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { CACHE_DIR_ENV } from '../../src-main/services/summary-cache.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-archive-status-');
const env_before = process.env[CACHE_DIR_ENV];
beforeEach(() => {
  process.env[CACHE_DIR_ENV] = tempDir();
});
afterEach(() => {
  if (env_before === undefined) delete process.env[CACHE_DIR_ENV];
  else process.env[CACHE_DIR_ENV] = env_before;
});

async function listOnce(root: string): Promise<{ byKey: Record<string, SessionSummary>; counts: SessionService['counts'] }> {
  const service = await SessionService.open(root, { watch: false });
  await service.whenRead();
  const sessions = await service.listSessions();
  await service.close();
  return { byKey: Object.fromEntries(sessions.map((session) => [session.key, session])), counts: { ...service.counts } };
}

const verifyOf = (root: string, id: string) => verifyTarget(resolveTargets(sessionDir(root, id))[0]!);

describe('a damaged archive in the list', () => {
  it('is refused, as verify refuses it, naming the archive and its offset; a good archive stays finished', async () => {
    const root = path.join(tempDir(), 'root');
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    expect(verifyOf(root, 'history-damaged-archive').archive?.error?.kind).toBe('archive_corruption');
    const { byKey } = await listOnce(root);
    expect(byKey['history-damaged-archive']).toMatchObject({ status: 'damaged', status_detail: expect.stringMatching(/^the session's archive is refused \(verify refuses the session; its live WAL reads\): archive corruption at offset \d+ /), attention: { kind: 'damaged' } });
    expect(verifyOf(root, 'history').archive?.error).toBeNull();
    expect(byKey['history']!.status).toBe('failed');
  });

  it('is refused when the line comes from the cache and the archive was damaged after it was cached', async () => {
    const root = path.join(tempDir(), 'root');
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    const first = await listOnce(root);
    expect(first.byKey['history']!.status).toBe('failed');
    const archive = archivePath(sessionDir(root, 'history'));
    const bytes = fs.readFileSync(archive);
    bytes[20] = bytes[20]! ^ 0x5a;
    fs.writeFileSync(archive, bytes);
    expect(verifyOf(root, 'history').archive?.error?.kind).toBe('archive_corruption');
    const second = await listOnce(root);
    // Every line but the one whose archive was already refused (never cached) came from the cache.
    expect(second.counts).toEqual({ sessions_read: 1, summaries_from_cache: Object.keys(first.byKey).length - 1 });
    expect(second.byKey['history']!.status).toBe('damaged');
  });
});

// One odd session folder never takes the root down (issue 13 H1, issue 9 "failure stays local"): a folder with
// no `wal`, one holding only a `lease`, a symlink to a folder, a damaged WAL, a fold that throws, and a WAL that
// appears under a temporary name while the service runs. Each shows its own cause in the list; the others keep
// answering.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionDetail, SessionSummary, WalscopeEvent } from '../../src-shared/ipc.js';
import { leasePath, sessionDir, sessionsDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished, writeIndeterminate } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-local-');
const opened: SessionService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

async function open(root: string, watch = false): Promise<SessionService> {
  const service = await SessionService.open(root, { watch, cache: false });
  opened.push(service);
  await service.whenWatching();
  await service.whenRead();
  return service;
}

function byKey(sessions: SessionSummary[]): Record<string, SessionSummary> {
  return Object.fromEntries(sessions.map((session) => [session.key, session]));
}

/** A root with two good sessions and `odd` beside them. */
function rootWith(odd: (root: string) => void): string {
  const root = tempDir();
  writeFinished(root, 'good-a');
  writeIndeterminate(root, 'good-b');
  odd(root);
  return root;
}

/** A session's detail once it is read (asking for one starts its read; the answer says `loading` until then). */
async function readDetail(service: SessionService, key: string): Promise<SessionDetail> {
  let detail = await service.getSession(key);
  await waitFor(async () => (detail = await service.getSession(key)).summary.status !== 'loading');
  return detail;
}

async function expectOthersUsable(service: SessionService): Promise<void> {
  const sessions = byKey(await service.listSessions());
  expect(sessions['good-a']!.status).toBe('completed');
  expect(sessions['good-b']!.status).toBe('needs_operator');
  const detail = await readDetail(service, 'good-b');
  expect(detail.integrity.error).toBeNull();
  const page = await service.getRows('good-b', 'timeline', 0, 50);
  expect(page.rows.length).toBeGreaterThan(0);
}

describe('failure stays local', () => {
  it('an empty session folder shows that it holds no WAL; the others work', async () => {
    const root = rootWith((r) => fs.mkdirSync(sessionDir(r, 'empty')));
    const service = await open(root);
    const empty = byKey(await service.listSessions())['empty']!;
    expect(empty.status).toBe('unreadable');
    expect(empty.status_detail).toMatch(/holds no "wal" file yet/);
    const detail = await readDetail(service, 'empty');
    expect(detail.integrity.error?.kind).toBe('io');
    expect(detail.rows).toEqual({ timeline: 0, records: 0, transcript: 0 });
    await expectOthersUsable(service);
  });

  it('a folder holding only a lease (a writer that died before creating its WAL)', async () => {
    const root = rootWith((r) => {
      fs.mkdirSync(sessionDir(r, 'lease-only'));
      fs.writeFileSync(leasePath(sessionDir(r, 'lease-only')), '');
    });
    const service = await open(root);
    expect(byKey(await service.listSessions())['lease-only']!.status_detail).toMatch(/holds no "wal" file yet/);
    expect((await service.previewAction('lease-only', 'resume')).refusal?.reason).toBe('refused_wal');
    await expectOthersUsable(service);
  });

  it('a symlink to a folder: read when it holds a WAL, its own error when it does not', async () => {
    const elsewhere = tempDir();
    writeFinished(elsewhere, 'real');
    fs.mkdirSync(path.join(elsewhere, 'no-wal'));
    const root = rootWith((r) => {
      fs.symlinkSync(sessionDir(elsewhere, 'real'), sessionDir(r, 'linked'));
      fs.symlinkSync(path.join(elsewhere, 'no-wal'), sessionDir(r, 'linked-empty'));
    });
    const service = await open(root);
    const sessions = byKey(await service.listSessions());
    expect(sessions['linked']!.status).toBe('completed');
    expect(sessions['linked-empty']!.status).toBe('unreadable');
    await expectOthersUsable(service);
  });

  it('a damaged WAL shows its refusal; the others work', async () => {
    const root = rootWith((r) => {
      writeFinished(r, 'damaged');
      const wal = walPath(sessionDir(r, 'damaged'));
      const bytes = fs.readFileSync(wal);
      bytes[40] = bytes[40]! ^ 0xff;
      fs.writeFileSync(wal, bytes);
    });
    const service = await open(root);
    const damaged = byKey(await service.listSessions())['damaged']!;
    expect(damaged.status).toBe('damaged');
    await expectOthersUsable(service);
  });

  it('a WAL that cannot be read at all (a folder where the file should be) is an I/O error of that session', async () => {
    const root = rootWith((r) => fs.mkdirSync(walPath(sessionDir(r, 'dir-wal')), { recursive: true }));
    const service = await open(root);
    const odd = byKey(await service.listSessions())['dir-wal']!;
    expect(odd.status).toBe('unreadable');
    expect(odd.status_detail).toMatch(/^cannot (open|read) /);
    await expectOthersUsable(service);
  });

  it('a WAL written under a temporary name and renamed while serving is picked up', async () => {
    const root = rootWith(() => undefined);
    const service = await open(root, true);
    const events: WalscopeEvent[] = [];
    service.subscribe((event) => events.push(event));
    const copy = sessionDir(root, 'copying');
    fs.mkdirSync(copy);
    const source = tempDir();
    writeFinished(source, 'copying');
    fs.copyFileSync(walPath(sessionDir(source, 'copying')), path.join(copy, 'wal.tmp-8123'));
    await waitFor(async () => byKey(await service.listSessions())['copying']?.status === 'unreadable');
    await expectOthersUsable(service);
    fs.renameSync(path.join(copy, 'wal.tmp-8123'), walPath(copy));
    await waitFor(async () => byKey(await service.listSessions())['copying']?.status === 'completed');
    const listed = (event: WalscopeEvent) => (event.type === 'sessions' ? event.sessions : event.type === 'summaries' ? event.changed : []);
    await waitFor(async () => events.some((event) => listed(event).some((session) => session.key === 'copying' && session.status === 'completed')));
    await expectOthersUsable(service);
  });

  it('a session whose sessions/ entry vanishes while listed is dropped, not a crash', async () => {
    const root = rootWith((r) => writeFinished(r, 'gone'));
    const service = await open(root, true);
    fs.rmSync(sessionDir(root, 'gone'), { recursive: true });
    await waitFor(async () => byKey(await service.listSessions())['gone'] === undefined);
    expect(fs.existsSync(sessionsDir(root))).toBe(true);
    await expectOthersUsable(service);
  });
});

async function waitFor(check: () => Promise<boolean>, timeout_ms = 10_000): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Several exports opened at once (`walscope serve a.wal b.wal`, `walscope serve FOLDER`): each file a session of
// its own, every one read-only (no action applies, every write refused), a file that cannot be read shown with
// its own cause beside the others, and nothing written in or beside the folder — checked by re-reading it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../src-shared/ipc.js';
import { exportTargets, TargetError } from '../../src-main/engine/inspect.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished, writeIndeterminate } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-exports-');
const opened: SessionService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

async function open(paths: string | string[]): Promise<SessionService> {
  const service = await SessionService.open(paths, { cache: false });
  opened.push(service);
  await service.whenRead();
  return service;
}

/** Every entry of `dir` (recursively) with its kind, size, mtime and bytes: "nothing written" is this, unchanged. */
function snapshot(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    const stat = fs.lstatSync(file);
    const bytes = stat.isFile() ? fs.readFileSync(file).toString('base64') : '';
    found[name] = `${stat.mode}:${stat.size}:${stat.mtimeMs}:${bytes}`;
  }
  found['.'] = String(fs.statSync(dir).mtimeMs);
  return found;
}

/** A folder of exports as support receives them: two good WALs, one that is not a WAL, a FIFO, a link to
 *  nothing, and a folder (not an export). */
function exportsFolder(): string {
  const root = tempDir();
  writeFinished(root, 'done');
  writeIndeterminate(root, 'unsure');
  const folder = path.join(tempDir(), 'from-customer');
  fs.mkdirSync(folder);
  fs.copyFileSync(walPath(sessionDir(root, 'done')), path.join(folder, 'done.wal'));
  fs.copyFileSync(walPath(sessionDir(root, 'unsure')), path.join(folder, 'unsure.wal'));
  fs.writeFileSync(path.join(folder, 'notes.txt'), 'the customer says it hung at step 3\n'.repeat(20));
  expect(spawnSync('mkfifo', [path.join(folder, 'pipe.wal')]).status).toBe(0);
  fs.symlinkSync(path.join(folder, 'gone.wal'), path.join(folder, 'dangling.wal'));
  fs.mkdirSync(path.join(folder, 'attachments'));
  return folder;
}

const byKey = (sessions: SessionSummary[]) => Object.fromEntries(sessions.map((session) => [session.key, session]));

describe('a folder of exports', () => {
  it('lists each file as a read-only session, each unreadable one with its own cause', async () => {
    const folder = exportsFolder();
    const before = snapshot(folder);
    const service = await open(folder);
    expect(await service.getWorkspace()).toEqual({ path: folder, kind: 'exports', read_only: true, not_sessions: ['attachments'] });
    const sessions = byKey(await service.listSessions());
    expect(Object.keys(sessions).sort()).toEqual(['dangling.wal', 'done.wal', 'notes.txt', 'pipe.wal', 'unsure.wal']);
    expect(sessions['done.wal']!.status).toBe('completed');
    expect(sessions['unsure.wal']!.status).toBe('needs_operator');
    // Text is not a WAL at all (wal-format §5 rule 0): refused by name, never a torn tail, in nobody's queue.
    expect(sessions['notes.txt']).toMatchObject({ status: 'not_a_wal', status_detail: expect.stringMatching(/^the file is not a WAL: it starts with [0-9a-f]{2} .*it looks like text/), torn_tail: null, attention: null });
    expect(sessions['pipe.wal']).toMatchObject({ status: 'unreadable', status_detail: expect.stringContaining('is a FIFO (named pipe), not a regular file') });
    expect(sessions['dangling.wal']).toMatchObject({ status: 'unreadable', status_detail: expect.stringMatching(/dangling\.wal/) });
    for (const key of Object.keys(sessions)) {
      const detail = await service.getSession(key);
      expect(detail.read_only).toBe(true);
      expect(detail.actions.filter((action) => action.applies)).toEqual([]);
    }
    // Every write the API offers is refused for an export, and refused without writing.
    for (const kind of ['resume', 'cancel', 'seal'] as const) {
      const preview = await service.previewAction('unsure.wal', kind);
      expect(preview.refusal?.reason).toBe('read_only');
      expect(await service.runAction('unsure.wal', kind, preview.based_on_seq, 'support looked at it', 'support')).toMatchObject({ ok: false, refusal: { reason: 'read_only' } });
    }
    expect((await service.previewRetire('done.wal', 'sealed')).refusal?.code).toBe('read_only');
    expect((await service.getReport('unsure.wal')).file.size_bytes).toBe(fs.statSync(path.join(folder, 'unsure.wal')).size);
    expect(snapshot(folder)).toEqual(before);
  });
});

describe('several export files', () => {
  it('opens them as one set under the folder holding them all; two of one name are told apart by path', async () => {
    const folder = exportsFolder();
    const other = path.join(path.dirname(folder), 'second-ticket');
    fs.mkdirSync(other);
    fs.copyFileSync(path.join(folder, 'unsure.wal'), path.join(other, 'done.wal'));
    const files = [path.join(folder, 'done.wal'), path.join(folder, 'unsure.wal'), path.join(other, 'done.wal')];
    const service = await open(files);
    expect(await service.getWorkspace()).toEqual({ path: path.dirname(folder), kind: 'exports', read_only: true, not_sessions: [] });
    const sessions = byKey(await service.listSessions());
    expect(Object.keys(sessions).sort()).toEqual([files[0], files[2], 'unsure.wal'].sort());
    expect(sessions[files[0]!]!.status).toBe('completed');
    expect(sessions[files[2]!]!.status).toBe(sessions['unsure.wal']!.status);
  });

  it('a missing file or a folder among them is named, before anything is opened', () => {
    const folder = exportsFolder();
    expect(() => exportTargets([path.join(folder, 'done.wal'), path.join(folder, 'nope.wal')])).toThrow(TargetError);
    expect(() => exportTargets([path.join(folder, 'done.wal'), path.join(folder, 'nope.wal')])).toThrow(/nope\.wal: no such file/);
    expect(() => exportTargets([path.join(folder, 'done.wal'), folder])).toThrow(/each a WAL file; a folder is opened alone/);
  });
});

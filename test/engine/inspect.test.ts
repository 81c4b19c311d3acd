// Read-only inspection: a copied session folder is an export, whatever its lease file says.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFileIO, type FileIO } from '../../src-main/engine/file-io.js';
import { readTarget, resolveTargets } from '../../src-main/engine/inspect.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-inspect-');

/** /proc/locks unreadable: the lease probe falls back to the tenure's pid on this host. */
const noProcLocks: FileIO = {
  ...nodeFileIO,
  open(file, mode) {
    if (file === '/proc/locks') throw Object.assign(new Error('EACCES: /proc/locks'), { code: 'EACCES' });
    return nodeFileIO.open(file, mode);
  },
};

describe('exports', () => {
  it("a session folder copied outside any root is never live, even when its lease names a live process here", () => {
    const root = tempDir();
    const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
    session.writer.append('turn_finished', { step_id: 1 });
    session.close();
    const copy = path.join(tempDir(), 's1');
    fs.cpSync(sessionDir(root, 's1'), copy, { recursive: true });
    const lease = path.join(copy, 'lease');
    fs.writeFileSync(lease, JSON.stringify({ epoch: 9, pid: process.pid, host: os.hostname(), acquired_ms: 1, writer: 'customer' }));
    const wal = path.join(copy, 'wal');
    fs.truncateSync(wal, fs.statSync(wal).size - 5);
    const [target] = resolveTargets(copy, noProcLocks);
    expect(target!.is_export).toBe(true);
    const result = readTarget(target!, { io: noProcLocks });
    expect(result.in_progress_tail).toBeNull();
    expect(result.torn_tail).toMatchObject({ reason: 'past_end' });
  });
});

// The app's retire (History panel) is a recovery action like the others: it takes the operator's reason, and the
// engine writes an operator_action into the retiring lineage first, in its own barrier, before the archive is
// touched. Checked on a copy of the demo root through the session service, by re-reading the disk.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { extractSealedLineage } from '../../src-main/engine/archive-member.js';
import { readHistory } from '../../src-main/engine/lineage-chain.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-retire-audit-');
const opened: SessionService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

const SESSION = 'history-no-index';
const REASON = 'ticket 81: archive the finished run before the disk is replaced';

async function openDemo(): Promise<{ root: string; service: SessionService }> {
  const root = path.join(tempDir(), 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  const service = await SessionService.open(root, { watch: false, cache: false });
  opened.push(service);
  return { root, service };
}

/** Every file of the session folder with its bytes: what "nothing written" is checked against. */
function folderBytes(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).sort().map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]));
}

describe('retire from the app', () => {
  it('refuses an empty reason and writes nothing', async () => {
    const { root, service } = await openDemo();
    const dir = sessionDir(root, SESSION);
    const preview = await service.previewRetire(SESSION, 'sealed');
    expect(preview.refusal).toBeNull();
    const before = folderBytes(dir);
    for (const reason of ['', '   ']) {
      const result = await service.runRetire(SESSION, 'sealed', preview.plan!, reason, 'operator-one');
      expect(result).toMatchObject({ ok: false, refusal: { code: 'audit', message: expect.stringMatching(/a reason is required.*nothing was written/) } });
    }
    expect(folderBytes(dir)).toEqual(before);
  });

  it('writes the operator_action first, into the lineage it seals (the member holds it last)', async () => {
    const { root, service } = await openDemo();
    const dir = sessionDir(root, SESSION);
    const preview = await service.previewRetire(SESSION, 'sealed');
    const live = preview.plan!.live;
    const result = await service.runRetire(SESSION, 'sealed', preview.plan!, REASON, 'operator-one');
    expect(result.ok).toBe(true);
    const sealed = readHistory(dir).lineages.find((lineage) => lineage.wal_id === live.wal_id)!;
    expect(sealed).toMatchObject({ where: 'sealed', last_seq: live.last_seq + 1 });
    const copy = extractSealedLineage(dir, live.wal_id);
    if (typeof copy === 'string') throw new Error(copy);
    try {
      const frames: { seq: number; type: string; payload: unknown }[] = [];
      const read = readWal(copy.file, { on_frame: (frame) => frames.push({ seq: frame.seq, type: frame.type, payload: frame.payload }) });
      expect(read.error).toBeNull();
      expect(read.torn_tail).toBeNull();
      // The last record of the sealed lineage is the audit record: nothing of the retire came before it.
      expect(frames.at(-1)).toMatchObject({
        seq: live.last_seq + 1,
        type: 'operator_action',
        payload: { action: 'retire', operator: 'operator-one', os_user: os.userInfo().username, reason: REASON, based_on_seq: live.last_seq, via: 'app' },
      });
    } finally {
      copy.dispose();
    }
    // The History panel names who retired it and why; the live successor and older lineages name nobody.
    const history = await service.getHistory(SESSION);
    expect(history.lineages.find((lineage) => lineage.wal_id === live.wal_id)!.retired_by).toMatchObject({ action: 'retire', operator: 'operator-one', os_user: os.userInfo().username, reason: REASON, via: 'app', based_on_seq: live.last_seq });
    expect(history.lineages.filter((lineage) => lineage.retired_by !== null)).toHaveLength(1);
  });

  it('a deleted lineage\'s retire stays in the session\'s recovery history, with the torn tail it cut and who: the successor names it', async () => {
    const { root, service } = await openDemo();
    const dir = sessionDir(root, SESSION);
    // A torn tail on the live lineage: the retire's writer cuts it (keeping its bytes) before its audit record.
    const wal = path.join(dir, 'wal');
    const intact = fs.statSync(wal).size;
    fs.appendFileSync(wal, Buffer.from('425741', 'hex'));
    const preview = await service.previewRetire(SESSION, 'deleted');
    expect(preview.plan!.live.torn_tail).toMatchObject({ offset: intact, bytes: 3 });
    const live = preview.plan!.live;
    expect(await service.runRetire(SESSION, 'deleted', preview.plan!, REASON, 'operator-two')).toMatchObject({ ok: true });
    // Its records are gone (a tombstone), the cut bytes kept beside the WAL, and the successor's lineage frame says so.
    const kept = `wal.torn-at-${intact}.broken`;
    expect(fs.readFileSync(path.join(dir, kept))).toEqual(Buffer.from('425741', 'hex'));
    const first: { payload: unknown }[] = [];
    readWal(wal, { on_frame: (frame) => first.push({ payload: frame.payload }) });
    expect(first).toHaveLength(1);
    const summary = (await service.listSessions()).find((entry) => entry.key === SESSION)!;
    expect(summary.recoveries).toEqual([
      expect.objectContaining({
        action: 'retire',
        operator: 'operator-two',
        os_user: os.userInfo().username,
        reason: REASON,
        via: 'app',
        based_on_seq: live.last_seq,
        retired: { wal_id: live.wal_id, reason: 'deleted', cuts: [{ of: 'wal', offset: intact, bytes: 3, kept_in: kept }] },
      }),
    ]);
  });
});

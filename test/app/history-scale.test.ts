// A session retired hourly holds 8,760 lineages after a year (issue 30, item 5). Its history is linear in them
// (a lookup by wal_id scanned every member, hex-encoding each: `lineages` of 20,000 took 58 s), and `serve`
// answers other calls while it reads one (getHistory held the session worker, and so every call for any
// session, for all of it: 21 s at 8,000). Counted and ordered, never timed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestMember, type ArchiveMember, type ArchiveScan } from '../../src-main/engine/archive-reader.js';
import { readHistory } from '../../src-main/engine/lineage-chain.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { writeLineageChain } from '../../scripts/bench-data.js';
import { serve, type Served } from './serve-harness.js';

const LINEAGES = 8_000;
// One root for the file's tests (written once: 8,000 members), removed after them.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-history-scale-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

beforeAll(() => {
  writeLineageChain(sessionDir(root, 'chain'), LINEAGES);
  const small = openSessionForWrite(root, 'small', { writer_name: 'test' });
  small.writer.append('run_started', { run_id: 'r1', session: 'small', config: {}, input: [] });
  small.close();
});

describe('a history of thousands of lineages', () => {
  it('latestMember indexes a scan once: a lookup for every member reads each wal_id a bounded number of times', () => {
    let reads = 0;
    const members = Array.from({ length: 2_000 }, (_, index) => {
      const wal_id = Uint8Array.from({ length: 16 }, (_, at) => (at < 2 ? (index >> (8 * at)) & 0xff : 0));
      const buffer = wal_id.buffer;
      // hex() reads the bytes through .buffer: counted here.
      Object.defineProperty(wal_id, 'buffer', { get: () => ((reads += 1), buffer) });
      return { wal_id } as ArchiveMember;
    });
    const scan = { members } as unknown as ArchiveScan;
    const ids = members.map((member) => Buffer.from(member.wal_id).toString('hex'));
    for (const id of ids) expect(latestMember(scan, id)).not.toBeNull();
    // A scan per lookup read ~n²/2 of them (2,001,000 here).
    expect(reads).toBeLessThanOrEqual(2 * members.length);
  });

  it(`reads a chain of ${LINEAGES.toLocaleString('en-US')} sealed lineages whole: every one listed, newest first, no problem`, () => {
    const history = readHistory(sessionDir(root, 'chain'));
    expect(history.problems).toEqual([]);
    expect(history.lineages).toHaveLength(LINEAGES + 1);
    expect(history.lineages.every((lineage, index) => lineage.where === (index === 0 ? 'live' : 'sealed'))).toBe(true);
    expect(history.lineages.slice(0, -1).every((lineage, index) => lineage.parent_wal_id === history.lineages[index + 1]!.wal_id)).toBe(true);
  });

  describe('serve', () => {
    let served: Served;
    beforeAll(async () => {
      served = await serve(root);
    });
    afterAll(() => served.stop());

    const call = async (method: string, args: unknown[]): Promise<unknown> => {
      const response = await fetch(`http://127.0.0.1:${served.port}/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-walscope-token': served.token },
        body: JSON.stringify({ args }),
      });
      expect(response.status, method).toBe(200);
      return response.json();
    };

    it('answers other calls while getHistory of that session is under way', async () => {
      await call('listSessions', []);
      let history_done = false;
      const history = call('getHistory', ['chain']).then((value) => ((history_done = true), value as { lineages: unknown[] }));
      // One call after another while the history is read: each waits for the one before, so with a worker
      // held for the whole history at most the first (sent before the history began) comes back meanwhile.
      let answered = 0;
      while (!history_done) {
        await call('getSession', ['small']);
        if (!history_done) answered += 1;
      }
      expect((await history).lineages).toHaveLength(LINEAGES + 1);
      expect(answered).toBeGreaterThanOrEqual(5);
    });
  });
});

// The service's read of a big session checks digests on one worker thread kept across its slices
// (engine/digest-runs.ts, services/session-service.ts): a stage of the one reader, so a sliced read with it
// must end exactly where, and as, one read hashing in place ends — the same error offset, the same torn-tail or
// corruption judgement, the same counts — and the worker must end on every path: the reads done, a refusal,
// the service closed in the middle of a read. Counted (workers started and ended, bytes hashed on the worker),
// never timed.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WalscopeEvent } from '../../src-shared/ipc.js';
import { digestWork } from '../../src-main/engine/digest.js';
import { digestWorkers } from '../../src-main/engine/digest-stage.js';
import { RunDigests } from '../../src-main/engine/digest-runs.js';
import { resolveTargets, VERIFY_DIGEST_WORKER_FILE_BYTES_MIN } from '../../src-main/engine/inspect.js';
import { readWal, type ReadResult } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { READ_SLICE_BYTES, READ_SLICE_BYTES_MAX } from '../../src-main/services/read-scheduler.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { SessionTailer } from '../../src-main/services/session-tailer.js';
import { longTailOutputBytes, writeSessionWal } from '../../scripts/bench-data.js';
import { lineageBody, recordBody, walBytes } from '../helpers/wal-bytes.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-read-digest-worker-');
const MIB = 1_048_576;
const SLICE_BYTES = 2 * MIB;
const TEST_MS_MAX = 120_000;

const services: SessionService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

/** Runs of small records between outputs of 300–900 KB, over several slices and read chunks: frames end at,
 *  cross and fill slice and chunk boundaries. */
function slicedWal(): { bytes: Buffer; offsets: number[] } {
  const bodies = [lineageBody()];
  for (let seq = 1; bodies.length < 60; seq++) {
    const output = seq % 3 === 0 ? 'x'.repeat(300_000 + ((seq * 77_777) % 600_000)) : `out ${seq}`;
    bodies.push(recordBody(seq, 'tool_result', { batch_id: 'b1', tool_call_id: `c${seq}`, outcome: 'completed', output, is_error: false }));
  }
  const bytes = walBytes(bodies);
  const offsets: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += 44 + bytes.readUInt32LE(offset + 8)) offsets.push(offset);
  return { bytes, offsets };
}

/** `file` read by a tailer in slices of SLICE_BYTES, on `worker` when there is one. */
function slicedRead(file: string, worker?: RunDigests): { read: ReadResult; slices: number } {
  const tailer = new SessionTailer(resolveTargets(file)[0]!);
  let slices = 1;
  while (!tailer.refresh(undefined, { slice_bytes: SLICE_BYTES, ...(worker === undefined ? {} : { digest_worker: worker }) }).complete) slices++;
  return { read: tailer.read!, slices };
}

async function open(root: string): Promise<SessionService> {
  const service = await SessionService.open(root, { watch: false, cache: false });
  services.push(service);
  return service;
}

function bigSession(seed: number): { root: string; wal: string } {
  const root = tempDir();
  const wal = walPath(sessionDir(root, 's'));
  writeSessionWal(wal, { seed, size_bytes_target: 40 * MIB, outputBytes: longTailOutputBytes });
  expect(fs.statSync(wal).size).toBeGreaterThan(Math.max(VERIFY_DIGEST_WORKER_FILE_BYTES_MIN, 4 * READ_SLICE_BYTES));
  return { root, wal };
}

describe('a sliced read on a digest worker kept across its slices', () => {
  const { bytes, offsets } = slicedWal();

  it('ends as one read in place does, whole, damaged in each frame in turn or cut mid-frame, on one worker', () => {
    expect(bytes.length).toBeGreaterThan(5 * SLICE_BYTES);
    const file = path.join(tempDir(), 'export.wal');
    const cut_frame = offsets.findLast((offset, index) => (offsets[index + 1] ?? bytes.length) - offset > MIB / 4)!;
    const variants: { label: string; bytes: Buffer }[] = [
      { label: 'whole', bytes },
      { label: 'cut 1,000 bytes into the last large frame', bytes: bytes.subarray(0, cut_frame + 1_000) },
    ];
    for (const [index, offset] of offsets.entries()) {
      const damaged = Buffer.from(bytes);
      // Header, body and stored digest each get their turn.
      damaged[offset + ((index * 7_919) % ((offsets[index + 1] ?? bytes.length) - offset))]! ^= 0x01;
      variants.push({ label: `a byte flipped in the frame at ${offset}`, bytes: damaged });
    }
    const started = digestWorkers.started;
    const worker_hashed_before = digestWork.worker_hashed_bytes;
    // Not waited for, as the service starts it: the first reads hash in place until it runs, the later ones on it.
    const worker = new RunDigests();
    try {
      for (const variant of variants) {
        fs.writeFileSync(file, variant.bytes);
        // The service reads a target (inspect.ts readTarget), which also says who held its lease: no one, for an export.
        const in_place = { ...readWal(file, { with_payload: false }), live_holder: null };
        const sliced_in_place = slicedRead(file).read;
        const { read, slices } = slicedRead(file, worker);
        expect(sliced_in_place, variant.label).toEqual(in_place);
        expect(read, variant.label).toEqual(in_place);
        if (variant.label === 'whole') expect(slices).toBeGreaterThan(4);
      }
    } finally {
      worker.close();
    }
    // One worker for every slice of all those reads, and it took part (which frames it hashed depends on
    // scheduling; that it hashed some over 62 reads does not).
    expect(digestWorkers.started).toBe(started + 1);
    expect(digestWorkers.ended).toBe(digestWorkers.started);
    expect(digestWork.worker_hashed_bytes).toBeGreaterThan(worker_hashed_before);
  });
});

describe("the service's background read of a big session", () => {
  it('starts one digest worker for all its slices and ends it once every session is read', async () => {
    const { root, wal } = bigSession(97);
    const in_place = readWal(wal, { with_payload: false });
    const started = digestWorkers.started;
    const worker_hashed_before = digestWork.worker_hashed_bytes;
    const service = await open(root);
    await service.whenRead();
    // The read's last turn ends the worker in the turn after it, as soon as no session needs a read.
    await new Promise((resolve) => setImmediate(resolve));
    expect(digestWorkers.started).toBe(started + 1);
    expect(digestWorkers.ended).toBe(digestWorkers.started);
    expect(digestWork.worker_hashed_bytes).toBeGreaterThan(worker_hashed_before);
    const [summary] = await service.listSessions();
    expect(summary).toMatchObject({ status: 'completed', records: in_place.records, last_seq: in_place.last_seq, size_bytes: in_place.bytes });
  }, TEST_MS_MAX);

  it('reports its progress once per slice, not every few MiB inside one', async () => {
    const { root, wal } = bigSession(96);
    const size = fs.statSync(wal).size;
    let slices = 0;
    for (let covered = 0; covered < size; slices++) covered += Math.min(READ_SLICE_BYTES_MAX, READ_SLICE_BYTES * 2 ** slices);
    const service = await open(root);
    const reports: { done_bytes: number; finished: boolean }[] = [];
    const stop = service.subscribe((event: WalscopeEvent) => {
      if (event.type === 'progress') reports.push({ done_bytes: event.progress.done_bytes, finished: event.progress.finished });
    });
    await service.whenRead();
    stop();
    // Each slice short of the end reports where it stopped; the last one reports the read finished.
    expect(reports.filter((report) => report.finished)).toEqual([{ done_bytes: size, finished: true }]);
    expect(reports.filter((report) => !report.finished).length).toBeLessThanOrEqual(slices - 1);
  }, TEST_MS_MAX);

  it('refuses a WAL damaged in its middle at the offset the read in place finds, and ends the worker', async () => {
    const { root, wal } = bigSession(98);
    const damaged = fs.readFileSync(wal);
    damaged[Math.floor(damaged.length / 2)]! ^= 0x55;
    fs.writeFileSync(wal, damaged);
    const in_place = readWal(wal, { with_payload: false });
    expect(in_place.error?.kind).toBe('non_tail_corruption');
    const started = digestWorkers.started;
    const service = await open(root);
    await service.whenRead();
    await new Promise((resolve) => setImmediate(resolve));
    expect(digestWorkers.started).toBe(started + 1);
    expect(digestWorkers.ended).toBe(digestWorkers.started);
    const [summary] = await service.listSessions();
    expect(summary).toMatchObject({ status: 'damaged', records: in_place.records, last_seq: in_place.last_seq, size_bytes: in_place.bytes });
    expect(summary!.status_detail).toContain(in_place.error!.message);
  }, TEST_MS_MAX);

  it('ends the worker when the service closes in the middle of the read', async () => {
    const { root, wal } = bigSession(99);
    const size = fs.statSync(wal).size;
    const started = digestWorkers.started;
    const service = await open(root);
    // Past the first slices, with the worker started, and short of the end.
    await new Promise<void>((resolve) => {
      const stop = service.subscribe((event: WalscopeEvent) => {
        if (event.type !== 'progress' || event.progress.done_bytes < 2 * READ_SLICE_BYTES) return;
        stop();
        resolve();
      });
    });
    expect(digestWorkers.started).toBe(started + 1);
    expect((await service.listSessions())[0]!.status).toBe('loading');
    expect(size).toBeGreaterThan(4 * READ_SLICE_BYTES);
    await service.close();
    expect(digestWorkers.ended).toBe(digestWorkers.started);
  }, TEST_MS_MAX);
});

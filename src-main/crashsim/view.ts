// A read-only look at a simulated disk, as the next process (or an inspector) would see it: the WAL's raw
// bytes, the reader's verdict, the replay library's fold, the fences in file order, the feature floor and the
// lease's tenure. It mounts the disk as a process of its own that never writes.
import type { SessionFold } from '../../src-shared/replay.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import {
  describe, readFloor, readTenureFile, readWal, type ReadResult, leasePath, sessionDir, walPath,
} from '../engine/index.js';
import { SessionFolder } from '../replay/fold.js';
import type { Sums } from '../replay/sums.js';
import { integer, text, toJsonPayload } from '../replay/values.js';
import type { SimDisk } from './disk.js';
import { SimProcess } from './sim-io.js';

/** The state root's name in every simulated disk's namespace. */
export const SIM_ROOT = 'root';

export interface DiskView {
  wal_bytes: Buffer;
  /** null when there is no WAL (never created, or its name was never made durable). */
  read: ReadResult | null;
  fold: SessionFold;
  /** What the fold's classification derived (its folder's store): the checks' renderings take it on. */
  sums: Sums;
  fences: number[];
  /** Every intact frame's type, by seq (lineage frames at 0). */
  types: Map<number, string>;
  /** Every model_attempt_finished: the digest of the request the runtime says it sent (hex), by seq. */
  sent_requests: { seq: number; step_id: number; request_sha256: string }[];
  floor: { names: string[] } | { error: string };
  lease_epoch: number | null;
}

export function viewDisk(disk: SimDisk, session_id: string): DiskView {
  const process = new SimProcess(disk, null);
  const root = process.at(SIM_ROOT);
  const dir = sessionDir(root, session_id);
  let floor: DiskView['floor'];
  try {
    floor = { names: readFloor(root, process.io) };
  } catch (error) {
    floor = { error: describe(error) };
  }
  const folder = new SessionFolder();
  const fences: number[] = [];
  const types = new Map<number, string>();
  const sent_requests: DiskView['sent_requests'] = [];
  const wal_bytes = process.currentBytes(walPath(dir)) ?? Buffer.alloc(0);
  const read =
    wal_bytes.length === 0
      ? null
      : readWal(walPath(dir), {
          io: process.io,
          floor_features: 'names' in floor ? floor.names : [],
          on_frame: (frame) => {
            folder.push(frame);
            fences.push(frame.fence);
            types.set(frame.seq, frame.type);
            if (frame.type === 'model_attempt_finished') sent_requests.push(sentRequest(frame));
          },
        });
  const tenure = process.currentBytes(leasePath(dir)) === null ? null : readTenureFile(process.io, leasePath(dir));
  return { wal_bytes, read, fold: folder.snapshot(), sums: folder.sums, fences, types, sent_requests, floor, lease_epoch: tenure?.epoch ?? null };
}

function sentRequest(frame: ReadFrame): DiskView['sent_requests'][number] {
  const payload = toJsonPayload(frame.payload ?? {});
  return { seq: frame.seq, step_id: integer(payload, 'step_id') ?? 0, request_sha256: text(payload, 'request_sha256') ?? '' };
}

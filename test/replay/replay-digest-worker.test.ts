// `replay` (recovery/replay-target.ts) checks a big WAL's frames on a digest worker (engine/digest-runs.ts),
// while its own thread folds: the same read and fold as hashing in place, the hashing counted on the worker,
// and the worker ended with the read. Counted, never timed.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { digestWork } from '../../src-main/engine/digest.js';
import { digestWorkers } from '../../src-main/engine/digest-stage.js';
import { resolveTargets, VERIFY_DIGEST_WORKER_FILE_BYTES_MIN } from '../../src-main/engine/inspect.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { longTailOutputBytes, writeSessionWal } from '../../scripts/bench-data.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-replay-digest-worker-');
const TEST_MS_MAX = 120_000;
/** Reads of the same WAL at most, until the worker has hashed some of it. */
const READS_MAX = 10;

describe('replay of a big WAL', () => {
  it('hashes its frames on a digest worker, reads as hashing in place does, and ends the worker', () => {
    const root = tempDir();
    const wal = walPath(sessionDir(root, 's'));
    writeSessionWal(wal, { seed: 94, size_bytes_target: VERIFY_DIGEST_WORKER_FILE_BYTES_MIN + 4 * 1_048_576, outputBytes: longTailOutputBytes });
    expect(fs.statSync(wal).size).toBeGreaterThanOrEqual(VERIFY_DIGEST_WORKER_FILE_BYTES_MIN);
    const in_place = readWal(wal, { with_payload: false });
    const worker_hashed_before = digestWork.worker_hashed_bytes;
    // The worker is not waited for: a read may end before it gets a core (a loaded CI machine did once), and
    // every frame is then hashed in place. Each read must start and end its worker and read as in place does;
    // the worker must take part in some read of a few.
    for (let read = 0; read < READS_MAX && digestWork.worker_hashed_bytes === worker_hashed_before; read++) {
      const started = digestWorkers.started;
      const replay = replayTarget(resolveTargets(sessionDir(root, 's'))[0]!);
      expect(digestWorkers.started).toBe(started + 1);
      expect(digestWorkers.ended).toBe(digestWorkers.started);
      expect(replay.read).toMatchObject({ error: null, records: in_place.records, last_seq: in_place.last_seq, bytes: in_place.bytes });
      expect(replay.fold.episodes.length).toBeGreaterThan(0);
    }
    expect(digestWork.worker_hashed_bytes).toBeGreaterThan(worker_hashed_before);
  }, TEST_MS_MAX);
});

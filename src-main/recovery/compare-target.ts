// Two WALs read into their comparison (replay/compare.ts), read-only as `verify` and `replay` read them: each
// folded in one pass, then both compared step by step, each through one open file reading ahead, each step's
// payloads read back as it is compared. `firstDivergenceOf` reads both in growing prefixes instead and stops at
// the first divergence no later record can change (`diff --first`).
import fs from 'node:fs';
import type { CompareJson, CompareSideJson } from '../../src-shared/compare.js';
import type { SessionFold } from '../../src-shared/replay.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import { cappedFileIO, nodeFileIO, readTarget, type ReadCheckpoint, type TargetRead, type WalTarget } from '../engine/index.js';
import { compareSessions, divergenceSettled, upToFirstDivergence, type CompareInput, type CompareOptions } from '../replay/compare.js';
import { compareSide, stoppedSide } from '../replay/compare-side.js';
import { SessionFolder } from '../replay/fold.js';
import type { PayloadReader } from '../replay/payloads.js';
import { withPayloadPass } from './payloads.js';
import { replayTarget } from './replay-target.js';

/** One side: the WAL to read, the name it was given, and the archive member it is a copy of (SESSION@WAL_ID). */
export interface CompareTarget {
  name: string;
  target: WalTarget;
  member: string | null;
}

export function compareTargets(a: CompareTarget, b: CompareTarget, options: CompareOptions): CompareJson {
  const [replay_a, replay_b] = [replayTarget(a.target), replayTarget(b.target)];
  const side_a = compareSide(a.name, a.target.session, a.member, replay_a);
  const side_b = compareSide(b.name, b.target.session, b.member, replay_b);
  return withPayloadPass(a.target.wal_path, (payloads_a) =>
    withPayloadPass(b.target.wal_path, (payloads_b) =>
      compareSessions({ side: side_a, fold: replay_a.fold, payloads: payloads_a, sums: replay_a.sums }, { side: side_b, fold: replay_b.fold, payloads: payloads_b, sums: replay_b.sums }, options),
    ),
  );
}

/** The first prefix of each side `firstDivergenceOf` reads; each next one is twice as long. */
const FIRST_PREFIX_BYTES = 4 * 1_048_576;
/** Prefixes read before a side is read whole: 4 MiB doubled 9 times is 1 GiB, the format's ceiling. */
const PREFIX_ROUNDS_MAX = 10;

/** The comparison up to the first divergence: both sides read and compared in prefixes that double until the
 *  divergence they show is settled (`divergenceSettled`) or both are read whole. A side read in part says so
 *  (trust `stopped`); the steps listed are those up to the divergence, whatever was read. Two sessions that are the same are read
 *  whole, as `compareTargets` reads them. */
export function firstDivergenceOf(a: CompareTarget, b: CompareTarget, options: CompareOptions): CompareJson {
  const [side_a, side_b] = [new PrefixSide(a), new PrefixSide(b)];
  return withPayloadPass(a.target.wal_path, (payloads_a) =>
    withPayloadPass(b.target.wal_path, (payloads_b) => {
      for (let round = 0; ; round++) {
        const cap_bytes = round + 1 >= PREFIX_ROUNDS_MAX ? Infinity : FIRST_PREFIX_BYTES * 2 ** round;
        const [ra, rb] = [side_a.readTo(cap_bytes), side_b.readTo(cap_bytes)];
        const comparison = compareSessions(side_a.input(ra, payloads_a), side_b.input(rb, payloads_b), options);
        const settled = divergenceSettled(comparison, { fold: ra.fold, whole: side_a.whole }, { fold: rb.fold, whole: side_b.whole });
        if (!settled && !(side_a.whole && side_b.whole)) continue;
        return { ...upToFirstDivergence(comparison), a: side_a.reported(comparison.a), b: side_b.reported(comparison.b) };
      }
    }),
  );
}

/** One side read in prefixes: a folder fed slice by slice from the last read's checkpoint. */
class PrefixSide {
  private readonly folder = new SessionFolder();
  private readonly size_bytes: number;
  private checkpoint: ReadCheckpoint | null = null;
  private last: SidePrefix | null = null;
  /** Read to its end, or to a refusal past which nothing is trusted. */
  whole = false;

  constructor(private readonly side: CompareTarget) {
    this.size_bytes = fs.statSync(side.target.wal_path).size;
  }

  /** Reads on up to `cap_bytes` of the file and folds what it read. */
  readTo(cap_bytes: number): SidePrefix {
    if (this.whole && this.last !== null) return this.last;
    const capped = cap_bytes < this.size_bytes;
    const io = capped ? cappedFileIO(nodeFileIO, cap_bytes) : nodeFileIO;
    const on_frame = (frame: ReadFrame, payload_cbor: Buffer, kept?: unknown) => this.folder.push(frame, payload_cbor, kept);
    const read = readTarget(this.side.target, { io, with_payload: false, decode_payload: this.folder.decodePayload, on_frame, ...(this.checkpoint === null ? {} : { from: this.checkpoint }) });
    const refused = read.error === null && this.folder.refusal !== null ? { ...read, error: this.folder.refusal, checkpoint: null } : read;
    this.checkpoint = refused.checkpoint;
    this.whole = !capped || refused.checkpoint === null;
    this.last = { read: refused, fold: this.folder.snapshot() };
    return this.last;
  }

  /** The side as compared this round: a prefix is compared as if whole (where it stops is no difference); the
   *  result says how far it was read (`reported`). */
  input(prefix: SidePrefix, payloads: PayloadReader): CompareInput {
    const side = compareSide(this.side.name, this.side.target.session, this.side.member, prefix);
    return { side: this.whole ? side : { ...side, trust: 'whole', trust_words: null }, fold: prefix.fold, payloads, sums: this.folder.sums };
  }

  reported(side: CompareSideJson): CompareSideJson {
    return this.whole ? side : stoppedSide(side, this.size_bytes);
  }
}

interface SidePrefix {
  read: TargetRead;
  fold: SessionFold;
}

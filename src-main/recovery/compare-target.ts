// Two WALs read into their comparison (replay/compare.ts), read-only as `verify` and `replay` read them: each
// folded in one pass, then both compared step by step, each through one open file reading ahead, each step's
// payloads read back as it is compared.
import type { CompareJson } from '../../src-shared/compare.js';
import type { WalTarget } from '../engine/index.js';
import { compareSessions, type CompareOptions } from '../replay/compare.js';
import { compareSide } from '../replay/compare-side.js';
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
      compareSessions({ side: side_a, fold: replay_a.fold, payloads: payloads_a }, { side: side_b, fold: replay_b.fold, payloads: payloads_b }, options),
    ),
  );
}

// A session's history for the app (wal-format §11): the lineage chain, its problems, and the archive's
// integrity, read exactly as `walscope lineages` and `verify` read them. Read-only; a bare WAL file (an export
// of one lineage) has no history beyond itself.
import type { SessionHistory } from '../../src-shared/ipc.js';
import { readFloor } from '../engine/feature-floor.js';
import type { WalTarget } from '../engine/inspect.js';
import { probeLease } from '../engine/lease.js';
import { readHistory } from '../engine/lineage-chain.js';
import { walPath } from '../engine/state-root.js';

export function historyOf(target: WalTarget): SessionHistory {
  const dir = target.session_dir;
  if (dir === null || target.member !== undefined || target.wal_path !== walPath(dir)) return { lineages: [], problems: [], archive: null };
  const live = target.root !== null && probeLease(dir).state === 'live';
  const history = readHistory(dir, { floor_features: target.root === null ? [] : readFloor(target.root), live });
  const scan = history.archive;
  const archive = scan.present || scan.index !== 'missing'
    ? {
        index: scan.index,
        members: scan.members.length,
        torn_tail: scan.torn_tail === null ? null : { offset: scan.torn_tail.offset, bytes: scan.torn_tail.bytes },
        error: scan.error,
        damaged_members: history.problems.flatMap((problem) => (problem.kind === 'member_damaged' ? [problem.wal_id] : [])),
      }
    : null;
  return {
    lineages: history.lineages.map(({ offset: _offset, ...lineage }) => lineage),
    problems: history.problems.map((problem) => ({ kind: problem.kind, message: problem.message })),
    archive,
  };
}

// How each demo session is made. Every one is written by the reference runtime; a crash is a process that
// dies at a chosen record (halt-io), and the two refused sessions are runtime-written WALs with one frame
// added (a newer writer's) or one byte damaged (a bad sector in the middle).
import {
  approvalsSession,
  basicSession,
  call,
  cancelNowSession,
  compactionSession,
  done,
  maxStepsSession,
  parallelUnknownSession,
  run,
  steerQueueSession,
} from '../runtime/catalog.js';
import { codingAgentSession, longRunSession } from '../runtime/catalog-agents.js';
import type { HaltRule } from '../runtime/halt-io.js';
import type { SessionScript } from '../runtime/script.js';
import type { RetireReason } from '../engine/index.js';
import type { ArchiveState } from './history.js';
import type { DemoSessionId } from './sessions.js';
import type { Finding } from '../../src-shared/replay.js';

export type Recipe =
  | { kind: 'script'; script: SessionScript; halt?: HaltRule }
  /** The script runs once per lineage (its run ids suffixed by the lineage's number); all but the last retired. */
  | { kind: 'history'; script: SessionScript; retired: RetireReason[]; archive: ArchiveState }
  | { kind: 'damaged'; script: SessionScript; damage: 'newer_writer' | 'corrupt_middle' }
  /** The script runs to its end, then its owner records what they found for a call of unknown outcome. */
  | { kind: 'acknowledged'; script: SessionScript; tool_call_id: string; finding: Finding; reason: string }
  /** Not a WAL: this text where the session's WAL should be. */
  | { kind: 'not_a_wal'; text: string }
  | { kind: 'live'; steps: number };

const as = (session_id: string, script: SessionScript): SessionScript => ({ ...script, session_id });

const heldSequential: SessionScript = {
  session_id: 'held-sequential',
  runs: [
    run('r1', [
      {
        sequential: true,
        calls: [
          call('hs1', done('read the release notes'), { name: 'read' }),
          call('hs2', { kind: 'held', late_output: null }, { name: 'request_review' }),
          call('hs3', done('published'), { name: 'publish' }),
        ],
      },
    ]),
  ],
};

export const RECIPES: Record<DemoSessionId, Recipe> = {
  finished: { kind: 'script', script: as('finished', basicSession) },
  'natural-end': { kind: 'script', script: as('natural-end', basicSession), halt: { before_type: 'run_finished' } },
  // c1's result is synced (a parallel batch syncs each result); the process dies after c2 was dispatched.
  indeterminate: { kind: 'script', script: as('indeterminate', basicSession), halt: { before_type: 'tool_result', nth: 2 } },
  'parallel-unknown': { kind: 'script', script: { session_id: 'parallel-unknown', runs: parallelUnknownSession.runs.slice(0, 1) } },
  'held-sequential': { kind: 'script', script: heldSequential },
  cancelled: { kind: 'script', script: as('cancelled', cancelNowSession) },
  'max-steps': { kind: 'script', script: as('max-steps', maxStepsSession) },
  'steered-queued': { kind: 'script', script: as('steered-queued', steerQueueSession) },
  approvals: { kind: 'script', script: as('approvals', approvalsSession) },
  'compaction-ceiling': { kind: 'script', script: as('compaction-ceiling', compactionSession) },
  'coding-agent': { kind: 'script', script: as('coding-agent', codingAgentSession) },
  'long-run': { kind: 'script', script: as('long-run', longRunSession) },
  'torn-tail': { kind: 'script', script: as('torn-tail', basicSession), halt: { before_type: 'run_finished', keep_bytes: 29 } },
  'newer-writer': { kind: 'damaged', script: as('newer-writer', basicSession), damage: 'newer_writer' },
  'corrupt-middle': { kind: 'damaged', script: as('corrupt-middle', basicSession), damage: 'corrupt_middle' },
  live: { kind: 'live', steps: 3 },
  history: { kind: 'history', script: as('history', compactionSession), retired: ['sealed', 'deleted'], archive: 'index_valid' },
  'history-stale-index': { kind: 'history', script: as('history-stale-index', basicSession), retired: ['sealed', 'sealed'], archive: 'index_stale' },
  'history-no-index': { kind: 'history', script: as('history-no-index', basicSession), retired: ['deleted', 'sealed'], archive: 'index_missing' },
  'history-torn-archive': { kind: 'history', script: as('history-torn-archive', basicSession), retired: ['deleted', 'sealed'], archive: 'torn_tail' },
  'history-damaged-archive': { kind: 'history', script: as('history-damaged-archive', basicSession), retired: ['sealed', 'deleted'], archive: 'damaged_header' },
  checked: {
    kind: 'acknowledged',
    script: { session_id: 'checked', runs: parallelUnknownSession.runs.slice(0, 1) },
    tool_call_id: 'u1',
    finding: 'not_applied',
    reason: 'the payment provider shows no charge for u1',
  },
  'not-a-wal': { kind: 'not_a_wal', text: 'Incident notes, 14:02: the agent stopped mid-run; the WAL is attached separately.\n' },
};

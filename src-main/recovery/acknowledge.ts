// Recording what the owner found when checking a call whose outcome the WAL leaves unknown (wal-format §6
// acknowledgements): one operator_action {action: "acknowledge", call, finding}, appended alone, under the lease,
// in a barrier of its own, to a session of a state root that no live writer holds. It changes no class, no plan
// and nothing replay renders; it is what turns "finished, unconfirmed" into "finished, checked".
//
// Like the recovery actions it looks twice: without the lease for the preview (a refusal writes nothing, not even
// the lineage frame every writer appends at open), then under the lease from a fresh read, where the call must
// still be of unknown outcome and the WAL still at the seq the operator confirmed.
import type { CallFold, Finding, PlannedRecord, SessionFold } from '../../src-shared/replay.js';
import type { TornTail } from '../../src-shared/wal.js';
import { nodeFileIO, type FileIO, sessionDir, walPath, tornTailCopyPath } from '../engine/index.js';
import { auditProblem, lookWithoutLease, operatorActionRecord, underLease, type OperatorAudit, type Refusal, type TailRepairPlan } from './actions.js';
import { mayHave } from '../replay/signals.js';

/** The call an acknowledgement names: its tool_call_id, and its batch when the id alone is ambiguous. */
export interface CallChoice {
  tool_call_id: string;
  batch_id: string | null;
}

/** The call found, as the confirmation names it. */
export interface AcknowledgedCall {
  episode: number;
  batch_id: string;
  tool_call_id: string;
  name: string;
  /** What may have happened and what to check ("edit_file c2.txt may have been applied — check c2.txt"). */
  may_have: string;
}

export interface AcknowledgePreview {
  kind: 'plan';
  call: AcknowledgedCall;
  finding: Finding;
  /** The WAL's last seq the preview was made from: the write is refused if the WAL has moved on. */
  based_on_seq: number;
  /** The torn tail the writer truncates first (its bytes kept in `copy_path`), as every writer does at open. */
  tail_repair: TailRepairPlan | null;
}

export type AcknowledgeOutcome = { kind: 'done'; call: AcknowledgedCall; record: PlannedRecord; seq: number; epoch: number } | Refusal;

export interface AcknowledgeOptions {
  io?: FileIO;
  /** The WAL's last seq the operator confirmed from (the preview's): anything appended since refuses the write. */
  based_on_seq?: number;
  now_ms?: () => number;
}

export function previewAcknowledge(root: string, session_id: string, choice: CallChoice, finding: Finding, io: FileIO = nodeFileIO): AcknowledgePreview | Refusal {
  const looked = lookWithoutLease(root, session_id, io);
  if (looked.kind !== 'fold') return looked;
  const found = unknownOutcomeCall(looked.fold, choice);
  if (found.kind !== 'call') return found;
  return { kind: 'plan', call: found.call, finding, based_on_seq: looked.fold.last_seq, tail_repair: tailRepair(root, session_id, looked.torn_tail) };
}

export function acknowledgeCall(root: string, session_id: string, choice: CallChoice, finding: Finding, audit: OperatorAudit, options: AcknowledgeOptions = {}): AcknowledgeOutcome {
  const io = options.io ?? nodeFileIO;
  const problem = auditProblem(audit);
  if (problem !== null) return { kind: 'refused', message: `${problem}: nothing was appended` };
  const preview = previewAcknowledge(root, session_id, choice, finding, io);
  if (preview.kind !== 'plan') return preview;
  const based_on_seq = options.based_on_seq ?? preview.based_on_seq;
  if (preview.based_on_seq !== based_on_seq) return moved(based_on_seq, preview.based_on_seq);
  return underLease(root, session_id, io, 'walscope-acknowledge', (fold) => {
    if (fold.last_seq !== based_on_seq) return moved(based_on_seq, fold.last_seq);
    const found = unknownOutcomeCall(fold, choice);
    if (found.kind !== 'call') return found;
    const call = { batch_id: found.call.batch_id, tool_call_id: found.call.tool_call_id };
    const record = operatorActionRecord('acknowledge', audit, based_on_seq, (options.now_ms ?? Date.now)(), { call, finding });
    return (writer) => {
      const { seq } = writer.append(record.type, record.payload);
      writer.barrier();
      return { kind: 'done' as const, call: found.call, record, seq, epoch: writer.fence };
    };
  });
}

/** The call `choice` names, if its outcome is unknown (class indeterminate: an intent without a terminal, or a
 *  tool_result whose outcome is unknown); else why it cannot be acknowledged. */
export function unknownOutcomeCall(fold: SessionFold, choice: CallChoice): { kind: 'call'; call: AcknowledgedCall } | Refusal {
  const matches: AcknowledgedCall[] = [];
  let known: CallFold | null = null;
  for (const episode of fold.episodes) {
    for (const batch of episode.batches) {
      if (choice.batch_id !== null && batch.batch_id !== choice.batch_id) continue;
      for (const call of batch.calls) {
        if (call.tool_call_id !== choice.tool_call_id) continue;
        if (call.class !== 'indeterminate') known = call;
        else matches.push({ episode: episode.episode, batch_id: batch.batch_id, tool_call_id: call.tool_call_id, name: call.name, may_have: mayHave(call) });
      }
    }
  }
  const named = `call ${choice.tool_call_id}${choice.batch_id === null ? '' : ` of batch ${choice.batch_id}`}`;
  if (matches.length === 1) return { kind: 'call', call: matches[0]! };
  if (matches.length > 1) return { kind: 'refused', message: `${named} is in ${matches.length} batches (${matches.map((call) => call.batch_id).join(', ')}): name the batch; nothing was appended` };
  if (known !== null) return { kind: 'refused', message: `${named} has a known outcome (class ${known.class}): there is nothing to acknowledge; nothing was appended` };
  return { kind: 'refused', message: `${named} is not in this WAL: nothing was appended` };
}

function tailRepair(root: string, session_id: string, torn: TornTail | null): TailRepairPlan | null {
  if (torn === null) return null;
  return { offset: torn.offset, bytes: torn.bytes, copy_path: tornTailCopyPath(walPath(sessionDir(root, session_id)), torn.offset) };
}

function moved(confirmed_seq: number, now_seq: number): Refusal {
  return { kind: 'refused', message: `the WAL changed since the call was shown (seq ${confirmed_seq} → ${now_seq}): nothing was appended; look again and confirm` };
}

// The committable-batch check (contract §4): a batch commits only when every planned call has exactly one
// terminal, nothing is duplicated, no record names a call the batch did not plan, and the batch matches its
// step's tool calls in source order. Violations are anomalies with the seqs involved; nothing here throws,
// because an inspector must show a damaged session, not refuse to look at it.
import type { Anomaly, AnomalyKind, BatchFold, EpisodeFold, Live, StepFold } from '../../src-shared/replay.js';
import { EpisodeIndex } from './episode-index.js';
import { sharedBy, sharedSteps } from './resumable.js';
import { Table, type SumSpec, type Sums } from './sums.js';

export function anomaly(
  kind: AnomalyKind,
  message: string,
  seqs: number[],
  batch_id: string | null = null,
  tool_call_id: string | null = null,
): Live<Anomaly> {
  return { kind, message, seqs, batch_id, tool_call_id };
}

/** Checks every batch of a classified episode: the anomalies found, and whether each batch (by position) is
 *  committable. Changes nothing: the caller sets the verdicts. */
export function checkEpisode(episode: EpisodeFold, sums: Sums): { readonly anomalies: readonly Anomaly[]; readonly committable: readonly boolean[] } {
  // The anomalies the fold found (classification appends its own after this check): the names that keep a
  // batch from committing.
  const anomalies_named = sums.table(ANOMALIES_NAMED);
  if (!anomalies_named.has(episode)) anomalies_named.set(episode, { count: episode.anomalies.length, named: new Set(episode.anomalies.map((entry) => entry.batch_id)) });
  return sums.sum(EPISODE_CHECKS, episode);
}

/** The batch ids an episode's fold anomalies name, and how many there were, when it was checked. */
const ANOMALIES_NAMED = new Table<EpisodeFold, { count: number; named: ReadonlySet<string | null> }>('anomalies named');

/** The check batch by batch, taken on from the last snapshot's for a live episode (views/incremental-sums.ts) while
 *  the fold's anomalies are the same: a batch counts as the same when it is the same object, committed (an open
 *  batch's verdict depends on the steps recorded after it) and its step is the same. */
const EPISODE_CHECKS: SumSpec<BatchFold, { anomalies: Anomaly[]; committable: boolean[] }> = {
  items: (episode) => episode.batches,
  initial: () => ({ anomalies: [], committable: [] }),
  copy: (checked) => ({ anomalies: checked.anomalies.slice(), committable: checked.committable.slice() }),
  // Both lists only grow: the next snapshot takes the check over, cut back to the checkpoint, instead of copying
  // a verdict per batch of the episode at every append. Classification reads a check once, as it is made.
  rewind: {
    mark: (checked) => ({ anomalies: checked.anomalies.length, committable: checked.committable.length }),
    to(checked, mark) {
      const at = mark as { anomalies: number; committable: number };
      checked.anomalies.length = at.anomalies;
      checked.committable.length = at.committable;
    },
  },
  shared(before, episode, sums, batches_before, batches) {
    const anomalies_named = sums.table(ANOMALIES_NAMED);
    if (anomalies_named.get(before)?.count !== anomalies_named.get(episode)?.count) return 0;
    const changed_steps = new Set<number>();
    const shared = sharedSteps(before, episode, sums);
    for (let at = shared; at < before.steps.length; at++) changed_steps.add(before.steps.at(at)!.step_id);
    for (let at = shared; at < episode.steps.length; at++) changed_steps.add(episode.steps.at(at)!.step_id);
    return sharedBy(batches_before, batches, (was, now) => was === now && now.finished_seq !== null && (now.step_id === null || !changed_steps.has(now.step_id)));
  },
  add(checked, batch, episode, sums) {
    const index = EpisodeIndex.of(episode, sums);
    const own = ownAnomalies(index, batch, sums);
    checked.committable.push(own.anomalies.length === 0 && !sums.table(ANOMALIES_NAMED).get(episode)!.named.has(batch.batch_id) && own.one_terminal_each);
    for (const entry of [...own.anomalies, ...commitAnomalies(index, batch)]) checked.anomalies.push(entry);
  },
};

/** A batch's own anomalies, kept per batch and step: a live episode's snapshots share every batch and step no
 *  frame touched, so an append checks the batches it changed, not the episode's. */
const OWN_CHECKED = new Table<BatchFold, { step: StepFold | undefined; anomalies: Anomaly[]; one_terminal_each: boolean }>('own anomalies');

function ownAnomalies(index: EpisodeIndex, batch: BatchFold, sums: Sums): { anomalies: Anomaly[]; one_terminal_each: boolean } {
  const own_checked = sums.table(OWN_CHECKED);
  const step = index.step(batch.step_id);
  const kept = own_checked.get(batch);
  if (kept !== undefined && kept.step === step) return kept;
  const checked = { step, anomalies: [...callAnomalies(batch), ...stepAnomalies(step, batch)], one_terminal_each: batch.calls.every((call) => call.terminals.length === 1) };
  own_checked.set(batch, checked);
  return checked;
}

function callAnomalies(batch: BatchFold): Anomaly[] {
  const found: Anomaly[] = [];
  for (const call of batch.calls) {
    const id = call.tool_call_id;
    if (call.terminals.length > 1) {
      const seqs = call.terminals.map((terminal) => terminal.seq);
      found.push(anomaly('duplicate_terminal', `call ${id} has ${seqs.length} terminals`, seqs, batch.batch_id, id));
    }
    if (call.plan === 'no_dispatch' && call.intent !== null) {
      found.push(anomaly('intent_for_no_dispatch_call', `call ${id} was planned no_dispatch but has an intent`, [batch.started_seq, call.intent.seq], batch.batch_id, id));
    }
    if (call.held !== null && call.intent === null) {
      found.push(anomaly('held_without_intent', `call ${id} is provider-held without a dispatch intent`, [call.held.seq], batch.batch_id, id));
    }
  }
  return found;
}

/** The batch must belong to a finished model step whose tool calls it plans, in the same order. */
function stepAnomalies(step: StepFold | undefined, batch: BatchFold): Anomaly[] {
  if (step === undefined || step.seq === null) {
    return [anomaly('step_mismatch', `batch ${batch.batch_id} names step ${batch.step_id}, which has no model_step_finished`, [batch.started_seq], batch.batch_id)];
  }
  const planned = batch.calls.map((call) => call.tool_call_id);
  if (planned.join('\u0000') === step.tool_use_ids.join('\u0000')) return [];
  return [
    anomaly(
      'step_mismatch',
      `batch ${batch.batch_id} plans [${planned.join(', ')}] but step ${step.step_id} asked for [${step.tool_use_ids.join(', ')}]`,
      [step.seq, batch.started_seq],
      batch.batch_id,
    ),
  ];
}

/** A commit marker without exactly one terminal per call, or a later step over a batch never committed. */
function commitAnomalies(index: EpisodeIndex, batch: BatchFold): Anomaly[] {
  if (batch.finished_seq !== null) {
    const open = batch.calls.filter((call) => call.terminals.length !== 1).map((call) => call.tool_call_id);
    if (open.length === 0) return [];
    return [anomaly('finished_not_committable', `tool_batch_finished for ${batch.batch_id} while [${open.join(', ')}] lack exactly one terminal`, [batch.finished_seq], batch.batch_id)];
  }
  const later = index.stepRecordedAfter(batch.started_seq);
  if (later === undefined || later.seq === null) return [];
  return [anomaly('batch_left_open', `step ${later.step_id} was recorded while batch ${batch.batch_id} was never committed`, [batch.started_seq, later.seq], batch.batch_id)];
}

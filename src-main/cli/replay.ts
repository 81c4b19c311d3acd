// `walscope replay PATH [--json]`: the fold of one session's WAL (a session folder or a WAL file): episodes,
// steps, batches and calls with their classes, anomalies, and the resume plan. Read-only: it never locks,
// creates or writes anything.
import { appendAll, largest } from '../../src-shared/arrays.js';
import { costText } from '../../src-shared/format.js';
import { refusedStatus, STATUS_LABEL } from '../../src-shared/status.js';
import type { Anomaly, BatchFold, CallFold, EpisodeFold, PlannedRecord, RecoveryPlan, SessionFold } from '../../src-shared/replay.js';
import { CLASS_WORDS, PLAN_WORDS } from '../../src-shared/words.js';
import type { WalTarget } from '../engine/index.js';
import { episodeCost, PRICE_TABLE_WORDS } from '../replay/cost.js';
import { EpisodeIndex } from '../replay/episode-index.js';
import { episodeJson, replayDocument, type SessionReplay } from '../replay/report.js';
import { replayTarget } from '../recovery/replay-target.js';
import { episodeWord } from '../replay/signals.js';
import type { Sums } from '../replay/sums.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writePieces, type Command } from './command.js';
import { plural, printable, runLines, textLines } from './format.js';
import { JsonSequence, writeJsonOut } from './json-out.js';
import { runReplayAt } from './replay-at.js';
import { singleTarget } from './targets.js';

const TEXT_MAX = 120;

export const replayCommand: Command = {
  summary: 'show what a session\'s WAL means after a crash: every call\'s class and the resume plan (read-only)',
  usage: 'walscope replay PATH [--json] | walscope replay PATH --at STEP [--episode N] [--json]   (PATH: a session folder or a WAL file; --at: the request of step STEP as the model saw it, in the last episode unless --episode)',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' }, at: { type: 'string' }, episode: { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one PATH');
    const target = singleTarget(positionals[0]!, 'replay');
    if (values.at !== undefined) return runReplayAt(target, { at: values.at, episode: values.episode, json: values.json === true });
    if (values.episode !== undefined) throw new UsageError('--episode goes with --at');
    const replay = replayTarget(target);
    if (values.json) await writeJsonOut(replayDocument(target.session, replay, new JsonSequence(replay.fold.episodes, episodeJson)));
    else await writePieces(outlinePieces(target, replay));
    return replay.read.error === null ? EXIT_OK : EXIT_REFUSED;
  },
};

export function outline(target: WalTarget, replay: SessionReplay): string {
  return [...outlinePieces(target, replay)].join('');
}

/** The outline's text an episode at a time, each made as it is written: made whole, a million records' outline
 *  held its 1.2 million lines and their joined text at once (643 MB resident, against --json's 337 MB). */
export function* outlinePieces(target: WalTarget, { read, fold, resume, run, sums }: SessionReplay): Generator<string> {
  const lines: string[] = [];
  const name = target.session === null ? target.wal_path : `session ${target.session} (${target.wal_path})`;
  lines.push(`${name}: ${plural(fold.episodes.length, 'episode')}, last seq ${fold.last_seq}, wal_id ${fold.wal_id ?? '(none)'}`);
  // The refusal's message is the status line's (runLines): said once.
  if (read.error !== null) lines.push(`REFUSED (${STATUS_LABEL[refusedStatus(read.error.kind)]}): what follows is the intact prefix, up to offset ${read.valid_bytes}`);
  if (read.torn_tail !== null) lines.push(`torn tail: ${plural(read.torn_tail.bytes, 'byte')} at offset ${read.torn_tail.offset} never committed, not used`);
  if (read.in_progress_tail !== null) lines.push('a live writer is appending: this is a snapshot');
  appendAll(lines, runLines(run));
  yield textLines(lines);
  for (const episode of fold.episodes) yield* episodePieces(episode, episodeWord(episode, run, fold.episodes.length), sums);
  yield textLines([...anomalyLines(fold.anomalies, ''), ...queueLines(fold), '']);
  yield* inPieces(planLines(resume));
}

/** Long lists of lines (an anomaly each of 150,000 batches, a record each the plan would append for them) are
 *  written this many at a time. */
const OUTLINE_PIECE_LINES = 1_000;

function* inPieces(lines: readonly string[]): Generator<string> {
  for (let at = 0; at < lines.length; at += OUTLINE_PIECE_LINES) yield textLines(lines.slice(at, at + OUTLINE_PIECE_LINES));
}


/** An episode's cost, when its steps recorded usage: the dollars, the models and the price table. */
function costLines(episode: EpisodeFold): string[] {
  const cost = episodeCost(episode);
  if (cost.steps_priced + cost.steps_unpriced === 0) return [];
  const priced = cost.priced_as.length === 0 ? '' : ` (${printable(cost.models.join(', '), TEXT_MAX)} as ${cost.priced_as.join(', ')}; price table ${PRICE_TABLE_WORDS})`;
  return [`  cost: ${printable(costText(cost), TEXT_MAX * 2)}${priced}`];
}

/** An episode's text a step (with its batch) at a time: made whole, an episode of 150,000 batches held its
 *  300,000 lines and their text at once (749 MB resident, the fold itself ~300 MB). */
function* episodePieces(episode: EpisodeFold, word: string, sums: Sums): Generator<string> {
  const finished = episode.finished === null ? '' : ` (${episode.finished.reason ?? 'no reason'} at seq ${episode.finished.seq})`;
  const index = EpisodeIndex.of(episode, sums);
  yield textLines(['', `episode ${episode.episode}  run ${printable(episode.run_id ?? '?', TEXT_MAX)}  ${word}${finished}  seq ${episode.started_seq}–${episode.last_seq}`, ...costLines(episode)]);
  for (const step of episode.steps) {
    const recorded = step.seq === null ? 'in flight (no model_step_finished)' : `seq ${step.seq}`;
    const ending = step.natural_end ? ', natural end' : '';
    const turn = step.turn_finished_seq === null ? '' : `, turn finished at seq ${step.turn_finished_seq}`;
    const lines = [`  step ${step.step_id}  ${recorded}, ${plural(step.attempts.length, 'attempt')}, ${plural(step.tool_use_ids.length, 'tool call')}${ending}${turn}`];
    for (const note of step.notes) lines.push(`    ${note.type} at seq ${note.seq}`);
    const batch = index.batch(step.batch_id);
    if (batch !== undefined) appendAll(lines, batchLines(batch));
    yield textLines(lines);
  }
  for (const batch of index.batches_without_step) yield textLines(batchLines(batch));
  const lines: string[] = [];
  for (const steer of episode.steers) lines.push(`  steer at seq ${steer.seq} joins ${steer.joins_step === null ? 'at run end' : `step ${steer.joins_step}`}`);
  for (const cancel of episode.cancel_requests) lines.push(`  cancel requested (at ${cancel.at ?? '?'}) at seq ${cancel.seq}`);
  for (const pause of episode.pauses) lines.push(`  paused (${pause.reason ?? '?'}) at seq ${pause.seq}`);
  for (const card of episode.approvals) lines.push(`  approval for ${printable(card.tool_call_id, TEXT_MAX)}: ${card.decision ?? 'open'}`);
  for (const resume of episode.resumes) lines.push(`  resumed at seq ${resume.seq} (indeterminate: ${resume.indeterminate.join(', ') || 'none'})`);
  if (episode.shown.length > 0) lines.push(`  shown, not acted on: ${episode.shown.map((ref) => `${ref.type}@${ref.seq}`).join(', ')}`);
  appendAll(lines, anomalyLines(episode.anomalies, '  '));
  yield* inPieces(lines);
}

function batchLines(batch: BatchFold): string[] {
  const mode = batch.sequential ? 'sequential' : 'parallel';
  const finished = batch.finished_seq === null ? 'open' : `finished at seq ${batch.finished_seq}`;
  const mixed = batch.mixed_crash ? ', mixed crash: the indeterminate handling wins' : '';
  const lines = [`    batch ${printable(batch.batch_id, TEXT_MAX)} (${mode}) seq ${batch.started_seq}, ${finished}, ${batch.committable ? 'committable' : 'not committable'}${mixed}`];
  for (const call of batch.calls) lines.push(`      ${callLine(call)}`);
  return lines;
}

/** Every call line's class column is as wide as the longest class label. */
const CLASS_LABEL_CHARS = largest(Object.values(CLASS_WORDS).map((words) => words.label.length)) ?? 0;

function callLine(call: CallFold): string {
  const terminal = call.terminals[0];
  const where = terminal === undefined ? (call.intent === null ? 'no intent' : `intent seq ${call.intent.seq}, no terminal`) : `${terminal.type} seq ${terminal.seq}`;
  const detail = terminal?.reason === null || terminal === undefined ? '' : ` (${printable(terminal.reason, TEXT_MAX)})`;
  const failed = terminal?.is_error === true ? ' ERROR (is_error)' : '';
  const held = call.held === null ? '' : `, held by ${printable(call.held.module, TEXT_MAX)} (key ${printable(call.held.call_key, TEXT_MAX)}) at seq ${call.held.seq}`;
  const behind = call.behind === null ? '' : `, behind ${call.behind}`;
  return `${CLASS_WORDS[call.class].label.padEnd(CLASS_LABEL_CHARS)} ${printable(call.tool_call_id, TEXT_MAX)}  ${printable(call.name, TEXT_MAX)}  ${where}${failed}${detail}${held}${behind}`;
}

function anomalyLines(anomalies: readonly Anomaly[], indent: string): string[] {
  return anomalies.map((entry) => `${indent}ANOMALY ${entry.kind} (seq ${entry.seqs.join(', ')}): ${printable(entry.message, 400)}`);
}

function queueLines(fold: SessionFold): string[] {
  if (fold.queue_drain_order.length === 0) return [];
  return ['', `queued sends pending, in drain order: ${fold.queue_drain_order.map((id) => printable(id, TEXT_MAX)).join(', ')}`];
}

export function planLines(plan: RecoveryPlan): string[] {
  const lines = [`${plan.kind}: ${PLAN_WORDS[plan.action].label} (${plan.action})${plan.episode === null ? '' : ` (episode ${plan.episode})`}: ${plan.message}`];
  if (plan.indeterminate.length > 0) lines.push(`  indeterminate calls: ${plan.indeterminate.join(', ')}`);
  if (plan.redone.length > 0) lines.push(`  a runtime would dispatch: ${plan.redone.join(', ')}`);
  if (plan.records.length === 0) return [...lines, '  records it would append: none'];
  lines.push(`  records it would append (${plural(plan.records.length, 'record')}, ${plural(plan.records.at(-1)!.barrier + 1, 'barrier')}):`);
  return [...lines, ...plan.records.map(recordLine)];
}

function recordLine(record: PlannedRecord): string {
  return `    [barrier ${record.barrier + 1}] ${record.type} ${printable(JSON.stringify(record.payload), 400)}`;
}

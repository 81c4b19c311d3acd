// Two sessions compared (issue 31, docs/compare.md): aligned as the agent worked — episodes in order, steps by
// step_id, within a step the request the model saw, then its answer, then each call — with the first place they
// part said in one sentence and, per step, what differs, each call's class and outcome on both sides, tokens,
// cost and durations. A function of two folds and their payload readers (no I/O: recovery/compare-target.ts
// opens the files); each step's payloads are read as it is compared and dropped after it, so two whole
// sessions' payloads are never held. A side that is damaged, cut or refused is its fold's intact prefix: it is
// compared that far, and the comparison says where its trusted part ends.
import { COMPARE_STEPS_LISTED_MAX, type CompareJson, type CompareSideJson, type Difference, type Divergence, type EpisodeDifference, type StepComparison } from '../../src-shared/compare.js';
import { largest } from '../../src-shared/arrays.js';
import type { EpisodeFold, SessionFold, StepFold } from '../../src-shared/replay.js';
import { compareCalls } from './compare-calls.js';
import { answerOf, compareAnswers, compareRequest, stepMessageKeys, type SideStep } from './compare-step.js';
import { PRICE_TABLE_WORDS, stepCostIn } from './cost.js';
import { EpisodeIndex } from './episode-index.js';
import type { PayloadReader } from './payloads.js';
import type { Sums } from './sums.js';
import { measuresKept } from './transcript.js';

export interface CompareInput {
  side: CompareSideJson;
  fold: SessionFold;
  payloads: PayloadReader;
  /** The store the fold was classified with (its folder's): the comparison takes its indexes and requests' parts
   *  on from there. */
  sums: Sums;
}

export interface CompareOptions {
  /** Compare only this episode of each side; null: every episode, in order. */
  episode: number | null;
}

export function compareSessions(a: CompareInput, b: CompareInput, options: CompareOptions): CompareJson {
  const numbers = options.episode === null ? episodeNumbers(a.fold, b.fold) : [options.episode];
  const walk = new Walk({ ...a, payloads: measuresKept(a.payloads) }, { ...b, payloads: measuresKept(b.payloads) });
  for (const number of numbers) walk.episode(number);
  walk.trustEnds();
  return walk.result(numbers);
}

/** Whether the first divergence two sessions' prefixes show is the whole sessions' first (`diff --first`): no
 *  record past either prefix can change a step compared up to it. On a side read to its end, nothing can; on a
 *  side read in part, the divergence is a step's (an episode's differences wait for the end), a later step of
 *  its episode is in the prefix (its batch is then closed: the runtime starts a step only after the last one's
 *  batch is finished), and every earlier episode of the prefix has finished (a finished run is written whole,
 *  while a crashed one may yet be closed out). Identical prefixes settle nothing: read on. */
export function divergenceSettled(comparison: CompareJson, a: { fold: SessionFold; whole: boolean }, b: { fold: SessionFold; whole: boolean }): boolean {
  const first = comparison.first_divergence;
  if (first === null) return false;
  if (a.whole && b.whole) return true;
  const settledIn = (side: { fold: SessionFold; whole: boolean }) => {
    if (side.whole) return true;
    const episode = side.fold.episodes[first.episode - 1];
    if (first.step_id === null || episode === undefined) return false;
    if (side.fold.episodes.slice(0, first.episode - 1).some((earlier) => earlier.finished === null)) return false;
    return episode.steps.some((step) => step.step_id > first.step_id! && step.seq !== null);
  };
  return settledIn(a) && settledIn(b);
}

/** A comparison of prefixes cut to its first divergence (`diff --first`): what came after it in the prefixes is
 *  not settled, so it is not reported. */
export function upToFirstDivergence(comparison: CompareJson): CompareJson {
  const first = comparison.first_divergence;
  if (first === null || first.step_id === null) return comparison;
  const at = comparison.steps.findIndex((step) => step.episode === first.episode && step.step_id === first.step_id);
  const listed = at === -1 ? {} : { steps: comparison.steps.slice(0, at + 1), steps_compared: at + 1, steps_left_out: 0 };
  return { ...comparison, ...listed, steps_differing: 1, episodes: comparison.episodes.filter((episode) => episode <= first.episode), episode_differences: [] };
}

function episodeNumbers(a: SessionFold, b: SessionFold): number[] {
  const count = Math.max(a.episodes.length, b.episodes.length);
  return Array.from({ length: count }, (_, at) => at + 1);
}

class Walk {
  private readonly steps: StepComparison[] = [];
  private readonly episode_differences: EpisodeDifference[] = [];
  private first: Divergence | null = null;
  /** Where a side's trusted part ends is said once, with the first difference it explains. */
  private readonly trust_said = { A: false, B: false };
  /** Request message pairs compared already (compareRequest). */
  private readonly seen_messages = new Set<string>();
  private compared = 0;
  private differing = 0;

  constructor(
    private readonly a: CompareInput,
    private readonly b: CompareInput,
  ) {}

  episode(number: number): void {
    const [ea, eb] = [this.a.fold.episodes[number - 1], this.b.fold.episodes[number - 1]];
    if (ea === undefined && eb === undefined) return;
    if (ea === undefined || eb === undefined) {
      const [has, lacks, fold] = ea === undefined ? (['B', 'A', this.a.fold] as const) : (['A', 'B', this.b.fold] as const);
      const lacking = ea === undefined ? this.a.side : this.b.side;
      this.episodeDifference(number, { kind: 'episode_missing', sentence: `only ${has} has episode ${number} (${lacks} has ${fold.episodes.length})${this.trustSuffix(lacks, lacking)}`, words: null });
    }
    const times = { a: new StepTimes(this.a.sums), b: new StepTimes(this.b.sums) };
    for (const step_id of stepIds(ea, eb)) this.step(number, step_id, ea, eb, times);
    if (ea !== undefined && eb !== undefined) this.episodeEnd(number, ea, eb);
  }

  private step(number: number, step_id: number, ea: EpisodeFold | undefined, eb: EpisodeFold | undefined, times: { a: StepTimes; b: StepTimes }): void {
    const [sa, sb] = [stepIn(ea, step_id, this.a.sums), stepIn(eb, step_id, this.b.sums)];
    const comparison: StepComparison = {
      episode: number,
      step_id,
      identical: true,
      differences: [],
      calls: [],
      tokens: { a: tokensOf(sa), b: tokensOf(sb) },
      cost_usd: { a: sa === undefined ? null : stepCostIn(ea!, sa), b: sb === undefined ? null : stepCostIn(eb!, sb) },
      duration_ms: { a: times.a.take(ea, sa), b: times.b.take(eb, sb) },
    };
    if (sa === undefined || sb === undefined) {
      const [has, lacks, lacking] = sa === undefined ? (['B', 'A', this.a.side] as const) : (['A', 'B', this.b.side] as const);
      comparison.differences.push({ kind: 'step_missing', sentence: `only ${has} has step ${step_id}${this.trustSuffix(lacks, lacking)}`, words: null });
    } else this.compareStep(comparison, { fold: this.a.fold, episode: ea!, step: sa, payloads: this.a.payloads, sums: this.a.sums }, { fold: this.b.fold, episode: eb!, step: sb, payloads: this.b.payloads, sums: this.b.sums });
    comparison.identical = comparison.differences.length === 0 && comparison.calls.every((call) => call.differences.length === 0);
    this.compared += 1;
    if (!comparison.identical) this.differing += 1;
    if (this.first === null && !comparison.identical) {
      const difference = comparison.differences[0] ?? comparison.calls.find((call) => call.differences.length > 0)!.differences[0]!;
      this.first = { episode: number, step_id, kind: difference.kind, sentence: `episode ${number}, step ${step_id}: ${difference.sentence}${this.lastStepSuffix(ea, eb, step_id)}` };
    }
    if (this.steps.length < COMPARE_STEPS_LISTED_MAX) this.steps.push(comparison);
  }

  /** The request, then the answer, then each call: what one step of both sides has, compared in that order. */
  private compareStep(comparison: StepComparison, a: SideStep, b: SideStep): void {
    if ((a.step.seq === null) !== (b.step.seq === null)) {
      const [answered, open] = a.step.seq === null ? ['B', 'A'] : ['A', 'B'];
      comparison.differences.push({ kind: 'step_unanswered', sentence: `${answered}'s answer is recorded; ${open}'s step ${a.step.step_id} has none (no model_step_finished: in flight where its records end)`, words: null });
    }
    const request = compareRequest(a, b, this.seen_messages);
    if (request !== null) comparison.differences.push(request);
    for (const key of stepMessageKeys(a.episode.episode, a.step.step_id)) this.seen_messages.add(key);
    if (a.step.seq === null || b.step.seq === null) return;
    const [answer_a, answer_b] = [answerOf(a), answerOf(b)];
    for (const difference of compareAnswers(answer_a, answer_b, { a: a.step.natural_end, b: b.step.natural_end })) comparison.differences.push(difference);
    const argsById = (answer: typeof answer_a) => new Map(answer.calls.flatMap((call) => (call.id === null ? [] : [[call.id, call.args] as const])));
    comparison.calls = compareCalls(
      { batch: EpisodeIndex.of(a.episode, a.sums).batch(a.step.batch_id), args_by_id: argsById(answer_a), payloads: a.payloads },
      { batch: EpisodeIndex.of(b.episode, b.sums).batch(b.step.batch_id), args_by_id: argsById(answer_b), payloads: b.payloads },
    );
  }

  /** How each run ended, once its steps are compared. */
  private episodeEnd(number: number, ea: EpisodeFold, eb: EpisodeFold): void {
    const ended = (episode: EpisodeFold) => (episode.finished === null ? `has no run_finished (${episode.state})` : `finished (${episode.finished.reason ?? 'no reason'})`);
    const [words_a, words_b] = [ended(ea), ended(eb)];
    if (words_a === words_b) return;
    const cut = ea.finished === null ? this.trustSuffix('A', this.a.side) : eb.finished === null ? this.trustSuffix('B', this.b.side) : '';
    this.episodeDifference(number, { kind: 'episode_end', sentence: `the run ${words_a} in A, ${words_b} in B${cut}`, words: null });
  }

  /** A side refused where the other is not (or is elsewhere), every step before the same: where its trusted part
   *  ends is the difference. A torn tail was never committed: it is said of the side, not a difference. */
  trustEnds(): void {
    const [a, b] = [this.a.side, this.b.side];
    const same_end = a.trust === b.trust && a.valid_bytes === b.valid_bytes && a.error?.kind === b.error?.kind;
    if (this.first !== null || same_end) return;
    for (const [name, side] of [['A', a], ['B', b]] as const) {
      if (side.trust !== 'refused' || this.first !== null) continue;
      this.episodeDifference(null, { kind: 'side_cut', sentence: `${name} ${side.trust_words}; every step before is the same`, words: null });
    }
  }

  private episodeDifference(episode: number | null, difference: Difference): void {
    this.episode_differences.push({ episode, difference });
    if (this.first === null) this.first = { episode: episode ?? 0, step_id: null, kind: difference.kind, sentence: episode === null ? difference.sentence : `episode ${episode}: ${difference.sentence}` };
  }

  /** Where a step is the last a refused or torn side holds, the first divergence there says the side ends there. */
  private lastStepSuffix(ea: EpisodeFold | undefined, eb: EpisodeFold | undefined, step_id: number): string {
    const last = (fold: SessionFold, episode: EpisodeFold | undefined) => episode !== undefined && episode === fold.episodes.at(-1) && episode.steps.at(-1)?.step_id === step_id;
    if (last(this.b.fold, eb)) return this.trustSuffix('B', this.b.side);
    if (last(this.a.fold, ea)) return this.trustSuffix('A', this.a.side);
    return '';
  }

  /** " — B's records end here: it is refused …", the first time a difference is explained by where a side's
   *  trusted part ends. */
  private trustSuffix(name: 'A' | 'B', side: CompareSideJson): string {
    if (side.trust_words === null || this.trust_said[name]) return '';
    this.trust_said[name] = true;
    return ` — ${name}'s records end here: ${side.trust_words}`;
  }

  result(episodes: number[]): CompareJson {
    return {
      a: this.a.side,
      b: this.b.side,
      identical: this.first === null,
      first_divergence: this.first,
      episodes,
      steps_compared: this.compared,
      steps_differing: this.differing,
      steps: this.steps,
      steps_left_out: this.compared - this.steps.length,
      episode_differences: this.episode_differences,
      price_table: PRICE_TABLE_WORDS,
    };
  }
}


/** Both episodes' step ids in order: A's, with B's merged in where they fall. */
function stepIds(a: EpisodeFold | undefined, b: EpisodeFold | undefined): number[] {
  const ids = new Set<number>();
  for (const episode of [a, b]) for (const step of episode?.steps ?? []) ids.add(step.step_id);
  return [...ids].sort((x, y) => x - y);
}

function stepIn(episode: EpisodeFold | undefined, step_id: number, sums: Sums): StepFold | undefined {
  return episode === undefined ? undefined : EpisodeIndex.of(episode, sums).step(step_id);
}

function tokensOf(step: StepFold | undefined): Record<string, number> | null {
  if (step === undefined || step.usage === null) return null;
  return Object.fromEntries(Object.entries(step.usage).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1])));
}

/** A side's last known time, step by step: a step's duration runs from it to the step's last model attempt. */
class StepTimes {
  private last_ms: number | null = null;

  constructor(private readonly sums: Sums) {}

  take(episode: EpisodeFold | undefined, step: StepFold | undefined): number | null {
    if (episode === undefined || step === undefined) return null;
    const answered_ms = largest(step.attempts.flatMap((attempt) => (attempt.ts_ms === null ? [] : [attempt.ts_ms])));
    const duration = answered_ms === null || this.last_ms === null ? null : answered_ms - this.last_ms;
    const call_ms = (EpisodeIndex.of(episode, this.sums).batch(step.batch_id)?.calls ?? []).flatMap((call) => [call.dispatched_at_ms, call.finished_at_ms].filter((ms): ms is number => ms !== null));
    const known = largest([...call_ms, ...(answered_ms === null ? [] : [answered_ms]), ...(this.last_ms === null ? [] : [this.last_ms])]);
    this.last_ms = known;
    return duration;
  }
}

// Types of a comparison of two sessions (issue 31): `walscope diff A B --json` and the app's compare view. Where
// two runs first went apart, in one sentence, and what differs step by step after it, aligned as the agent
// worked (docs/compare.md). Plain JSON data; A's and B's WAL content is text, never markup.
import type { CallClass, ToolOutcome } from './replay.js';
import type { WalErrorInfo } from './wal.js';

export type CompareSide = 'a' | 'b';

/** How far a side can be trusted: all of it, all but a torn tail never committed, or up to a refusal (damage, a
 *  cut, a newer writer…), the fold holding only the intact prefix before it. */
/** `stopped`: read only up to the first divergence (`diff --first`), the rest of the WAL not read. */
export type SideTrust = 'whole' | 'torn_tail' | 'refused' | 'stopped';

export interface CompareSideJson {
  /** What was named on the command line (or the session's id in the app). */
  name: string;
  session: string | null;
  wal_id: string | null;
  /** The archive member read, for a sealed lineage (SESSION@WAL_ID); null otherwise. */
  member: string | null;
  trust: SideTrust;
  /** Bytes of the WAL that were read and trusted. */
  valid_bytes: number;
  /** The last seq compared on this side. */
  last_seq: number;
  error: WalErrorInfo | null;
  /** Where the trusted part ends, in one sentence; null when the side is whole. */
  trust_words: string | null;
}

/** What a difference is about, in the order a step is compared: the request the model saw, its answer, then
 *  each call. */
export type DifferenceKind =
  | 'episode_missing'
  | 'episode_end'
  | 'side_cut'
  | 'step_missing'
  | 'step_unanswered'
  | 'request'
  | 'answer_text'
  | 'answer_calls'
  | 'call_missing'
  | 'call_class'
  | 'call_outcome'
  | 'call_output';

/** One piece of a word diff: text both have, or only A (`removed`), or only B (`added`). A long run both have is
 *  cut to its ends (`cut` characters left out of its middle). */
export interface WordChange {
  op: 'same' | 'removed' | 'added';
  text: string;
  cut: number;
}

export interface Difference {
  kind: DifferenceKind;
  sentence: string;
  /** A word diff of A's text against B's, where texts differ; null otherwise, or when they differ too much
   *  (`sentence` says so). */
  words: WordChange[] | null;
}

export interface CallSideJson {
  tool_call_id: string;
  name: string;
  class: CallClass;
  /** CLASS_WORDS's label for the class. */
  class_label: string;
  outcome: ToolOutcome | null;
  is_error: boolean;
  duration_ms: number | null;
}

export interface CallComparison {
  /** 1, 2, … in A's order (then B's calls A has no match for). */
  call: number;
  a: CallSideJson | null;
  b: CallSideJson | null;
  /** How the two were paired: the same tool_call_id, or the same name and arguments in order, or (asked for
   *  with other arguments, which the step's answer_calls difference says) the same name in order; null: one side. */
  matched_by: 'tool_call_id' | 'name_and_args' | 'name_in_order' | null;
  /** A class difference first (completed in A, indeterminate in B), then the outcome, then the output. */
  differences: Difference[];
}

export interface SidePair<T> {
  a: T;
  b: T;
}

export interface StepComparison {
  episode: number;
  step_id: number;
  identical: boolean;
  /** The step's own differences (missing, request, answer), in that order. */
  differences: Difference[];
  calls: CallComparison[];
  /** The step's usage as recorded (numbers only); null when the side has the step without usage, or not at all. */
  tokens: SidePair<Record<string, number> | null>;
  /** What the step cost by the price table, where known. */
  cost_usd: SidePair<number | null>;
  /** From the side's last known time before the step to its last model attempt. */
  duration_ms: SidePair<number | null>;
}

export interface EpisodeDifference {
  /** null: of the session, past every episode compared (a side cut after its last step). */
  episode: number | null;
  difference: Difference;
}

export interface Divergence {
  episode: number;
  step_id: number | null;
  kind: DifferenceKind;
  sentence: string;
}

export interface CompareJson {
  a: CompareSideJson;
  b: CompareSideJson;
  /** Every step compared is the same in A and B, and neither side has more. */
  identical: boolean;
  first_divergence: Divergence | null;
  /** What was compared: with --episode, that episode of each side only. */
  episodes: number[];
  steps_compared: number;
  steps_differing: number;
  /** Every step compared, in order, identical ones too (empty differences), up to COMPARE_STEPS_LISTED_MAX. */
  steps: StepComparison[];
  steps_left_out: number;
  /** What differs of an episode beyond its steps (one side has it alone, its run ended otherwise), and where a
   *  side stops being trusted when every step before is the same. */
  episode_differences: EpisodeDifference[];
  /** The price table the costs are by. */
  price_table: string;
}

/** Steps a comparison lists; past them it counts. */
export const COMPARE_STEPS_LISTED_MAX = 10_000;

/** Steps one `compareSessions` answer carries at most (the app asks for fewer: a step's word diffs can be tens of
 *  kilobytes, and a fleet's reply is bounded by its server's max payload). */
export const COMPARE_PAGE_STEPS_MAX = 100;

/** One listed step in the comparison's outline: its episode, its step_id, and whether it is identical in A and
 *  B. The whole outline is what the app folds identical runs of steps from and walks from difference to
 *  difference, before any step's detail is asked for. */
export type StepOutline = [episode: number, step_id: number, identical: boolean];

/** One answer of the API's `compareSessions`: the comparison (CompareJson) but its steps, which come a window at
 *  a time — `steps` is the listed steps [start, start + steps.length) — and, on the answer that starts at 0,
 *  the outline of every listed step (null on the others: it is the same comparison's). */
export interface ComparePage extends Omit<CompareJson, 'steps'> {
  /** Steps listed in all: CompareJson.steps.length (at most COMPARE_STEPS_LISTED_MAX). */
  listed: number;
  start: number;
  steps: StepComparison[];
  outline: StepOutline[] | null;
}

/** The window [start, start + count) of `comparison`'s listed steps, count at most COMPARE_PAGE_STEPS_MAX. */
export function comparePage(comparison: CompareJson, start: number, count: number): ComparePage {
  const { steps, ...head } = comparison;
  const end = Math.min(steps.length, start + Math.min(count, COMPARE_PAGE_STEPS_MAX));
  return {
    ...head,
    listed: steps.length,
    start,
    steps: start >= end ? [] : steps.slice(start, end),
    outline: start === 0 ? steps.map((step): StepOutline => [step.episode, step.step_id, step.identical]) : null,
  };
}

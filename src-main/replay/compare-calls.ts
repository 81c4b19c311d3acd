// The calls of one step of two sessions, paired and compared (compare.ts): by tool_call_id, or where the runs
// minted different ids, by name and arguments in order. Each pair says its class difference first (a call
// completed in A and of unknown outcome in B), then its outcome, then its output. Calls neither pairs are set
// side by side by name in order, as the answers' own difference already says they were asked for otherwise.
import type { CallComparison, CallSideJson, Difference } from '../../src-shared/compare.js';
import type { BatchFold, CallFold, JsonValue } from '../../src-shared/replay.js';
import { CLASS_WORDS } from '../../src-shared/words.js';
import { comparedText, partingWords, sameText, valueText, wordDiff } from './compare-text.js';
import { intentArgs, terminalOutput, type PayloadReader } from './payloads.js';

/** A side's step as the calls' comparison needs it: its batch (undefined: none recorded) and each tool call's
 *  arguments as its answer asked for them, by id. */
export interface StepCalls {
  batch: BatchFold | undefined;
  args_by_id: ReadonlyMap<string, JsonValue>;
  payloads: PayloadReader;
}

/** Calls of a batch compared; past them a step's calls are paired but not compared. */
const CALLS_COMPARED_MAX = 1_000;

export function compareCalls(a: StepCalls, b: StepCalls): CallComparison[] {
  const pairs = pairCalls(a, b);
  return pairs.slice(0, CALLS_COMPARED_MAX).map((pair, at) => compareCall(at + 1, pair, a, b));
}

interface CallPair {
  a: CallFold | null;
  b: CallFold | null;
  matched_by: CallComparison['matched_by'];
}

function pairCalls(a: StepCalls, b: StepCalls): CallPair[] {
  const calls_a = a.batch?.calls ?? [];
  const calls_b = b.batch?.calls ?? [];
  const b_by_id = new Map(calls_b.map((call) => [call.tool_call_id, call]));
  const taken = new Set<CallFold>();
  const pairs: CallPair[] = calls_a.map((call) => {
    const same = b_by_id.get(call.tool_call_id);
    if (same === undefined || taken.has(same)) return { a: call, b: null, matched_by: null };
    taken.add(same);
    return { a: call, b: same, matched_by: 'tool_call_id' };
  });
  for (const pair of pairs) {
    if (pair.b !== null) continue;
    const key = callKey(pair.a!, a);
    const same = calls_b.find((call) => !taken.has(call) && callKey(call, b) === key);
    if (same === undefined) continue;
    taken.add(same);
    pair.b = same;
    pair.matched_by = 'name_and_args';
  }
  // Calls the answers asked for differently (compareAnswers says how) are still set side by side, a name with
  // the same name in order, so that each side's class and outcome is shown beside the other's.
  for (const pair of pairs) {
    if (pair.b !== null) continue;
    const same = calls_b.find((call) => !taken.has(call) && call.name === pair.a!.name);
    if (same === undefined) continue;
    taken.add(same);
    pair.b = same;
    pair.matched_by = 'name_in_order';
  }
  for (const call of calls_b) if (!taken.has(call)) pairs.push({ a: null, b: call, matched_by: null });
  return pairs;
}

/** A call's name and arguments as one text: its answer's tool_use input, else its intent's args. */
function callKey(call: CallFold, side: StepCalls): string {
  const args = side.args_by_id.get(call.tool_call_id) ?? intentArgs(call, side.payloads);
  return `${call.name}\u0000${valueText(args)}`;
}

function compareCall(number: number, pair: CallPair, a: StepCalls, b: StepCalls): CallComparison {
  const comparison: CallComparison = { call: number, a: pair.a === null ? null : callSide(pair.a), b: pair.b === null ? null : callSide(pair.b), matched_by: pair.matched_by, differences: [] };
  const named = `\`${(pair.a ?? pair.b)!.name}\` call ${number}`;
  if (pair.a === null || pair.b === null) {
    const [has, lacks] = pair.a === null ? ['B', 'A'] : ['A', 'B'];
    const call = (pair.a ?? pair.b)!;
    const lacking_batch = (pair.a === null ? a : b).batch;
    comparison.differences.push(plain('call_missing', `${named} is only in ${has} (${CLASS_WORDS[call.class].label} there): ${lacks} ${lacking_batch === undefined ? 'recorded no batch for this step' : 'has no call it pairs with'}`));
    return comparison;
  }
  if (pair.a.class !== pair.b.class) comparison.differences.push(plain('call_class', `${named} is ${CLASS_WORDS[pair.a.class].label} in A, ${CLASS_WORDS[pair.b.class].label} in B`));
  const outcome = outcomeDifference(named, pair.a, pair.b);
  if (outcome !== null) comparison.differences.push(outcome);
  const output = outputDifference(named, pair.a, pair.b, a.payloads, b.payloads);
  if (output !== null) comparison.differences.push(output);
  return comparison;
}

function callSide(call: CallFold): CallSideJson {
  const terminal = call.terminals[0];
  const duration_ms = call.dispatched_at_ms !== null && call.finished_at_ms !== null ? call.finished_at_ms - call.dispatched_at_ms : null;
  return {
    tool_call_id: call.tool_call_id,
    name: call.name,
    class: call.class,
    class_label: CLASS_WORDS[call.class].label,
    outcome: terminal?.outcome ?? null,
    is_error: terminal?.is_error === true,
    duration_ms,
  };
}

function outcomeDifference(named: string, a: CallFold, b: CallFold): Difference | null {
  const [ta, tb] = [a.terminals[0], b.terminals[0]];
  if (ta === undefined && tb === undefined) return null;
  if (ta === undefined || tb === undefined) {
    // A class difference says it already; of one class (a close-out's unknown outcome beside no result), this does.
    if (a.class !== b.class) return null;
    const [recorded, terminal] = ta === undefined ? ['B', tb!] : ['A', ta];
    return plain('call_outcome', `${named} has a result recorded in ${recorded} only (${terminal.type}, outcome ${terminal.outcome ?? 'none'})`);
  }
  if (ta.is_error !== tb.is_error) return plain('call_outcome', `${named} failed (is_error) in ${ta.is_error ? 'A' : 'B'}, not in ${ta.is_error ? 'B' : 'A'}`);
  if (ta.outcome !== tb.outcome && a.class === b.class) return plain('call_outcome', `${named}'s outcome is ${ta.outcome ?? 'none'} in A, ${tb.outcome ?? 'none'} in B`);
  if (ta.type === 'tool_no_dispatch' && tb.type === 'tool_no_dispatch' && ta.reason !== tb.reason) return plain('call_outcome', `${named} was not dispatched on both sides, for another reason: "${ta.reason ?? 'none'}" in A, "${tb.reason ?? 'none'}" in B`);
  return null;
}

/** Both outputs read back, one call at a time, and compared whole (their digests) and by words where they part. */
function outputDifference(named: string, a: CallFold, b: CallFold, payloads_a: PayloadReader, payloads_b: PayloadReader): Difference | null {
  const [ta, tb] = [a.terminals[0], b.terminals[0]];
  if (ta?.type !== 'tool_result' || tb?.type !== 'tool_result') return null;
  const output_a = comparedText(valueText(terminalOutput(ta, payloads_a)));
  const output_b = comparedText(valueText(terminalOutput(tb, payloads_b)));
  if (sameText(output_a, output_b)) return null;
  return { kind: 'call_output', sentence: `the output of ${named} differs ${partingWords(output_a, output_b)}`, words: wordDiff(output_a, output_b) };
}

function plain(kind: Difference['kind'], sentence: string): Difference {
  return { kind, sentence, words: null };
}

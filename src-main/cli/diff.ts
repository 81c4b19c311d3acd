// `walscope diff A B [--episode N] [--json]`: where two sessions first went apart, in one sentence, then what
// differs step by step (docs/compare.md). A and B are anything walscope opens read-only — a session folder, a WAL
// file, a sealed lineage SESSION_DIR@WAL_ID (read from a verified private copy) — and neither is ever written.
// `--first` stops at the first divergence, each side read only as far as it takes to settle it.
// Exit 0: no difference; 1: they differ, or a side could not be opened; 2: usage.
import path from 'node:path';
import type { CallComparison, CompareJson, CompareSideJson, Difference, StepComparison, WordChange } from '../../src-shared/compare.js';
import { formatUsd } from '../../src-shared/format.js';
import { DIFFERENCE_WORDS, TRUST_WORDS } from '../../src-shared/words.js';
import { compareTargets, firstDivergenceOf, type CompareTarget } from '../recovery/compare-target.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, positiveInteger, UsageError, writePieces, type Command } from './command.js';
import { plural, printable, textLines } from './format.js';
import { writeJsonOut } from './json-out.js';
import { sealedLineageCopy, singleTarget, targetsOf } from './targets.js';

const NAME_MAX = 200;
const SENTENCE_MAX = 600;
const WORDS_LINE_MAX = 1_000;

export const diffCommand: Command = {
  summary: 'compare two sessions: where two runs first went apart, and what differs step by step after (read-only)',
  usage: 'walscope diff A B [--episode N] [--first] [--json]   (A, B: a session folder, a WAL file or SESSION_DIR@WAL_ID; --episode: that episode of each only; --first: stop at the first divergence, reading each side only as far as it takes)',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' }, episode: { type: 'string' }, first: { type: 'boolean' } });
    if (positionals.length !== 2) throw new UsageError('expected two sessions, A and B');
    const episode = values.episode === undefined ? null : positiveInteger(values.episode, '--episode');
    const disposals: (() => void)[] = [];
    try {
      const sides: CompareTarget[] = [];
      for (const name of positionals) {
        const side = openSide(name, disposals);
        if (typeof side === 'string') {
          process.stderr.write(`walscope diff: ${printable(name, NAME_MAX)}: ${side}\n`);
          return EXIT_REFUSED;
        }
        sides.push(side);
      }
      const comparison = (values.first ? firstDivergenceOf : compareTargets)(sides[0]!, sides[1]!, { episode });
      if (values.json) await writeJsonOut(comparison);
      else await writePieces(comparisonPieces(comparison));
      return comparison.identical ? EXIT_OK : EXIT_REFUSED;
    } finally {
      for (const dispose of disposals) dispose();
    }
  },
};

/** A side as a WAL to read: a sealed lineage through its verified read-only copy (removed when the command ends),
 *  anything else as `replay` names it; a string says why a lineage cannot be opened. */
function openSide(name: string, disposals: (() => void)[]): CompareTarget | string {
  const sealed = sealedLineageCopy(name);
  if (typeof sealed === 'string') return sealed;
  if (sealed === null) return { name, target: singleTarget(name, 'diff'), member: null };
  disposals.push(() => sealed.dispose());
  const member = targetsOf(name)[0]!.member!;
  return { name, target: { ...targetsOf(sealed.file)[0]!, session: `${path.basename(member.session_dir)}@${member.wal_id}` }, member: member.wal_id };
}

/** The human output: both sides, the first divergence, then each episode's steps, identical runs folded. */
export function* comparisonPieces(comparison: CompareJson): Generator<string> {
  const lines = [sideLine('A', comparison.a), sideLine('B', comparison.b)];
  const scope = `${plural(comparison.steps_compared, 'step')} of ${plural(comparison.episodes.length, 'episode')} compared`;
  if (comparison.first_divergence === null) lines.push(`no difference: ${scope}, all the same`);
  else lines.push(`first divergence: ${printable(comparison.first_divergence.sentence, SENTENCE_MAX)}`, `${scope}, ${plural(comparison.steps_differing, 'step')} ${comparison.steps_differing === 1 ? 'differs' : 'differ'}`);
  yield textLines(lines);
  let identical_from: StepComparison | null = null;
  let identical_to: StepComparison | null = null;
  let episode: number | null = null;
  const folded = () => (identical_from === null ? [] : [`  ${identical_from === identical_to ? `step ${identical_from.step_id}` : `steps ${identical_from.step_id}–${identical_to!.step_id}`}: identical`]);
  for (const step of comparison.steps) {
    const heading = step.episode === episode ? [] : ['', `episode ${step.episode}`];
    if (heading.length > 0) {
      yield textLines(folded());
      identical_from = identical_to = null;
      episode = step.episode;
      yield textLines(heading);
    }
    if (step.identical) {
      identical_from ??= step;
      identical_to = step;
      continue;
    }
    yield textLines([...folded(), ...stepLines(step)]);
    identical_from = identical_to = null;
  }
  yield textLines(folded());
  const tail: string[] = [];
  if (comparison.steps_left_out > 0) tail.push('', `${plural(comparison.steps_left_out, 'more step')} compared, not listed`);
  for (const { episode: number, difference } of comparison.episode_differences) tail.push('', `${number === null ? 'session' : `episode ${number}`}: ${DIFFERENCE_WORDS[difference.kind]}: ${printable(difference.sentence, SENTENCE_MAX)}`);
  yield textLines(tail);
}

function sideLine(name: string, side: CompareSideJson): string {
  const session = side.session === null ? '' : ` (session ${printable(side.session, NAME_MAX)})`;
  const member = side.member === null ? '' : `, archive member ${printable(side.member, NAME_MAX)}`;
  const trust = side.trust_words === null ? TRUST_WORDS[side.trust] : printable(side.trust_words, SENTENCE_MAX);
  return `${name}: ${printable(side.name, NAME_MAX)}${session}, wal_id ${printable(side.wal_id ?? '(none)', NAME_MAX)}${member}: ${trust}`;
}

function stepLines(step: StepComparison): string[] {
  const lines = [`  step ${step.step_id}:`];
  for (const difference of step.differences) appendDifference(lines, difference, '    ');
  for (const call of step.calls) appendCall(lines, call);
  if (step.tokens.a !== null || step.tokens.b !== null) lines.push(`    tokens: A ${tokensText(step.tokens.a)} · B ${tokensText(step.tokens.b)}`);
  if (step.cost_usd.a !== null || step.cost_usd.b !== null) lines.push(`    cost: A ${usdText(step.cost_usd.a)} · B ${usdText(step.cost_usd.b)}`);
  if (step.duration_ms.a !== null || step.duration_ms.b !== null) lines.push(`    duration: A ${msText(step.duration_ms.a)} · B ${msText(step.duration_ms.b)}`);
  return lines;
}

function appendDifference(lines: string[], difference: Difference, indent: string): void {
  lines.push(`${indent}${DIFFERENCE_WORDS[difference.kind]}: ${printable(difference.sentence, SENTENCE_MAX)}`);
  if (difference.words !== null) lines.push(`${indent}  words: ${printable(wordsText(difference.words), WORDS_LINE_MAX)}`);
}

/** Each call's class and outcome on both sides, then what differs of it. */
function appendCall(lines: string[], call: CallComparison): void {
  const side = (name: string, value: CallComparison['a']) =>
    value === null ? `not in ${name}` : `${value.class_label}${value.is_error ? ', failed' : ''}${value.duration_ms === null ? '' : ` (${msText(value.duration_ms)})`} in ${name}`;
  const tool = printable((call.a ?? call.b)!.name, NAME_MAX);
  lines.push(`    call ${call.call} \`${tool}\`: ${side('A', call.a)}, ${side('B', call.b)}${call.differences.length === 0 ? ', the same' : ''}`);
  for (const difference of call.differences) appendDifference(lines, difference, '      ');
}

/** A word diff as `git diff --word-diff=plain` writes one: [-only A-]{+only B+}. */
function wordsText(changes: readonly WordChange[]): string {
  return changes.map((change) => (change.op === 'same' ? (change.cut > 0 && change.text === '' ? '…' : change.text) : change.op === 'removed' ? `[-${change.text}-]` : `{+${change.text}+}`)).join('');
}

function tokensText(tokens: Record<string, number> | null): string {
  if (tokens === null) return 'none recorded';
  const entries = Object.entries(tokens);
  return entries.length === 0 ? 'none recorded' : entries.map(([key, value]) => `${printable(key, 40)} ${value.toLocaleString('en-US')}`).join(', ');
}

function usdText(usd: number | null): string {
  return usd === null ? 'unknown' : formatUsd(usd);
}

function msText(ms: number | null): string {
  if (ms === null) return 'unknown';
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

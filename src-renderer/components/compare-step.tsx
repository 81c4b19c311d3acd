// One compared step of the compare view, A and B side by side: each side's calls as the Timeline shows them (class
// chip, error chip, tool name) and its tokens, cost and duration; opened, what differs — each difference's sentence,
// and its word diff with A's words in A's column and B's in B's. Everything from a WAL is a React text node.
import type { CallComparison, CompareSide, Difference, StepComparison, WordChange } from '../../src-shared/compare.js';
import { formatUsd } from '../../src-shared/format.js';
import { terminalPlain } from '../../src-shared/terminal-text.js';
import { DIFFERENCE_WORDS } from '../../src-shared/words.js';
import { ClassChip, ErrorChip } from './chips.js';

/** Each side's calls and facts, in its column. */
export function StepSide({ step, side }: { step: StepComparison | undefined; side: CompareSide }) {
  const name = side.toUpperCase();
  if (step === undefined) return <div className="compare-cell muted">…</div>;
  return (
    <div className="compare-cell" data-testid={`compare-side-${side}`}>
      {step.calls.map((call) => {
        const mine = call[side];
        return (
          <div key={call.call} className="compare-call" data-testid="compare-call" data-class={mine?.class ?? 'none'}>
            {mine === null ? <span className="muted">no call {call.call} in {name}</span> : (
              <>
                <ClassChip value={mine.class} />
                {mine.is_error && <ErrorChip />}
                <strong className="tool-name" title={mine.tool_call_id}>{mine.name}</strong>
                {mine.duration_ms !== null && <span className="muted">{msText(mine.duration_ms)}</span>}
              </>
            )}
          </div>
        );
      })}
      <div className="muted compare-facts">{factsText(step, side)}</div>
    </div>
  );
}

/** What differs of the step, opened: its own differences, then each call's. */
export function StepDifferences({ step }: { step: StepComparison }) {
  const calls = step.calls.filter((call) => call.differences.length > 0);
  return (
    <div className="compare-details" data-testid="compare-details">
      {step.differences.map((difference, index) => <DifferenceView key={`s${index}`} difference={difference} />)}
      {calls.map((call) => (
        <div key={`c${call.call}`} className="compare-call-differences">
          <div className="compare-call-head">call {call.call} <strong className="tool-name">{callName(call)}</strong>{call.matched_by !== null && <span className="muted"> · paired by {call.matched_by.replaceAll('_', ' ')}</span>}</div>
          {call.differences.map((difference, index) => <DifferenceView key={index} difference={difference} />)}
        </div>
      ))}
    </div>
  );
}

/** A difference: its kind in the app's words, its sentence, and its word diff side by side. */
export function DifferenceView({ difference }: { difference: Difference }) {
  return (
    <div className="compare-difference" data-testid="compare-difference" data-kind={difference.kind}>
      <div className="compare-sentence"><span className="badge">{DIFFERENCE_WORDS[difference.kind]}</span> <span data-testid="difference-sentence">{terminalPlain(difference.sentence)}</span></div>
      {difference.words !== null && (
        <div className="compare-words">
          <div className="mono compare-words-side" data-testid="words-a" aria-label="A's words">{difference.words.map((change, index) => <WordPiece key={index} change={change} side="a" />)}</div>
          <div className="mono compare-words-side" data-testid="words-b" aria-label="B's words">{difference.words.map((change, index) => <WordPiece key={index} change={change} side="b" />)}</div>
        </div>
      )}
    </div>
  );
}

/** A piece of a word diff on one side: what both have as it is, A's only struck in A's column, B's only marked in
 *  B's; the other side's piece is not in this column. */
function WordPiece({ change, side }: { change: WordChange; side: CompareSide }) {
  const text = change.op === 'same' && change.cut > 0 && change.text === '' ? '…' : terminalPlain(change.text);
  if (change.op === 'same') return <span title={change.cut > 0 ? `${change.cut.toLocaleString()} characters both have, left out` : undefined}>{text}</span>;
  if (change.op === 'removed') return side === 'a' ? <del data-testid="word-removed">{text}</del> : null;
  return side === 'b' ? <ins data-testid="word-added">{text}</ins> : null;
}

/** The kinds of what differs of a step, in the app's words, once each: the step row's summary. */
export function differenceKinds(step: StepComparison): string[] {
  const kinds = new Set<string>();
  for (const difference of step.differences) kinds.add(DIFFERENCE_WORDS[difference.kind]);
  for (const call of step.calls) for (const difference of call.differences) kinds.add(DIFFERENCE_WORDS[difference.kind]);
  return [...kinds];
}

function callName(call: CallComparison): string {
  return (call.a ?? call.b)?.name ?? '';
}

/** A side's tokens (as recorded), cost and duration, leaving out what is not known. */
function factsText(step: StepComparison, side: CompareSide): string {
  const tokens = step.tokens[side];
  const parts = [
    tokens === null ? '' : tokensText(tokens),
    step.cost_usd[side] === null ? '' : formatUsd(step.cost_usd[side]),
    step.duration_ms[side] === null ? '' : msText(step.duration_ms[side]),
  ].filter((part) => part !== '');
  return parts.length === 0 ? 'no usage recorded' : parts.join(' · ');
}

function tokensText(tokens: Record<string, number>): string {
  const input = tokens['input_tokens'];
  const output = tokens['output_tokens'];
  const parts = [input === undefined ? '' : `${input.toLocaleString()} in`, output === undefined ? '' : `${output.toLocaleString()} out`].filter((part) => part !== '');
  return parts.length === 0 ? '' : parts.join(' · ');
}

export function msText(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

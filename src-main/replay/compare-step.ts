// One step of two sessions compared as the agent worked it (compare.ts): the request the model saw (the Context
// view's, compaction views applied: renderStepRequestShown), then its answer (its text, its tool calls by name
// and arguments). Each side's payloads are read for this step only and dropped after it.
import { originLabel } from '../../src-shared/compaction.js';
import type { Difference } from '../../src-shared/compare.js';
import type { EpisodeFold, JsonValue, MessageOrigin, SessionFold, StepFold } from '../../src-shared/replay.js';
import { argsGist } from '../../src-shared/blocks.js';
import { blockText, comparedText, contentBlocks, partingWords, sameText, valueText, wordDiff, type ComparedText } from './compare-text.js';
import { EpisodeIndex } from './episode-index.js';
import { stepMessage, type PayloadReader } from './payloads.js';
import { renderStepRequestShown } from './transcript.js';
import { isMap } from './values.js';

export interface SideStep {
  fold: SessionFold;
  episode: EpisodeFold;
  step: StepFold;
  payloads: PayloadReader;
}

/** The messages of a request compared: its first REQUEST_HEAD_MESSAGES and its last REQUEST_TAIL_MESSAGES (a
 *  message enters a request at its end, so each is compared at the step it enters, while it is in the tail),
 *  the rest by count and size. */
const REQUEST_HEAD_MESSAGES = 8;
const REQUEST_TAIL_MESSAGES = 64;
/** Blocks of a message compared one by one; past them, by the message's count only. */
const MESSAGE_BLOCKS_MAX = 256;

interface ComparedMessage {
  origin: MessageOrigin;
  role: string;
  blocks: ComparedText[];
  block_count: number;
  /** For a step's tool message: the name of the call each result block answers. */
  call_names: string[];
}

interface ComparedRequest {
  count: number;
  size_bytes: number;
  /** [position in the request, message]: the head, then the tail. */
  messages: [number, ComparedMessage][];
  /** Its problems' kinds and causes (their messages name seqs, which differ between any two runs), and the first
   *  problem's message. */
  problems: string[];
  problem_words: string | null;
}

export function compareRequest(a: SideStep, b: SideStep): Difference | null {
  const [ra, rb] = [requestOf(a), requestOf(b)];
  if (ra.problems.join('\n') !== rb.problems.join('\n')) {
    const which = ra.problems.length > 0 ? 'A' : 'B';
    const other = which === 'A' ? rb : ra;
    return plain('request', `${which}'s request ${other.problems.length > 0 ? 'has other problems' : 'is not rendered whole'}: ${(which === 'A' ? ra : rb).problem_words ?? ''}`);
  }
  // Uncut, two requests are compared message by message from the first; cut, their heads from the first and
  // their tails from the last.
  const whole = ra.messages.length === ra.count && rb.messages.length === rb.count;
  const heads = whole ? Math.min(ra.count, rb.count) : Math.min(REQUEST_HEAD_MESSAGES, ra.count, rb.count);
  for (let at = 0; at < heads; at++) {
    const found = messageDifference(ra.messages[at]![1], rb.messages[at]![1], a.episode.episode);
    if (found !== null) return { ...found, sentence: `the request differs at message ${at + 1} (${found.sentence})` };
  }
  const tails = whole ? 0 : Math.min(ra.messages.length, rb.messages.length) - heads;
  for (let back = tails; back >= 1; back--) {
    const [position, ma] = ra.messages[ra.messages.length - back]!;
    const mb = rb.messages[rb.messages.length - back]![1];
    const found = messageDifference(ma, mb, a.episode.episode);
    if (found !== null) return { ...found, sentence: `the request differs at message ${position + 1} (${found.sentence})` };
  }
  if (ra.count !== rb.count) return plain('request', `the request has ${ra.count.toLocaleString('en-US')} messages in A, ${rb.count.toLocaleString('en-US')} in B`);
  if (ra.size_bytes !== rb.size_bytes) return plain('request', `the request is ${ra.size_bytes.toLocaleString('en-US')} bytes in A, ${rb.size_bytes.toLocaleString('en-US')} in B, in messages the comparison did not read one by one`);
  return null;
}

function requestOf(side: SideStep): ComparedRequest {
  const request = renderStepRequestShown(side.fold, side.episode.episode, side.step.step_id, side.payloads, {
    head: REQUEST_HEAD_MESSAGES,
    tail: REQUEST_TAIL_MESSAGES,
    show: (rendered): ComparedMessage => {
      const blocks = contentBlocks(rendered.message);
      const role = typeof rendered.message['role'] === 'string' ? rendered.message['role'] : '?';
      return { origin: rendered.origin, role, blocks: blocks.slice(0, MESSAGE_BLOCKS_MAX).map((block) => comparedText(blockText(block))), block_count: blocks.length, call_names: callNames(side.fold, rendered.origin, role) };
    },
  });
  const positions = request.messages.map((_, at) => (at < request.left_out_at || request.left_out === 0 ? at : at + request.left_out));
  return { count: request.message_count, size_bytes: request.size_bytes, messages: request.messages.map((message, at) => [positions[at]!, message]), problems: request.problems.map((problem) => `${problem.kind}:${problem.cause ?? ''}`), problem_words: request.problems[0]?.message ?? null };
}

function callNames(fold: SessionFold, origin: MessageOrigin, role: string): string[] {
  if (origin.kind !== 'step' || role !== 'tool') return [];
  const episode = fold.episodes[origin.episode - 1];
  if (episode === undefined) return [];
  const index = EpisodeIndex.of(episode);
  return (index.batch(index.step(origin.step_id)?.batch_id ?? null)?.calls ?? []).slice(0, MESSAGE_BLOCKS_MAX).map((call) => call.name);
}

function messageDifference(a: ComparedMessage, b: ComparedMessage, episode: number): Difference | null {
  const [label_a, label_b] = [originLabel(a.origin, episode), originLabel(b.origin, episode)];
  if (a.origin.kind !== b.origin.kind) return plain('request', `${label_a} in A, ${label_b} in B`);
  if (a.role !== b.role) return plain('request', `${label_a}: a ${a.role} message in A, a ${b.role} message in B`);
  const blocks = Math.min(a.blocks.length, b.blocks.length);
  for (let at = 0; at < blocks; at++) {
    if (sameText(a.blocks[at]!, b.blocks[at]!)) continue;
    const what = a.call_names[at] === undefined ? `${label_a}, block ${at + 1}: texts` : `the result of \`${a.call_names[at]}\` call ${at + 1}: outputs`;
    return { kind: 'request', sentence: `${what} differ ${partingWords(a.blocks[at]!, b.blocks[at]!)}`, words: wordDiff(a.blocks[at]!, b.blocks[at]!) };
  }
  if (a.block_count !== b.block_count) return plain('request', `${label_a}: ${a.block_count} blocks in A, ${b.block_count} in B`);
  return null;
}

/** A side's answer as compared: its text blocks' text, and its tool calls by name and arguments, in order. */
export interface Answer {
  text: ComparedText;
  calls: { id: string | null; name: string; args: JsonValue }[];
}

export function answerOf(side: SideStep): Answer {
  const blocks = contentBlocks(stepMessage(side.step, side.payloads));
  const texts: string[] = [];
  const calls: Answer['calls'] = [];
  for (const block of blocks) {
    if (!isMap(block)) continue;
    if (block['type'] === 'tool_use') calls.push({ id: typeof block['id'] === 'string' ? block['id'] : null, name: valueText(block['name'] ?? null), args: block['input'] ?? null });
    else if (block['type'] === 'text' || block['type'] === 'text_with_state') texts.push(blockText(block));
  }
  return { text: comparedText(texts.join('\n')), calls };
}

/** The answers' differences: their text (a word diff), then the first tool call asked for that differs. */
export function compareAnswers(a: Answer, b: Answer, natural_end: { a: boolean; b: boolean }): Difference[] {
  const differences: Difference[] = [];
  if (!sameText(a.text, b.text)) differences.push({ kind: 'answer_text', sentence: `the answer's text differs ${partingWords(a.text, b.text)}`, words: wordDiff(a.text, b.text) });
  const length = Math.max(a.calls.length, b.calls.length);
  for (let at = 0; at < length; at++) {
    const [ca, cb] = [a.calls[at], b.calls[at]];
    if (ca !== undefined && cb !== undefined && ca.name === cb.name && valueText(ca.args) === valueText(cb.args)) continue;
    const said = (side: 'A' | 'B', call: Answer['calls'][number] | undefined, ended: boolean) =>
      call === undefined ? `${side} asked for no call ${at + 1}${at === 0 && ended ? ' (its answer ends the run)' : ''}` : `${side} called ${callWords(call)}`;
    differences.push(plain('answer_calls', `${said('A', ca, natural_end.a)}, ${said('B', cb, natural_end.b)}`));
    break;
  }
  return differences;
}

/** "`bash` with `pytest -x`": a call's name and its arguments' gist. */
function callWords(call: Answer['calls'][number]): string {
  const gist = argsGist(call.args);
  return gist === null ? `\`${call.name}\`` : `\`${call.name}\` with \`${gist}\``;
}

function plain(kind: Difference['kind'], sentence: string): Difference {
  return { kind, sentence, words: null };
}

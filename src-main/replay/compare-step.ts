// One step of two sessions compared as the agent worked it (compare.ts): the request the model saw (the Context
// view's, compaction views applied: renderStepRequestShown), then its answer (its text, its tool calls by name
// and arguments). Each side's payloads are read for this step only and dropped after it.
import { originLabel } from '../../src-shared/compaction.js';
import type { Difference } from '../../src-shared/compare.js';
import type { EpisodeFold, JsonPayload, JsonValue, MessageOrigin, SessionFold, StepFold } from '../../src-shared/replay.js';
import { argsGist } from '../../src-shared/blocks.js';
import { blockText, comparedText, contentBlocks, partingWords, sameText, valueText, wordDiff, type ComparedText } from './compare-text.js';
import { EpisodeIndex } from './episode-index.js';
import { stepMessage, type PayloadReader } from './payloads.js';
import type { Sums } from './sums.js';
import { renderStepRequestShown } from './transcript.js';
import { isMap } from './values.js';

export interface SideStep {
  fold: SessionFold;
  episode: EpisodeFold;
  step: StepFold;
  payloads: PayloadReader;
  /** The comparison's store: each earlier episode's part rendered and measured once, not at every step. */
  sums: Sums;
}

/** The messages of a request compared: its first REQUEST_HEAD_MESSAGES and its last REQUEST_TAIL_MESSAGES (a
 *  message enters a request at its end, so each is compared at the step it enters, while it is in the tail). */
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
  /** [position in the request, message]: the head, then the tail. */
  messages: [number, ComparedMessage][];
  /** Its problems' kinds and causes (their messages name seqs, which differ between any two runs), and the first
   *  problem's message. */
  problems: string[];
  problem_words: string | null;
}

/** The first difference of the two requests in a message pair not compared before (`seen`: a message enters
 *  every later request, and a step's own turn is compared as its answer and calls), or a message only one side's
 *  request holds; null when none. */
export function compareRequest(a: SideStep, b: SideStep, seen: Set<string>): Difference | null {
  const [ra, rb] = [requestOf(a, seen), requestOf(b, seen)];
  if (ra.problems.join('\n') !== rb.problems.join('\n')) {
    const which = ra.problems.length > 0 ? 'A' : 'B';
    const other = which === 'A' ? rb : ra;
    return plain('request', `${which}'s request ${other.problems.length > 0 ? 'has other problems' : 'is not rendered whole'}: ${(which === 'A' ? ra : rb).problem_words ?? ''}`);
  }
  let first: Difference | null = null;
  let others = 0;
  for (const [position, key, ma, mb] of alignedMessages(ra, rb)) {
    if (seen.has(key)) continue;
    seen.add(key);
    const found = ma === null || mb === null ? onlyIn(ma === null ? 'B' : 'A', (ma ?? mb)!, a.episode.episode) : messageDifference(ma, mb, a.episode.episode);
    if (found === null) continue;
    if (first === null) first = { ...found, sentence: `the request differs at message ${position + 1} (${found.sentence})` };
    else others += 1;
  }
  return first === null || others === 0 ? first : { ...first, sentence: `${first.sentence}, and in ${others === 1 ? '1 more message' : `${others.toLocaleString('en-US')} more messages`}` };
}

/** The messages of two requests side by side, each pair by where it came from (its origin and role, the first
 *  such in A with the first in B, and so on), in A's order with A's position, then those only B has with B's:
 *  an input of two messages beside one of one shifts no later message. */
function alignedMessages(ra: ComparedRequest, rb: ComparedRequest): [number, string, ComparedMessage | null, ComparedMessage | null][] {
  const keyed = (request: ComparedRequest) => {
    const counts = new Map<string, number>();
    return request.messages.map(([position, message]) => {
      const key = messageKey(message);
      const nth = (counts.get(key) ?? 0) + 1;
      counts.set(key, nth);
      return { position, key: nth === 1 ? key : `${key}#${nth}`, message };
    });
  };
  const in_b = new Map(keyed(rb).map((entry) => [entry.key, entry]));
  const pairs: [number, string, ComparedMessage | null, ComparedMessage | null][] = keyed(ra).map(({ position, key, message }) => {
    const other = in_b.get(key);
    in_b.delete(key);
    return [position, key, message, other?.message ?? null];
  });
  for (const { position, key, message } of in_b.values()) pairs.push([position, key, null, message]);
  return pairs;
}

/** What a message is known by across steps and sides: its origin's kind and episode, a step's id (a steer's seq
 *  and a view's id are each run's own: they are told apart by their order), and its role. */
function messageKey(message: ComparedMessage): string {
  const origin = message.origin;
  return `${origin.kind}:${origin.episode}:${origin.kind === 'step' ? origin.step_id : ''}:${message.role}`;
}

/** The key `compareRequest` knows a step's own messages by once the step itself is compared. */
export function stepMessageKeys(episode: number, step_id: number): string[] {
  return ['assistant', 'tool'].map((role) => `step:${episode}:${step_id}:${role}`);
}

function onlyIn(side: 'A' | 'B', message: ComparedMessage, episode: number): Difference {
  return plain('request', `${originLabel(message.origin, episode)}, a ${message.role} message, is in ${side}'s request only`);
}

/** A step's request as compared. A message of a step compared already (`seen`) is not read again: it stands as
 *  its origin and role alone, which is all `compareRequest` looks at before it skips it. So each message is read
 *  once, at the first step that carries it, however many later requests carry it too. */
function requestOf(side: SideStep, seen: ReadonlySet<string>): ComparedRequest {
  const request = renderStepRequestShown(side.fold, side.episode.episode, side.step.step_id, side.payloads, {
    head: REQUEST_HEAD_MESSAGES,
    tail: REQUEST_TAIL_MESSAGES,
    known: (unread): ComparedMessage | undefined => {
      if (unread.origin.kind !== 'step') return undefined;
      const placeholder: ComparedMessage = { origin: unread.origin, role: roleOf(unread.message), blocks: [], block_count: 0, call_names: [] };
      return seen.has(messageKey(placeholder)) ? placeholder : undefined;
    },
    show: (rendered): ComparedMessage => {
      const blocks = contentBlocks(rendered.message);
      const role = roleOf(rendered.message);
      return { origin: rendered.origin, role, blocks: blocks.slice(0, MESSAGE_BLOCKS_MAX).map((block) => comparedText(blockText(block))), block_count: blocks.length, call_names: callNames(side.fold, rendered.origin, role, side.sums) };
    },
  }, side.sums);
  const positions = request.messages.map((_, at) => (at < request.left_out_at || request.left_out === 0 ? at : at + request.left_out));
  return { count: request.message_count, messages: request.messages.map((message, at) => [positions[at]!, message]), problems: request.problems.map((problem) => `${problem.kind}:${problem.cause ?? ''}`), problem_words: request.problems[0]?.message ?? null };
}

function roleOf(message: JsonPayload): string {
  return typeof message['role'] === 'string' ? message['role'] : '?';
}

function callNames(fold: SessionFold, origin: MessageOrigin, role: string, sums: Sums): string[] {
  if (origin.kind !== 'step' || role !== 'tool') return [];
  const episode = fold.episodes[origin.episode - 1];
  if (episode === undefined) return [];
  const index = EpisodeIndex.of(episode, sums);
  return (index.batch(index.step(origin.step_id)?.batch_id ?? null)?.calls ?? []).slice(0, MESSAGE_BLOCKS_MAX).map((call) => call.name);
}

function messageDifference(a: ComparedMessage, b: ComparedMessage, episode: number): Difference | null {
  // Paired by origin (alignedMessages); a view's id is its run's own, so what is compared is what it says.
  const label_a = originLabel(a.origin, episode);
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

// The conversation as a request carries it, rebuilt TURN by turn (contract §4): a model step with tool calls
// enters only once its batch is committed (every call with exactly one terminal and tool_batch_finished
// durable, whether the results came live or from a close-out repair). The first uncommitted turn ends the
// episode's part of the prompt, so no rendered request ever holds a bare tool_use.
//
// Steers: the format has no step_started record (a model step is recorded only when it completes), so a steer
// joins the prompt before the first model step recorded after it, or at run_finished (the end) when none
// follows. That never puts it between a tool call and its result.
//
// Compaction views (wal-format §6): from a view's step on, its replacement stands in for every turn of steps
// 1…through_step (and the steers joining them); the run's input stays first and later turns follow. The
// runtime renders each request with `renderTranscript` over the fold as it is at that step; `renderStepRequest`
// renders the same request afterwards from the whole WAL, which is how `walscope replay --at` and the app show
// what the model saw. A view that no longer assembles fails the rendering: no messages, one problem.
import assert from 'node:assert/strict';
import { appendAll } from '../../src-shared/arrays.js';
import { ChunkedList, type Parts } from '../../src-shared/parts.js';
import type {
  BatchFold,
  CallFold,
  EpisodeFold,
  JsonPayload,
  JsonValue,
  ProviderProblem,
  RenderedMessage,
  RequestProblem,
  SessionFold,
  StepFold,
  StepRequest,
  ViewInRequest,
} from '../../src-shared/replay.js';
import type { CborValue } from '../../src-shared/wal.js';
import { headBytes, MAJOR_MAP, ReadBy } from '../engine/index.js';
import { EpisodeIndex, sharedStepsAndBatches } from './episode-index.js';
import { sharedBatches, sharedSteps } from './resumable.js';
import { FullSums, Table, type SumSpec, type Sums } from './sums.js';
import { emptyAssistantMessage, PAYLOADS_UNREAD, stepMessage, terminalOutput, type PayloadProjection, type PayloadReader } from './payloads.js';
import { checkProviderValid, requestTurns, type RequestTurns } from './provider-validity.js';
import { isMap } from './values.js';
import { requestSize, viewProblem, viewRecords, type ViewRecord } from './views.js';

/** A part rendered with its payloads unread, and the index to read them back by. */
type IndexedRendering = Rendering & { index: EpisodeIndex };

interface Rendering {
  messages: Parts<RenderedMessage>;
  problems: RequestProblem[];
  /** The view in force and the messages it stands in for (measured only when a caller shows them). */
  view: ViewRecord | null;
  replaced: RenderedMessage[];
}

/** The messages the session's next request carries: every episode's input, committed turns and steers, each
 *  episode with its latest view. Empty when a view no longer assembles (see `renderSessionRequest`). */
export function renderTranscript(fold: SessionFold, payloads: PayloadReader, sums: Sums = new FullSums()): JsonPayload[] {
  return renderSessionRequest(fold, payloads, sums).messages.map((rendered) => rendered.message);
}

/** The session's next request with each message's origin, and the problems that stop it being rendered. */
export function renderSessionRequest(fold: SessionFold, payloads: PayloadReader, sums: Sums = new FullSums()): { messages: RenderedMessage[]; problems: RequestProblem[] } {
  return joined(fold.episodes.map((episode) => renderEpisode(episode, null, payloads, sums)));
}

/** One episode's part of the session's next request, rendered alone, its tool outputs unread:
 *  `renderSessionRequest` is these parts in episode order (none at all when any part has a problem). An open
 *  episode's part is kept and taken on from snapshot to snapshot; a finished one's is rendered anew (what is
 *  kept of it is `finishedPartFacts`). */
export function renderEpisodeRequest(episode: EpisodeFold, sums: Sums = new FullSums()): { messages: Parts<RenderedMessage>; problems: readonly RequestProblem[] } {
  const { messages, problems } = episode.finished === null ? unreadPart(episode, sums) : renderEpisode(episode, null, PAYLOADS_UNREAD, sums);
  return { messages, problems };
}

/** What a finished episode's part of the request comes to, kept in place of its messages: how many, the
 *  problems that stop it rendering, its turns for the provider-validity check, and what its measure takes from
 *  its messages unread. Keeping every finished part's rendered messages (an origin and a message a turn, a
 *  result block a call) held 60 MB of a million records' session for these facts; the views that show
 *  messages render a part again. */
export interface PartFacts {
  count: number;
  problems: readonly RequestProblem[];
  turns: RequestTurns;
  unread: UnreadMeasure;
}

/** A part's measure (`PartMeasure`) as far as its messages unread give it: the bytes of every message but the
 *  assistant messages read back (`assistant_steps`, in order, measured where they lie), and its provider
 *  validity as the unread messages have it, which holds unless a message read back names a tool_result. */
interface UnreadMeasure {
  bytes: number;
  assistant_steps: readonly StepFold[];
  validity: readonly ProviderProblem[];
  head_clean: boolean;
}

const FINISHED_PART_FACTS = new Table<EpisodeFold, PartFacts>('finished request parts');

export function finishedPartFacts(episode: EpisodeFold, sums: Sums = new FullSums()): PartFacts {
  assert(episode.finished !== null, `episode ${episode.episode} is open: its part changes with every append`);
  const part_facts = sums.table(FINISHED_PART_FACTS);
  let facts = part_facts.get(episode);
  if (facts === undefined) {
    const rendering = { ...renderEpisode(episode, null, PAYLOADS_UNREAD, sums), index: EpisodeIndex.of(episode, sums) };
    const { messages, problems } = rendering;
    part_facts.set(episode, (facts = { count: messages.length, problems, turns: requestTurns(messages), unread: unreadMeasure(rendering, sums) }));
  }
  return facts;
}

/** `readPart`'s walk over a part with nothing read back: a tool message is sized by the output sizes the fold
 *  kept, an assistant message of a step with no offset is its unread self. */
function unreadMeasure(rendering: IndexedRendering, sums: Sums): UnreadMeasure {
  let bytes = 0;
  const assistant_steps: StepFold[] = [];
  const messages: JsonPayload[] = [];
  for (let position = 0; position < rendering.messages.length; position++) {
    const unread = rendering.messages.at(position)!;
    messages.push(unread.message);
    if (isToolAt(rendering.messages, position)) bytes += toolMessageSize(rendering.index, unread, sums);
    else if (unread.origin.kind === 'step' && rendering.index.step(unread.origin.step_id)!.offset !== null) assistant_steps.push(rendering.index.step(unread.origin.step_id)!);
    else bytes += itemsSize([unread.message], sums);
  }
  return { bytes, assistant_steps, validity: checkProviderValid(messages).problems, head_clean: headClean(messages) };
}

/** A finished part's measure from its facts, its assistant messages measured where they lie; null when one
 *  names a tool_result or the reader builds whole payloads (the part is then read whole: `measured`). */
function measureFromFacts(facts: PartFacts, payloads: PayloadReader): PartMeasure | null {
  let bytes = facts.unread.bytes;
  for (const step of facts.unread.assistant_steps) {
    const measure: unknown = payloads(step.offset!, MESSAGE_MEASURED)['assistant_message'];
    if (!(measure instanceof MeasuredMessage) || measure.names_tool_result) return null;
    bytes += measure.bytes;
  }
  return { count: facts.count, bytes, problems: facts.problems, validity: facts.unread.validity, head_clean: facts.unread.head_clean };
}

/** The request of step `step_id` of episode `episode_number` exactly as the model saw it: earlier episodes as
 *  they ended, then this run's input, its latest view at that step in place of the turns it covers, the later
 *  turns before the step and the steers that joined it. */
export function renderStepRequest(fold: SessionFold, episode_number: number, step_id: number, payloads: PayloadReader, sums: Sums = new FullSums()): StepRequest {
  const { episode, view, messages, size_bytes, problems } = renderStepRequestShown(fold, episode_number, step_id, payloads, { head: Infinity, tail: 0, show: (rendered) => rendered }, sums);
  return { episode, step_id, view, messages, size_bytes, problems };
}

/** `renderStepRequest` with only the messages a view shows built, each as `show` makes it: past `head + tail`
 *  messages, its first `head` and its last `tail`, the `left_out` between them lying before
 *  `messages[left_out_at]`. */
export interface ShownStepRequest<T> extends Omit<StepRequest, 'messages'> {
  messages: T[];
  message_count: number;
  left_out: number;
  left_out_at: number;
}

/** What a view shows of a request: its first `head` and last `tail` messages, each as `show` makes it (as it is
 *  read: a shown message's outputs, up to 4 MiB each, are not all held at once). */
export interface RequestWindow<T> {
  head: number;
  tail: number;
  show: (rendered: RenderedMessage) => T;
  /** What a message in the window stands for when the caller has it already, told from its unread rendering
   *  (its origin and shape): its payloads are then not read (a comparison reads each message once, not at
   *  every later step whose request carries it). Undefined: read it and `show` it. */
  known?: (unread: RenderedMessage) => T | undefined;
  /** How a shown tool message's outputs are read (default: whole); its size is the fold's either way. */
  output_cut?: PayloadProjection;
}

/** `renderStepRequest`, its messages built (their payloads read back) only where `shown` says. Each earlier
 *  episode's part is read and measured once per episode (`partMeasure`: its messages, bytes, view problems and
 *  provider validity), so a step change reads this episode's part and the messages shown, however many
 *  episodes came before: a million records' look built and checked 203,000 messages to show 1,000. */
export function renderStepRequestShown<T>(fold: SessionFold, episode_number: number, step_id: number, payloads: PayloadReader, shown: RequestWindow<T>, sums: Sums = new FullSums()): ShownStepRequest<T> {
  const parts = requestParts(fold, episode_number, step_id, payloads, shown, sums);
  const own = parts.at(-1)?.episode.episode === episode_number ? parts.at(-1)!.rendering : null;
  const view = own?.view ?? null;
  const replaced = own === null || view === null ? [] : own.replaced.map((rendered, at) => ({ origin: rendered.origin, message: withOutputsAt(own.index, own.replaced, at, payloads) }));
  const request = { episode: episode_number, step_id, view: view === null ? null : viewInRequest(view, replaced, sums) };
  const view_problems = parts.flatMap((part) => part.measure.problems);
  if (view_problems.length > 0) return { ...request, messages: [], message_count: 0, left_out: 0, left_out_at: 0, size_bytes: headBytes(0), problems: [...view_problems] };
  const count = parts.reduce((sum, part) => sum + part.measure.count, 0);
  const bytes = parts.reduce((sum, part) => sum + part.measure.bytes, 0);
  const problems = requestValidity(parts, payloads, sums).map((problem): RequestProblem => ({
    kind: problem.kind,
    cause: null,
    seq: null,
    message: `message ${problem.message_index}: ${problem.kind.replaceAll('_', ' ')} for ${problem.tool_use_id}`,
  }));
  const cut = count > shown.head + shown.tail;
  return {
    ...request,
    messages: parts.flatMap((part) => part.shown),
    message_count: count,
    left_out: cut ? count - shown.head - shown.tail : 0,
    left_out_at: cut ? shown.head : 0,
    size_bytes: count === 0 ? headBytes(0) : headBytes(count) + bytes,
    problems,
  };
}

/** One episode's part of a step's request: its messages unread (the step's own episode's only: an earlier
 *  part is dropped once measured or shown), as measured, and those of it that are shown. */
interface RequestPart<T> {
  episode: EpisodeFold;
  rendering: IndexedRendering | null;
  measure: PartMeasure;
  shown: T[];
}

/** The parts of step `step_id`'s request: every earlier episode's whole part, measured once per episode, and
 *  this episode's up to the step, measured now; the messages of each within `shown`, each payload read at most
 *  once (a part measured now keeps the messages it read that are shown). An earlier episode measured before is
 *  rendered again only when the window reaches into it: a step of a session of thousands of episodes renders
 *  the few its request's head and tail lie in, not every one before it. An earlier part is rendered when it is
 *  measured or shown and dropped after (its length is known before: `finishedPartFacts`), so a first look holds
 *  one earlier part's messages at a time, not a million records' 203,000. */
function requestParts<T>(fold: SessionFold, episode_number: number, step_id: number, payloads: PayloadReader, shown: RequestWindow<T>, sums: Sums): RequestPart<T>[] {
  const parts: { episode: EpisodeFold; rendering: IndexedRendering | null; count: number }[] = earlierEpisodes(fold, episode_number).map((episode) => {
    const kept = sums.table(PART_MEASURES).get(episode);
    if (kept !== undefined) return { episode, rendering: null, count: kept.count };
    if (episode.finished !== null) return { episode, rendering: null, count: finishedPartFacts(episode, sums).count };
    const rendering = unreadOf(episode, sums);
    return { episode, rendering, count: rendering.messages.length };
  });
  const target = fold.episodes.find((episode) => episode.episode === episode_number);
  if (target !== undefined) {
    const rendering = { ...renderEpisode(target, step_id, PAYLOADS_UNREAD, sums), index: EpisodeIndex.of(target, sums) };
    parts.push({ episode: target, rendering, count: rendering.messages.length });
  }
  const count = parts.reduce((sum, part) => sum + part.count, 0);
  const window = count > shown.head + shown.tail ? [{ from: 0, to: shown.head }, { from: count - shown.tail, to: count }] : [{ from: 0, to: count }];
  let offset = 0;
  return parts.map(({ episode, rendering: had, count: length }) => {
    const start = offset;
    offset += length;
    const wanted = window.flatMap((range) => spanOf(range, start, length));
    if (episode !== target && wanted.length === 0) return { episode, rendering: null, measure: partMeasure(episode, payloads, sums), shown: [] };
    const kept = episode === target ? undefined : sums.table(PART_MEASURES).get(episode);
    const rendering = had ?? unreadOf(episode, sums);
    const own = episode === target ? rendering : null;
    const made = knownOf(rendering, wanted, shown);
    if (kept !== undefined) {
      return { episode, rendering: own, measure: kept, shown: wanted.map((position) => made.get(position) ?? shown.show(shownAt(rendering, position, payloads, shown.output_cut))) };
    }
    const take = {
      wanted: new Set(wanted.filter((position) => !made.has(position))),
      output_cut: shown.output_cut,
      message: (position: number, message: JsonPayload) => made.set(position, shown.show({ origin: rendering.messages.at(position)!.origin, message })),
    };
    const measure = measured(rendering, payloads, sums, take);
    if (episode !== target) sums.table(PART_MEASURES).set(episode, measure);
    return { episode, rendering: own, measure, shown: wanted.map((position) => made.get(position)!) };
  });
}

/** The messages at `positions` the window's caller has already (`known`), by position. */
function knownOf<T>(rendering: IndexedRendering, positions: readonly number[], shown: RequestWindow<T>): Map<number, T> {
  const known = new Map<number, T>();
  if (shown.known === undefined) return known;
  for (const position of positions) {
    const value = shown.known(rendering.messages.at(position)!);
    if (value !== undefined) known.set(position, value);
  }
  return known;
}

/** The positions of a part of `length` messages starting at `start` that `range` (of the request) covers. */
function spanOf(range: { from: number; to: number }, start: number, length: number): number[] {
  const positions: number[] = [];
  for (let position = Math.max(0, range.from - start); position < Math.min(length, range.to - start); position++) positions.push(position);
  return positions;
}

function shownAt(rendering: IndexedRendering, position: number, payloads: PayloadReader, output_cut?: PayloadProjection): RenderedMessage {
  return { origin: rendering.messages.at(position)!.origin, message: withOutputsAt(rendering.index, rendering.messages, position, payloads, output_cut) };
}

/** The message at `at` of a part rendered unread, its payloads read back. Told by its place, not its role: a
 *  step's turn is its assistant message and then (unless it ended the run) its tool message, and a hostile
 *  assistant message may say it is a tool's. */
export function withOutputsAt(index: EpisodeIndex, messages: Parts<RenderedMessage>, at: number, payloads: PayloadReader, output_cut?: PayloadProjection): JsonPayload {
  const rendered = messages.at(at)!;
  if (rendered.origin.kind !== 'step') return rendered.message;
  const step = index.step(rendered.origin.step_id)!;
  return isToolAt(messages, at) ? toolMessage(index.batch(step.batch_id)!, payloads, output_cut) : stepMessage(step, payloads);
}

function isToolAt(messages: Parts<RenderedMessage>, at: number): boolean {
  const origin = messages.at(at)!.origin;
  const before = at > 0 ? messages.at(at - 1)!.origin : null;
  return origin.kind === 'step' && before?.kind === 'step' && before.step_id === origin.step_id;
}

/** An episode's whole part, its outputs unread: the open episode's kept part, else rendered (and dropped: see
 *  `finishedPartFacts`). */
function unreadOf(episode: EpisodeFold, sums: Sums): IndexedRendering {
  return { ...(sums.table(UNREAD_PARTS).get(episode) ?? renderEpisode(episode, null, PAYLOADS_UNREAD, sums)), index: EpisodeIndex.of(episode, sums) };
}

/** The provider validity of the parts joined. The check starts afresh at every assistant message, so when no
 *  part but the first has a tool_use or tool_result block before its first assistant message, it is each
 *  part's own problems in order (counted from the request's first message); otherwise the request is checked
 *  whole, its parts read again. */
function requestValidity(parts: readonly RequestPart<unknown>[], payloads: PayloadReader, sums: Sums): ProviderProblem[] {
  if (parts.every((part, at) => at === 0 || part.measure.head_clean)) {
    const problems: ProviderProblem[] = [];
    let offset = 0;
    for (const part of parts) {
      for (const problem of part.measure.validity) problems.push({ ...problem, message_index: problem.message_index + offset });
      offset += part.measure.count;
    }
    return problems;
  }
  const checked: JsonPayload[] = [];
  for (const part of parts) appendAll(checked, readPart(part.rendering ?? unreadOf(part.episode, sums), payloads, sums).checked);
  return checkProviderValid(checked).problems;
}

/** An episode's part with its payloads read: how many messages, their CBOR bytes (the array's head left out),
 *  its view problems, and its provider validity checked alone (with whether it can be joined to the part
 *  before it unchecked: `requestValidity`). */
interface PartMeasure {
  count: number;
  bytes: number;
  problems: readonly RequestProblem[];
  validity: readonly ProviderProblem[];
  head_clean: boolean;
}

/** Each episode's whole part, measured once per episode: every later episode's request holds it as it is, so
 *  the Context view of a session of thousands of episodes reads and CBOR-encodes them at its first look only
 *  (a million records: 346,000 payload reads and 108 MB encoded). */
const PART_MEASURES = new Table<EpisodeFold, PartMeasure>('request part measures');

function partMeasure(episode: EpisodeFold, payloads: PayloadReader, sums: Sums): PartMeasure {
  const part_measures = sums.table(PART_MEASURES);
  let measure = part_measures.get(episode);
  if (measure === undefined) {
    const facts = episode.finished === null ? null : finishedPartFacts(episode, sums);
    measure = (facts === null ? null : measureFromFacts(facts, payloads)) ?? measured(unreadOf(episode, sums), payloads, sums);
    part_measures.set(episode, measure);
  }
  return measure;
}

function measured(rendering: IndexedRendering, payloads: PayloadReader, sums: Sums, take?: Parameters<typeof readPart>[3]): PartMeasure {
  const { bytes, checked } = readPart(rendering, payloads, sums, take);
  return { count: rendering.messages.length, bytes, problems: rendering.problems, validity: checkProviderValid(checked).problems, head_clean: headClean(checked) };
}

/** A part's messages read back one by one: their CBOR bytes, and the messages provider validity reads (a tool
 *  message's results are checked by id, unread). A message `take` wants is built (a tool message's outputs
 *  through its `output_cut`) and handed to it; a tool message is measured by the output sizes the fold kept, an
 *  assistant message no one is shown where it lies (`stepMessageMeasure`). */
function readPart(rendering: IndexedRendering, payloads: PayloadReader, sums: Sums, take?: { wanted: ReadonlySet<number>; output_cut: PayloadProjection | undefined; message: (position: number, message: JsonPayload) => void }): { bytes: number; checked: JsonPayload[] } {
  let bytes = 0;
  const checked: JsonPayload[] = [];
  for (let position = 0; position < rendering.messages.length; position++) {
    const unread = rendering.messages.at(position)!;
    const wanted = take?.wanted.has(position) === true;
    if (isToolAt(rendering.messages, position)) {
      if (wanted) take!.message(position, withOutputsAt(rendering.index, rendering.messages, position, payloads, take!.output_cut));
      bytes += toolMessageSize(rendering.index, unread, sums);
      checked.push(unread.message);
      continue;
    }
    if (unread.origin.kind === 'step' && !wanted) {
      const measure = stepMessageMeasure(rendering.index.step(unread.origin.step_id)!, payloads, sums);
      bytes += measure.bytes;
      checked.push(measure.checked);
      continue;
    }
    const message = withOutputsAt(rendering.index, rendering.messages, position, payloads);
    if (wanted) take!.message(position, message);
    bytes += itemsSize([message], sums);
    checked.push(message);
  }
  return { bytes, checked };
}

/** The CBOR size of the tool message `rendered` (unread) stands for: its own, each output read as null (one
 *  byte), with each output's size (the fold's) in place of that byte. */
function toolMessageSize(index: EpisodeIndex, rendered: RenderedMessage, sums: Sums): number {
  const step = rendered.origin.kind === 'step' ? index.step(rendered.origin.step_id)! : null;
  let bytes = itemsSize([rendered.message], sums);
  for (const call of step === null ? [] : index.batch(step.batch_id)!.calls) {
    const output_bytes = call.terminals[0]!.output_bytes;
    if (output_bytes !== null) bytes += output_bytes - 1;
  }
  return bytes;
}

/** An assistant message measured where it lies (`CborDecoder.measureItem`), and whether its bytes hold the text
 *  "tool_result" anywhere. */
class MeasuredMessage {
  constructor(
    readonly bytes: number,
    readonly names_tool_result: boolean,
  ) {}
}

const TOOL_RESULT_BYTES = Buffer.from('tool_result');

/** A model_step_finished's assistant message as far as a request's size and validity need: a map is measured
 *  where it lies; anything else is skipped (a request carries an empty assistant message then). Building each
 *  of a million records' messages to measure it was half the first Context look. */
const MESSAGE_MEASURED: PayloadProjection = {
  assistant_message: new ReadBy((decoder, depth) => {
    const start = decoder.position;
    decoder.peekHead();
    if (decoder.head_major !== MAJOR_MAP) {
      decoder.skipItem(depth);
      return null;
    }
    const bytes = decoder.measureItem(depth);
    const names_tool_result = decoder.bytes.subarray(start, decoder.position).includes(TOOL_RESULT_BYTES);
    return new MeasuredMessage(bytes, names_tool_result) as unknown as CborValue;
  }),
};

/** A recorded step's assistant message as `stepMessage` gives it, measured unbuilt: its bytes and a message
 *  provider validity judges as it judges the message itself. The check reads a message's role and its blocks'
 *  types and ids; the fold kept the role and the tool_use blocks' ids (`stepMessage` unread), so only a
 *  message with a tool_result block (whose bytes name one) is read back. */
/** `payloads` with each assistant message's measure kept once made: a pass over the steps of an episode (a
 *  comparison) measures each step's message once, not again at every later step whose request holds it. Lives
 *  as long as the pass. */
export function measuresKept(payloads: PayloadReader): PayloadReader {
  const kept = new Map<number, JsonPayload>();
  return (offset, projection) => {
    if (projection !== MESSAGE_MEASURED) return payloads(offset, projection);
    let payload = kept.get(offset);
    if (payload === undefined) kept.set(offset, (payload = payloads(offset, projection)));
    return payload;
  };
}

function stepMessageMeasure(step: StepFold, payloads: PayloadReader, sums: Sums): { bytes: number; checked: JsonPayload } {
  const measured: unknown = step.offset === null ? undefined : payloads(step.offset, MESSAGE_MEASURED)['assistant_message'];
  if (measured instanceof MeasuredMessage) return { bytes: measured.bytes, checked: measured.names_tool_result ? stepMessage(step, payloads) : stepMessage(step, PAYLOADS_UNREAD) };
  // A reader that builds whole payloads whatever it is asked (one over bytes in memory) hands the message back.
  const message = measured === undefined ? stepMessage(step, PAYLOADS_UNREAD) : isMap(measured as JsonValue) ? stepMessage(step, payloads) : emptyAssistantMessage();
  return { bytes: itemsSize([message], sums), checked: message };
}

function headClean(messages: readonly JsonPayload[]): boolean {
  for (const message of messages) {
    if (message['role'] === 'assistant') return true;
    const content = message['content'];
    if (Array.isArray(content) && content.some((block) => isMap(block) && (block['type'] === 'tool_use' || block['type'] === 'tool_result'))) return false;
  }
  return true;
}

/** The context lane: for each of `step_ids` (steps of one episode), the size of its request in canonical bytes
 *  (null when it cannot be rendered) and the view in force. Equal to renderStepRequest's size_bytes for each,
 *  but in one pass: every turn is rendered and measured once, and a step's size is a sum over the turns its
 *  request holds, so a lane of many steps in a long episode costs about one rendering, not one per step. */
export function laneSizes(fold: SessionFold, episode_number: number, step_ids: readonly number[], payloads: PayloadReader, sums: Sums = new FullSums()): { step_id: number; size_bytes: number | null; view: ViewInRequest | null }[] {
  const episode = fold.episodes.find((candidate) => candidate.episode === episode_number);
  if (episode === undefined) return [];
  const index = EpisodeIndex.of(episode, sums);
  const recorded = index.recordedSteps();
  // Step ids increase in WAL order in every WAL a runtime writes; anything else is measured step by step.
  if (!recorded.every((step, position) => position === 0 || step.step_id > recorded.at(position - 1)!.step_id)) {
    return step_ids.map((step_id) => {
      const request = renderStepRequest(fold, episode_number, step_id, payloads, sums);
      return { step_id, size_bytes: request.problems.length > 0 ? null : request.size_bytes, view: request.view };
    });
  }
  const prefix = earlierEpisodes(fold, episode_number)
    .map((earlier) => partMeasure(earlier, payloads, sums))
    .reduce((sum, part) => ({ count: sum.count + part.count, bytes: sum.bytes + part.bytes, problems: sum.problems + part.problems.length }), { count: 0, bytes: 0, problems: 0 });
  const input = asMessages(episode.input);
  // unit i: the steers joining recorded step i and its turn; sizes[i] is the size of units before i.
  const counts = [0];
  const sizes = [0];
  let cut = recorded.length;
  for (let position = 0; position < recorded.length; position++) {
    const step = recorded.at(position)!;
    const turn = renderTurn(episode.episode, index, step, payloads, sums);
    // The uncommitted turn ends the episode's part; the steers that joined it were already placed (unit `cut`).
    const unit = [...steersJoining(episode, index, step.step_id), ...(turn ?? [])];
    counts.push(counts[position]! + unit.length);
    sizes.push(sizes[position]! + itemsSize(messagesOf(unit), sums));
    if (turn === null) {
      cut = position;
      break;
    }
  }
  const views = viewRecords(episode, sums);
  return step_ids.map((step_id) => {
    const applicable = views.filter((view) => view.step_id <= step_id);
    const latest = applicable.at(-1) ?? null;
    const problem = latest === null ? null : viewProblem(latest, applicable.slice(0, -1));
    if (prefix.problems > 0 || problem !== null) return { step_id, size_bytes: null, view: latest === null ? null : viewInRequest(latest, [], sums) };
    const before = lowerBound(recorded, step_id);
    const covered = latest === null ? 0 : lowerBound(recorded, latest.through_step + 1);
    const end = before <= cut ? before : cut + 1;
    const from = Math.min(covered, end);
    const replaced = { count: counts[from]!, bytes: sizes[from]! };
    let count = prefix.count + input.length + (latest?.replacement.length ?? 0) + counts[end]! - replaced.count;
    let bytes = prefix.bytes + itemsSize(input, sums) + (latest === null ? 0 : itemsSize(latest.replacement, sums)) + sizes[end]! - replaced.bytes;
    if (before <= cut) {
      const tail = steersAtEnd(episode, index, step_id);
      count += tail.length;
      bytes += itemsSize(messagesOf(tail), sums);
    }
    return { step_id, size_bytes: headBytes(count) + bytes, view: latest === null ? null : viewInRequest(latest, [], sums) };
  });
}

/** The number of recorded steps (ascending step ids) with a step_id below `step_id`. */
function lowerBound(recorded: Parts<StepFold>, step_id: number): number {
  let low = 0;
  let high = recorded.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (recorded.at(middle)!.step_id < step_id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The CBOR size of messages as items of a larger array (without an array head of their own). */
function itemsSize(messages: readonly JsonPayload[], sums: Sums): number {
  return requestSize(messages, sums) - headBytes(messages.length);
}

const messagesOf = (rendered: Parts<RenderedMessage>): JsonPayload[] => rendered.map((entry) => entry.message);

function earlierEpisodes(fold: SessionFold, episode_number: number): EpisodeFold[] {
  return fold.episodes.filter((episode) => episode.episode < episode_number);
}

/** A view that no longer assembles in any episode fails the whole request: nothing is rendered around it. */
function joined(renderings: Rendering[]): { messages: RenderedMessage[]; problems: RequestProblem[] } {
  const problems = renderings.flatMap((rendering) => rendering.problems);
  if (problems.length > 0) return { messages: [], problems };
  const messages: RenderedMessage[] = [];
  for (const rendering of renderings) appendAll(messages, rendering.messages);
  return { messages, problems };
}

/** The open episode's whole part, its outputs unread, made once per fold snapshot (the session view's request
 *  and every plan's replayed count share it), taken on from the last snapshot's over the steps recorded after
 *  its checkpoint (views/incremental-sums.ts). A finished episode's part is not kept: `finishedPartFacts`. */
const UNREAD_PARTS = new Table<EpisodeFold, Rendering>('request parts unread');

function unreadPart(episode: EpisodeFold, sums: Sums): Rendering {
  assert(episode.finished === null, `episode ${episode.episode} is finished: its part is not kept`);
  const unread_parts = sums.table(UNREAD_PARTS);
  let part = unread_parts.get(episode);
  if (part === undefined) unread_parts.set(episode, (part = unreadPartOf(episode, sums)));
  return part;
}

function unreadPartOf(episode: EpisodeFold, sums: Sums): Rendering {
  const index = EpisodeIndex.of(episode, sums);
  const { latest, problem } = viewInForce(episode, sums);
  const turns = sums.sum(UNREAD_TURN_SUMS, episode);
  const head = asMessages(episode.input).map((message): RenderedMessage => ({ origin: { kind: 'input', episode: episode.episode }, message }));
  if (latest !== null && problem === null) appendAll(head, replacementOf(episode.episode, latest));
  const steers = turns.cut_at === null ? steersAtEnd(episode, index, null) : steersPastCut(episode, index, index.recordedSteps().slice(turns.cut_at + 1));
  const last = turns.last_part;
  if (last !== null && sameMessages(last, head, turns.body, steers)) return { messages: last.messages, problems: problem === null ? [] : [problem], view: latest, replaced: turns.replaced.slice() };
  // The last part's chunks up to the first turn that changed, when its input and view are the same: a copy as
  // long as the episode was ~1.6 MB a snapshot of a million records' open episode, all of it promoted.
  const messages = last !== null && sameHead(last, head)
    ? last.messages.withTail(head.length + last.body_kept, turns.body.slice(last.body_kept).concat(steers))
    : ChunkedList.of(head.concat(turns.body, steers));
  turns.last_part = { messages, head: head.length, body_kept: turns.body.length };
  return { messages, problems: problem === null ? [] : [problem], view: latest, replaced: turns.replaced.slice() };
}

/** Whether the last part made from these turns holds the messages a part made now would: the same turns (those
 *  summed again from the checkpoint are the same objects), with the same input, view and steers around them. An
 *  append that records no turn (most of a live run's) hands on the last part's list instead of a copy as long
 *  as the episode (~1.6 MB a snapshot of a million records' open episode). */
function sameMessages(last: NonNullable<UnreadTurns['last_part']>, head: readonly RenderedMessage[], body: readonly RenderedMessage[], steers: readonly RenderedMessage[]): boolean {
  const { messages } = last;
  if (!sameHead(last, head) || messages.length !== head.length + body.length + steers.length) return false;
  for (let at = last.body_kept; at < body.length; at++) if (messages.at(head.length + at) !== body[at]) return false;
  const steers_at = head.length + body.length;
  for (let at = 0; at < steers.length; at++) if (messages.at(steers_at + at)!.message !== steers[at]!.message) return false;
  return true;
}

/** Whether the last part starts with `head`'s messages (the episode's input and view): its rendered messages
 *  then stand for `head`'s, equal in origin and the same message objects. */
function sameHead(last: NonNullable<UnreadTurns['last_part']>, head: readonly RenderedMessage[]): boolean {
  if (last.head !== head.length) return false;
  for (let at = 0; at < head.length; at++) if (last.messages.at(at)!.message !== head[at]!.message) return false;
  return true;
}

/** The latest view of an episode's whole part and why it does not assemble (null when it does), per snapshot. */
const VIEWS_IN_FORCE = new Table<EpisodeFold, { latest: ViewRecord | null; problem: RequestProblem | null }>('views in force');

function viewInForce(episode: EpisodeFold, sums: Sums): { latest: ViewRecord | null; problem: RequestProblem | null } {
  const views_in_force = sums.table(VIEWS_IN_FORCE);
  let found = views_in_force.get(episode);
  if (found === undefined) {
    const views = viewRecords(episode, sums);
    const latest = views.at(-1) ?? null;
    views_in_force.set(episode, (found = { latest, problem: latest === null ? null : viewProblem(latest, views.slice(0, -1)) }));
  }
  return found;
}

interface UnreadTurns {
  body: RenderedMessage[];
  replaced: RenderedMessage[];
  cut_at: number | null;
  seen: number;
  /** The last part made from these turns: its messages, where its turns start in them, and how many of `body`'s
   *  leading turns are still the ones it holds (each rewind since may have cut some). */
  last_part: { messages: ChunkedList<RenderedMessage>; head: number; body_kept: number } | null;
}

/** The turns of an episode's whole part, recorded step by recorded step: those after the view's replacement
 *  (`body`), those it stands in for (`replaced`), and where an uncommitted turn cut the part. Taken on from the
 *  last snapshot's while the view in force and the steers are the same. */
const UNREAD_TURN_SUMS: SumSpec<StepFold, UnreadTurns> = {
  items: (episode, sums) => EpisodeIndex.of(episode, sums).recordedSteps(),
  initial: () => ({ body: [], replaced: [], cut_at: null, seen: 0, last_part: null }),
  copy: (turns) => ({ ...turns, body: turns.body.slice(), replaced: turns.replaced.slice(), last_part: null }),
  rewind: {
    mark: (turns) => ({ body: turns.body.length, replaced: turns.replaced.length, cut_at: turns.cut_at, seen: turns.seen }),
    to(turns, mark) {
      const at = mark as { body: number; replaced: number; cut_at: number | null; seen: number };
      if (turns.last_part !== null) turns.last_part.body_kept = Math.min(turns.last_part.body_kept, at.body);
      turns.body.length = at.body;
      turns.replaced.length = at.replaced;
      turns.cut_at = at.cut_at;
      turns.seen = at.seen;
    },
  },
  shared(before, episode, sums, steps_before, steps) {
    const [was, now] = [viewInForce(before, sums), viewInForce(episode, sums)];
    const same_view = was.latest?.seq === now.latest?.seq && (was.problem === null) === (now.problem === null);
    const same_steers = before.steers.length === episode.steers.length && before.steers.every((steer, at) => steer === episode.steers[at]);
    return same_view && same_steers ? sharedStepsAndBatches(before, episode, sums, steps_before, steps) : 0;
  },
  add(turns, step, episode, sums) {
    const position = turns.seen++;
    if (turns.cut_at !== null) return;
    const { latest } = viewInForce(episode, sums);
    const into = latest !== null && step.step_id <= latest.through_step ? turns.replaced : turns.body;
    if (!addTurn(into, episode, EpisodeIndex.of(episode, sums), step, PAYLOADS_UNREAD, sums)) turns.cut_at = position;
  },
};

/** The number of messages of each episode's whole part, null when it has a problem: what a plan's replayed
 *  count needs, counted once per fold snapshot's episode as the parts are. */
const PART_LENGTHS = new Table<EpisodeFold, number | null>('request part lengths');

/** An episode's part's message count: the open episode's from its part (kept: a live session view renders it
 *  next), a finished one's from its facts. */
function partLength(episode: EpisodeFold, sums: Sums): number | null {
  const part_lengths = sums.table(PART_LENGTHS);
  let length = part_lengths.get(episode);
  if (length === undefined) {
    const part = episode.finished === null ? unreadPart(episode, sums) : null;
    const { count, problems } = part === null ? finishedPartFacts(episode, sums) : { count: part.messages.length, problems: part.problems };
    length = problems.length > 0 ? null : count;
    part_lengths.set(episode, length);
  }
  return length;
}

/** `renderTranscript(fold, PAYLOADS_UNREAD).length`, from the episodes' parts (a problem in any part leaves no
 *  request). */
function requestLength(fold: SessionFold, sums: Sums): number {
  const request_lengths = sums.table(REQUEST_LENGTHS);
  let length = request_lengths.get(fold);
  if (length === undefined) request_lengths.set(fold, (length = requestLengthOf(fold, sums)));
  return length;
}

/** Per fold snapshot: the resume, cancel and seal plans of one snapshot each count it. */
const REQUEST_LENGTHS = new Table<SessionFold, number>('request lengths');

function requestLengthOf(fold: SessionFold, sums: Sums): number {
  let messages = 0;
  for (const episode of fold.episodes) {
    const length = partLength(episode, sums);
    if (length === null) return 0;
    messages += length;
  }
  return messages;
}

/** One episode's part of a request: all of it (up_to null), or what the request of step `up_to` held. */
function renderEpisode(episode: EpisodeFold, up_to: number | null, payloads: PayloadReader, sums: Sums): Rendering {
  const index = EpisodeIndex.of(episode, sums);
  const views = viewRecords(episode, sums).filter((view) => up_to === null || view.step_id <= up_to);
  const latest = views.at(-1) ?? null;
  const problem = latest === null ? null : viewProblem(latest, views.slice(0, -1));
  const messages = asMessages(episode.input).map((message): RenderedMessage => ({ origin: { kind: 'input', episode: episode.episode }, message }));
  const replaced: RenderedMessage[] = [];
  if (latest !== null && problem === null) appendAll(messages, replacementOf(episode.episode, latest));
  const covered = (step: StepFold) => latest !== null && step.step_id <= latest.through_step;
  const steps = index.recordedSteps().filter((step) => up_to === null || step.step_id < up_to);
  let cut = false;
  for (const [position, step] of steps.entries()) {
    if (addTurn(covered(step) ? replaced : messages, episode, index, step, payloads, sums)) continue;
    if (up_to === null) appendAll(messages, steersPastCut(episode, index, steps.slice(position + 1)));
    cut = true;
    break;
  }
  if (!cut) appendAll(messages, steersAtEnd(episode, index, up_to));
  return { messages, problems: problem === null ? [] : [problem], view: latest, replaced };
}

/** Adds the steers that joined `step` and its turn to `into`; false when its turn is not committed (the
 *  episode's part ends before it). */
function addTurn(into: RenderedMessage[], episode: EpisodeFold, index: EpisodeIndex, step: StepFold, payloads: PayloadReader, sums: Sums): boolean {
  appendAll(into, steersJoining(episode, index, step.step_id));
  const turn = renderTurn(episode.episode, index, step, payloads, sums, episode.finished === null);
  if (turn === null) return false;
  appendAll(into, turn);
  return true;
}

/** The steers after the last rendered turn: those joining at run end, or those that joined step `up_to` (and,
 *  while that step is in flight, those written since the last recorded step). */
function steersAtEnd(episode: EpisodeFold, index: EpisodeIndex, up_to: number | null): RenderedMessage[] {
  if (up_to === null) return steersJoining(episode, index, null);
  const joining = steersJoining(episode, index, up_to);
  if (index.step(up_to)?.seq == null) appendAll(joining, steersJoining(episode, index, null));
  return joining;
}

function replacementOf(episode: number, view: ViewRecord): RenderedMessage[] {
  return view.replacement.map((message) => ({ origin: { kind: 'view', episode, view_id: view.view_id, version: view.version, seq: view.seq }, message }));
}

function viewInRequest(view: ViewRecord, replaced: readonly RenderedMessage[], sums: Sums): ViewInRequest {
  return {
    seq: view.seq,
    step_id: view.step_id,
    view_id: view.view_id,
    version: view.version,
    through_step: view.through_step,
    applied: view.applied,
    replaced_messages: replaced.length,
    replaced_bytes: requestSize(replaced.map((rendered) => rendered.message), sums),
    replacement_bytes: requestSize(view.replacement, sums),
  };
}

/** The steers after an uncommitted turn. While the episode is open that turn may still commit, and they join
 *  after it then. Once run_finished is durable nothing commits it any more: the turn stays out (it would be
 *  provider-invalid), but an acknowledged steer is guaranteed a place (contract §2), so they join at the end. */
function steersPastCut(episode: EpisodeFold, index: EpisodeIndex, later: readonly StepFold[]): RenderedMessage[] {
  if (episode.finished === null) return [];
  return [...later.map((step) => step.step_id), null].flatMap((step_id) => steersJoining(episode, index, step_id));
}

/** The step's messages when its turn is complete or repaired; null when it is not (yet) committed. */
function renderTurn(episode: number, index: EpisodeIndex, step: StepFold, payloads: PayloadReader, sums: Sums, open = false): RenderedMessage[] | null {
  if (payloads !== PAYLOADS_UNREAD || !open) return renderTurnOf(episode, index.batch(step.batch_id), step, payloads);
  // Outputs unread, a turn is a function of its step and batch, which a live episode's snapshots share. Only an
  // open episode's are kept: a finished one's part is rendered once, and keeping every step's turn held what
  // `partLength` drops (a fifth of a million records' fold).
  const batch = index.batch(step.batch_id);
  const unread_turns = sums.table(UNREAD_TURNS);
  const kept = unread_turns.get(step);
  if (kept !== undefined && kept.episode === episode && kept.batch === batch) return kept.turn;
  const turn = renderTurnOf(episode, batch, step, payloads);
  unread_turns.set(step, { episode, batch, turn });
  return turn;
}

const UNREAD_TURNS = new Table<StepFold, { episode: number; batch: BatchFold | undefined; turn: RenderedMessage[] | null }>('turns unread');

function renderTurnOf(episode: number, batch: BatchFold | undefined, step: StepFold, payloads: PayloadReader): RenderedMessage[] | null {
  const origin = { kind: 'step', episode, step_id: step.step_id } as const;
  const assistant = stepMessage(step, payloads);
  if (step.natural_end) return [{ origin, message: assistant }];
  if (batch === undefined || batch.finished_seq === null || !batch.committable) return null;
  return [
    { origin, message: assistant },
    { origin, message: toolMessage(batch, payloads) },
  ];
}

/** A committed batch's tool message: a result block per call, in plan order. */
function toolMessage(batch: BatchFold, payloads: PayloadReader, output_cut?: PayloadProjection): JsonPayload {
  return { role: 'tool', content: batch.calls.map((call) => resultBlock(call, payloads, output_cut)) };
}

function resultBlock(call: CallFold, payloads: PayloadReader, output_cut?: PayloadProjection): JsonPayload {
  const terminal = call.terminals[0]!;
  if (terminal.type === 'tool_no_dispatch') {
    return { type: 'tool_result', tool_use_id: call.tool_call_id, output: `not dispatched: ${terminal.reason ?? 'no reason recorded'}`, is_error: true };
  }
  return { type: 'tool_result', tool_use_id: call.tool_call_id, output: terminalOutput(terminal, payloads, output_cut), is_error: terminal.is_error };
}

function steersJoining(episode: EpisodeFold, index: EpisodeIndex, step_id: number | null): RenderedMessage[] {
  return index.steersJoining(step_id).flatMap((steer) =>
    asMessages(steer.input).map((message): RenderedMessage => ({ origin: { kind: 'steer', episode: episode.episode, seq: steer.seq }, message })),
  );
}

function asMessages(value: JsonValue): JsonPayload[] {
  return Array.isArray(value) ? value.filter(isMap) : [];
}

/** Counts of what a resume rebuilds from the WAL without calling anyone (resume_started.replayed). */
export function replayedCounts(fold: SessionFold, episode: EpisodeFold, sums: Sums): { messages: number; model_steps: number; tool_results: number } {
  return { messages: requestLength(fold, sums), model_steps: sums.sum(RECORDED_STEPS, episode).count, tool_results: sums.sum(TOOL_RESULTS, episode).count };
}

/** Counted step by step and batch by batch, taken on from the last snapshot's for a live episode. */
const RECORDED_STEPS: SumSpec<StepFold, { count: number }> = {
  items: (episode) => episode.steps,
  shared: sharedSteps,
  initial: () => ({ count: 0 }),
  copy: (sum) => ({ ...sum }),
  add: (sum, step) => void (sum.count += step.seq === null ? 0 : 1),
};

const TOOL_RESULTS: SumSpec<BatchFold, { count: number }> = {
  items: (episode) => episode.batches,
  shared: sharedBatches,
  initial: () => ({ count: 0 }),
  copy: (sum) => ({ ...sum }),
  add(sum, batch) {
    for (const call of batch.calls) sum.count += call.terminals.length;
  },
};

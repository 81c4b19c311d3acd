// The conversation as the session's next request would carry it, rebuilt TURN by turn (contract §4): a model
// step with tool calls enters only once its batch is committed (every call with exactly one terminal and
// tool_batch_finished durable, whether the results came live or from a close-out repair). The first
// uncommitted turn ends the episode's part of the prompt, so no rendered request ever holds a bare tool_use.
//
// Steers: the format has no step_started record (a model step is recorded only when it completes), so a steer
// joins the prompt before the first model step recorded after it, or at run_finished (the end) when none
// follows. That never puts it between a tool call and its result. Compaction views are shown on their steps,
// not applied here.
import { appendAll } from '../../src-shared/arrays.js';
import type {
  BatchFold,
  CallFold,
  EpisodeFold,
  JsonPayload,
  JsonValue,
  ProviderProblem,
  ProviderValidity,
  SessionFold,
  StepFold,
} from '../../src-shared/replay.js';
import { EpisodeIndex } from './episode-index.js';
import { isMap, text } from './values.js';

/** Every episode's messages in order: each run's input, its committed turns and its steers. */
export function renderTranscript(fold: SessionFold): JsonPayload[] {
  const messages: JsonPayload[] = [];
  for (const episode of fold.episodes) appendAll(messages, episodeMessages(episode));
  return messages;
}

/** An episode's messages, rendered once per episode object: a live session's snapshots share their closed
 *  episodes (SessionFolder.snapshotSince), so a plan made after each append does not render the whole session
 *  again. The mark re-renders an episode object that was changed in place. */
const rendered = new WeakMap<EpisodeFold, { mark: string; messages: JsonPayload[] }>();

export function episodeMessages(episode: EpisodeFold): JsonPayload[] {
  const mark = `${episode.last_seq}:${episode.state}:${episode.steps.length}:${episode.batches.length}:${episode.steers.length}`;
  const known = rendered.get(episode);
  if (known !== undefined && known.mark === mark) return known.messages;
  const messages = renderEpisode(episode);
  rendered.set(episode, { mark, messages });
  return messages;
}

function renderEpisode(episode: EpisodeFold): JsonPayload[] {
  const index = new EpisodeIndex(episode);
  const messages: JsonPayload[] = [...asMessages(episode.input)];
  const steps = index.recordedSteps();
  for (const [position, step] of steps.entries()) {
    appendAll(messages, steersJoining(index, step.step_id));
    const turn = renderTurn(index, step);
    if (turn === null) {
      appendAll(messages, steersPastCut(episode, index, steps.slice(position + 1)));
      return messages;
    }
    appendAll(messages, turn);
  }
  appendAll(messages, steersJoining(index, null));
  return messages;
}


/** The steers after an uncommitted turn. While the episode is open that turn may still commit, and they join
 *  after it then. Once run_finished is durable nothing commits it any more: the turn stays out (it would be
 *  provider-invalid), but an acknowledged steer is guaranteed a place (contract §2), so they join at the end. */
function steersPastCut(episode: EpisodeFold, index: EpisodeIndex, later: readonly StepFold[]): JsonPayload[] {
  if (episode.finished === null) return [];
  return [...later.map((step) => step.step_id), null].flatMap((step_id) => steersJoining(index, step_id));
}

/** The step's messages when its turn is complete or repaired; null when it is not (yet) committed. */
function renderTurn(index: EpisodeIndex, step: StepFold): JsonPayload[] | null {
  const assistant = isMap(step.assistant_message) ? step.assistant_message : { role: 'assistant', content: [] };
  if (step.natural_end) return [assistant];
  const batch = index.batch(step.batch_id);
  if (batch === undefined || batch.finished_seq === null || !batch.committable) return null;
  return [assistant, { role: 'tool', content: batch.calls.map(resultBlock) }];
}

function resultBlock(call: CallFold): JsonPayload {
  const terminal = call.terminals[0]!;
  if (terminal.type === 'tool_no_dispatch') {
    return { type: 'tool_result', tool_use_id: call.tool_call_id, output: `not dispatched: ${terminal.reason ?? 'no reason recorded'}`, is_error: true };
  }
  return { type: 'tool_result', tool_use_id: call.tool_call_id, output: terminal.output, is_error: terminal.is_error };
}

function steersJoining(index: EpisodeIndex, step_id: number | null): JsonPayload[] {
  return index.steersJoining(step_id).flatMap((steer) => asMessages(steer.input));
}

function asMessages(value: JsonValue): JsonPayload[] {
  return Array.isArray(value) ? value.filter(isMap) : [];
}

/** Provider validity: each assistant tool_use answered by exactly one tool_result before the next assistant
 *  message, and no tool_result without its tool_use. */
export function checkProviderValid(messages: readonly JsonPayload[]): ProviderValidity {
  const problems: ProviderProblem[] = [];
  let open = new Map<string, number>();
  const answered = new Set<string>();
  const closeTurn = () => {
    for (const [tool_use_id, message_index] of open) problems.push({ kind: 'missing_result', tool_use_id, message_index });
    open = new Map();
    answered.clear();
  };
  messages.forEach((message, message_index) => {
    if (message['role'] === 'assistant') closeTurn();
    for (const block of Array.isArray(message['content']) ? message['content'] : []) {
      if (!isMap(block)) continue;
      if (block['type'] === 'tool_use') open.set(text(block, 'id') ?? '', message_index);
      if (block['type'] !== 'tool_result') continue;
      const tool_use_id = text(block, 'tool_use_id') ?? '';
      if (open.delete(tool_use_id)) answered.add(tool_use_id);
      else problems.push({ kind: answered.has(tool_use_id) ? 'duplicate_result' : 'orphan_result', tool_use_id, message_index });
    }
  });
  closeTurn();
  return { valid: problems.length === 0, problems };
}

/** Counts of what a resume rebuilds from the WAL without calling anyone (resume_started.replayed). */
export function replayedCounts(fold: SessionFold, episode: EpisodeFold): { messages: number; model_steps: number; tool_results: number } {
  const terminals = (batch: BatchFold) => batch.calls.reduce((count, call) => count + call.terminals.length, 0);
  return {
    messages: renderTranscript(fold).length,
    model_steps: episode.steps.filter((step) => step.seq !== null).length,
    tool_results: episode.batches.reduce((count, batch) => count + terminals(batch), 0),
  };
}

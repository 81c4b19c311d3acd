// The Context view of one step (issue 14, wal-format §6): the step's request exactly as the model saw it,
// rendered by the replay library (the function the runtime sent it with), with each message's origin, the
// view that applied and what it replaced; the step's notices and ceiling records in words; and the context
// lane: the prompt's size at each step around it and where views applied. Bounded: at most
// CONTEXT_MESSAGES_MAX messages of CONTEXT_TEXT_CHARS_MAX characters, and CONTEXT_LANE_STEPS_MAX lane steps.
import { IMAGE_DATA_CHARS_MAX, shownBlocks, type BlockLimits } from '../../src-shared/blocks.js';
import { noteLabel, noteSummary, originLabel } from '../../src-shared/compaction.js';
import {
  CONTEXT_HEAD_MESSAGES,
  CONTEXT_LANE_STEPS_MAX,
  CONTEXT_MESSAGES_MAX,
  CONTEXT_TEXT_CHARS_MAX,
  type ContextCeiling,
  type ContextLaneStep,
  type ContextMessage,
  type ContextNotice,
  type StepContext,
} from '../../src-shared/ipc.js';
import type { EpisodeFold, JsonValue, RenderedMessage, SessionFold, StepNote } from '../../src-shared/replay.js';
import { TextCut, textCut } from '../engine/index.js';
import type { PayloadProjection, PayloadReader } from '../replay/payloads.js';
import type { Sums } from '../replay/sums.js';
import { laneSizes, renderStepRequestShown } from '../replay/transcript.js';
import { NotFoundError } from '../../src-shared/ipc.js';
import { valuePreview } from './value-preview.js';

export function stepContext(fold: SessionFold, payloads: PayloadReader, episode_arg: unknown, step_arg: unknown, sums: Sums): StepContext {
  const episodes = fold.episodes.map((episode) => ({ episode: episode.episode, run_id: episode.run_id }));
  const episode = pickEpisode(fold, wireNumber(episode_arg, 'episode'));
  const step_id = pickStep(episode, wireNumber(step_arg, 'step'));
  const empty: StepContext = {
    episodes,
    episode: episode?.episode ?? null,
    steps: episode?.steps.map((step) => step.step_id) ?? [],
    step_id,
    view: null,
    messages: [],
    messages_left_out: 0,
    messages_left_out_at: 0,
    size_bytes: 0,
    problems: [],
    notices: [],
    ceiling: { wait: null, decision: null },
    notes: [],
    lane: [],
  };
  if (episode === undefined || step_id === null) return empty;
  const request = renderStepRequestShown(fold, episode.episode, step_id, payloads, {
    head: CONTEXT_HEAD_MESSAGES,
    tail: CONTEXT_MESSAGES_MAX - CONTEXT_HEAD_MESSAGES,
    show: (rendered) => contextMessage(rendered, episode.episode),
    output_cut: CONTEXT_OUTPUT_CUT,
  }, sums);;
  const notes = episode.steps.find((step) => step.step_id === step_id)?.notes ?? [];
  return {
    ...empty,
    view: request.view,
    messages: request.messages,
    messages_left_out: request.left_out,
    messages_left_out_at: request.left_out_at,
    size_bytes: request.size_bytes,
    problems: request.problems,
    notices: notes.filter((note) => note.type === 'compaction_notice').map(notice),
    ceiling: ceiling(notes),
    notes: notes.map((note) => ({ seq: note.seq, type: note.type, label: noteLabel(note.type), summary: noteSummary(note.type, note.payload) })),
    lane: lane(fold, payloads, episode, step_id, sums),
  };
}

/** A number from the wire, or null for "the default"; anything else is refused. */
function wireNumber(value: unknown, name: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new NotFoundError(`no ${name} "${String(value)}"`);
  return value;
}

function pickEpisode(fold: SessionFold, number: number | null): EpisodeFold | undefined {
  if (number === null) return fold.episodes.at(-1);
  const episode = fold.episodes.find((candidate) => candidate.episode === number);
  if (episode === undefined) throw new NotFoundError(`no episode ${number}`);
  return episode;
}

function pickStep(episode: EpisodeFold | undefined, step_id: number | null): number | null {
  if (episode === undefined) return null;
  if (step_id === null) return episode.steps.at(0)?.step_id ?? null;
  if (!episode.steps.some((step) => step.step_id === step_id)) throw new NotFoundError(`episode ${episode.episode} has no step ${step_id}`);
  return step_id;
}

/** A shown tool message's text outputs are read as far as the view shows them (a message's texts share
 *  CONTEXT_TEXT_CHARS_MAX characters), their lengths counted whole. */
const CONTEXT_OUTPUT_CUT: PayloadProjection = { output: textCut(CONTEXT_TEXT_CHARS_MAX) };

/** A message's blocks as the view shows them: its texts and values within CONTEXT_TEXT_CHARS_MAX characters. */
const CONTEXT_BLOCK_LIMITS: BlockLimits = {
  text_chars_max: CONTEXT_TEXT_CHARS_MAX,
  message_chars_max: CONTEXT_TEXT_CHARS_MAX,
  image_chars_max: IMAGE_DATA_CHARS_MAX,
  textOf: (value) => (value instanceof TextCut ? { text: value.head, chars: value.chars } : typeof value === 'string' ? { text: value, chars: value.length } : null),
  shownValue: (value, chars_max) => valuePreview(value as JsonValue, chars_max),
};

function contextMessage(rendered: RenderedMessage, episode: number): ContextMessage {
  const role = rendered.message['role'];
  return {
    origin: rendered.origin,
    label: originLabel(rendered.origin, episode),
    role: typeof role === 'string' ? role : '?',
    blocks: shownBlocks(rendered.message['content'] ?? null, CONTEXT_BLOCK_LIMITS),
  };
}

function notice(note: StepNote): ContextNotice {
  const headers = note.payload['headers'];
  const entries = typeof headers === 'object' && headers !== null && !Array.isArray(headers) ? Object.entries(headers) : [];
  const notice_seq = note.payload['notice_seq'];
  return { seq: note.seq, notice_seq: typeof notice_seq === 'number' ? notice_seq : null, headers: entries.map(([key, value]) => [key, word(value)]) };
}

function ceiling(notes: readonly StepNote[]): ContextCeiling {
  const wait = notes.find((note) => note.type === 'context_ceiling_wait');
  const decided = notes.find((note) => note.type === 'context_ceiling_decided');
  const detail = decided?.payload['detail'];
  const refusal = typeof detail === 'object' && detail !== null && !Array.isArray(detail) ? detail : null;
  const number = (value: JsonValue | undefined) => (typeof value === 'number' ? value : null);
  return {
    wait: wait === undefined ? null : { seq: wait.seq, deadline_ms: number(wait.payload['deadline_ms']) },
    decision:
      decided === undefined
        ? null
        : {
            seq: decided.seq,
            permitted: detail === null || detail === undefined,
            window: number(refusal?.['window']),
            size: number(refusal?.['size']),
            cause: typeof refusal?.['cause'] === 'string' ? refusal['cause'] : null,
          },
  };
}

/** The prompt's size at each step around `step_id`, and where views applied. */
function lane(fold: SessionFold, payloads: PayloadReader, episode: EpisodeFold, step_id: number, sums: Sums): ContextLaneStep[] {
  const steps = episode.steps;
  const at = steps.findIndex((step) => step.step_id === step_id);
  const first = Math.max(0, Math.min(at - CONTEXT_LANE_STEPS_MAX / 2, steps.length - CONTEXT_LANE_STEPS_MAX));
  const shown = steps.slice(first, first + CONTEXT_LANE_STEPS_MAX);
  const sizes = laneSizes(fold, episode.episode, shown.map((step) => step.step_id), payloads, sums);
  return shown.map((step, position) => {
    const { size_bytes, view } = sizes[position]!;
    const ceiling_refused = step.notes.some((note) => note.type === 'context_ceiling_decided' && note.payload['detail'] != null);
    return {
      step_id: step.step_id,
      size_bytes,
      view: view === null ? null : { view_id: view.view_id, version: view.version, applied_here: view.step_id === step.step_id },
      refused: size_bytes === null || ceiling_refused,
    };
  });
}

function word(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

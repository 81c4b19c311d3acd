// What a bundle holds of a session, before it is markup: the support report's facts, the timeline's rows, and
// the messages of the transcript and of every step's request, each message once (a step's request is mostly the
// request before it and one more turn: kept whole for each step, a session of n steps would weigh n² messages),
// each request as runs of message numbers. Pure: a function of the shared session (shared-session.ts).
import type { TimelineRow } from '../../src-shared/ipc.js';
import type { JsonPayload, MessageOrigin, RenderedMessage, RequestProblem, SessionFold, ViewInRequest } from '../../src-shared/replay.js';
import type { SupportReport } from '../../src-shared/report.js';
import { EpisodeIndex } from '../replay/episode-index.js';
import { PAYLOADS_UNREAD, type PayloadReader } from '../replay/payloads.js';
import type { Sums } from '../replay/sums.js';
import { renderSessionRequest, renderStepRequest, withOutputsAt } from '../replay/transcript.js';
import { IncrementalSums } from '../views/incremental-sums.js';
import { buildTimeline } from '../views/timeline.js';
import type { RedactionManifest } from './redaction.js';
import type { SharedSession } from './shared-session.js';

/** The requests' messages laid out at most, summed over the steps: past it, later steps' requests are left out
 *  (and said to be). Each step's request is laid out unread to learn which messages it holds. */
export const REQUEST_MESSAGES_MAX = 4_000_000;

export interface BundleMessage {
  origin: MessageOrigin;
  message: JsonPayload;
}

export interface BundleStep {
  episode: number;
  step_id: number;
  view: ViewInRequest | null;
  size_bytes: number;
  problems: RequestProblem[];
  message_count: number;
  /** The request's messages, as runs [from, to) of message numbers (`BundleModel.messages`). */
  runs: [number, number][];
}

export interface BundleModel {
  report: SupportReport;
  timeline: TimelineRow[];
  messages: BundleMessage[];
  /** The session's next request, as the transcript shows it: message numbers. */
  transcript: number[];
  transcript_problems: RequestProblem[];
  steps: BundleStep[];
  /** Steps whose requests are left out (past REQUEST_MESSAGES_MAX). */
  steps_left_out: number;
  manifest: RedactionManifest | null;
}

export function bundleModel(shared: SharedSession): BundleModel {
  const { fold, payloads } = shared;
  // Every step's request holds the earlier episodes' parts: rendered and measured once for the whole bundle.
  const sums = new IncrementalSums();
  const table = new MessageTable();
  const session_request = renderSessionRequest(fold, payloads, sums);
  const transcript = table.numbers(session_request.messages, (position) => session_request.messages[position]!.message);
  const steps: BundleStep[] = [];
  let laid_out = 0;
  let steps_left_out = 0;
  for (const episode of fold.episodes) {
    for (const step of episode.steps) {
      if (laid_out >= REQUEST_MESSAGES_MAX) {
        steps_left_out++;
        continue;
      }
      const step_request = stepRequest(fold, episode.episode, step.step_id, payloads, table, sums);
      laid_out += step_request.message_count;
      steps.push(step_request);
    }
  }
  return {
    report: shared.report,
    timeline: buildTimeline(fold, payloads, sums).rows,
    messages: table.messages,
    transcript,
    transcript_problems: session_request.problems,
    steps,
    steps_left_out,
    manifest: shared.manifest,
  };
}

function stepRequest(fold: SessionFold, episode_number: number, step_id: number, payloads: PayloadReader, table: MessageTable, sums: Sums): BundleStep {
  const unread = renderStepRequest(fold, episode_number, step_id, PAYLOADS_UNREAD, sums);
  const numbers = table.numbers(unread.messages, (position) => {
    const origin = unread.messages[position]!.origin;
    const episode = fold.episodes.find((candidate) => candidate.episode === origin.episode)!;
    return withOutputsAt(EpisodeIndex.of(episode, sums), unread.messages, position, payloads);
  });
  return { episode: episode_number, step_id, view: unread.view, size_bytes: unread.size_bytes, problems: unread.problems, message_count: numbers.length, runs: runsOf(numbers) };
}

/** Messages numbered by where they come from (their origin, and which of that origin's messages they are), each
 *  read once. */
class MessageTable {
  readonly messages: BundleMessage[] = [];
  private readonly by_key = new Map<string, number>();

  numbers(rendered: readonly RenderedMessage[], read: (position: number) => JsonPayload): number[] {
    const seen = new Map<string, number>();
    return rendered.map((entry, position) => {
      const origin_key = JSON.stringify(entry.origin);
      const occurrence = seen.get(origin_key) ?? 0;
      seen.set(origin_key, occurrence + 1);
      const key = `${origin_key}#${occurrence}`;
      let number = this.by_key.get(key);
      if (number === undefined) {
        number = this.messages.length;
        this.messages.push({ origin: entry.origin, message: read(position) });
        this.by_key.set(key, number);
      }
      return number;
    });
  }
}

function runsOf(numbers: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const number of numbers) {
    const last = runs.at(-1);
    if (last !== undefined && last[1] === number) last[1] = number + 1;
    else runs.push([number, number + 1]);
  }
  return runs;
}

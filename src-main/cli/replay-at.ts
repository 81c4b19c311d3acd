// `walscope replay SESSION --at STEP [--episode N] [--json]`: the request of one step exactly as the model saw
// it (wal-format §6), each message with where it came from (the run's input, a compaction view, a step's turn,
// a steer), which view applied, and the problems that stop it being rendered. Read-only, like `replay`.
import { appendAll } from '../../src-shared/arrays.js';
import { originLabel, messageText, noteLabel, noteSummary } from '../../src-shared/compaction.js';
import type { EpisodeFold, ReplayAtJson, StepRequest } from '../../src-shared/replay.js';
import type { WalTarget } from '../engine/index.js';
import { replayTarget } from '../recovery/replay-target.js';
import { withPayloadPass } from '../recovery/payloads.js';
import { renderStepRequest } from '../replay/transcript.js';
import { EXIT_OK, EXIT_REFUSED, positiveInteger, UsageError, writeOut } from './command.js';
import { indentedLines, plural, printable, textLines } from './format.js';

const MESSAGE_TEXT_MAX = 2_000;

export interface ReplayAtOptions {
  at: string;
  episode: string | undefined;
  json: boolean;
}

export async function runReplayAt(target: WalTarget, options: ReplayAtOptions): Promise<number> {
  const replay = replayTarget(target);
  const episodes = replay.fold.episodes;
  const episode = pickEpisode(episodes, options.episode);
  const step_id = positiveInteger(options.at, '--at');
  if (!episode.steps.some((step) => step.step_id === step_id)) {
    const known = episode.steps.map((step) => step.step_id).join(', ') || 'none';
    throw new UsageError(`episode ${episode.episode} has no step ${step_id} (its steps: ${known})`);
  }
  // Every earlier episode's messages are in the request, read in about file order: through one open file.
  const request = withPayloadPass(target.wal_path, (read) => renderStepRequest(replay.fold, episode.episode, step_id, read, replay.sums));
  if (options.json) await writeOut(`${JSON.stringify(replayAtJson(request), null, 2)}\n`);
  else await writeOut(requestText(target, episode, request));
  return replay.read.error === null && request.problems.length === 0 ? EXIT_OK : EXIT_REFUSED;
}

export function replayAtJson(request: StepRequest): ReplayAtJson {
  const view = request.view;
  return {
    step_id: request.step_id,
    view: view === null ? null : { view_id: view.view_id, version: view.version, through_step: view.through_step, applied: view.applied },
    messages: request.messages,
    problems: request.problems,
  };
}

function requestText(target: WalTarget, episode: EpisodeFold, request: StepRequest): string {
  const name = target.session === null ? target.wal_path : `session ${target.session}`;
  const lines = [`${name}, episode ${episode.episode} (run ${printable(episode.run_id ?? '?', 120)}), step ${request.step_id}: the request as the model saw it`];
  const view = request.view;
  if (view === null) lines.push('view: none (no compaction view applies at this step)');
  else {
    const where = view.step_id === request.step_id ? 'recorded at this step' : `recorded at step ${view.step_id}`;
    lines.push(`view: ${printable(view.view_id, 120)} v${view.version} (${printable(view.applied, 60)}, ${where}, seq ${view.seq}) replaces steps 1–${view.through_step}: ${plural(view.replaced_messages, 'message')}, ${plural(view.replaced_bytes, 'byte')} → ${plural(view.replacement_bytes, 'byte')}`);
  }
  const step = episode.steps.find((candidate) => candidate.step_id === request.step_id);
  for (const note of step?.notes ?? []) lines.push(`  ${noteLabel(note.type)} (seq ${note.seq}): ${printable(noteSummary(note.type, note.payload), 400)}`);
  for (const problem of request.problems) lines.push(`PROBLEM ${problem.kind}${problem.cause === null ? '' : ` (${problem.cause})`}: ${printable(problem.message, 400)}`);
  lines.push('', `${plural(request.messages.length, 'message')}, ${plural(request.size_bytes, 'byte')}:`);
  request.messages.forEach((rendered, index) => {
    const role = typeof rendered.message['role'] === 'string' ? rendered.message['role'] : '?';
    lines.push(`  [${index}] ${printable(role, 20)} · ${printable(originLabel(rendered.origin, episode.episode), 160)}`);
    appendAll(lines, indentedLines(messageText(rendered.message), '      ', MESSAGE_TEXT_MAX));
  });
  return textLines(lines);
}

function pickEpisode(episodes: readonly EpisodeFold[], flag: string | undefined): EpisodeFold {
  if (episodes.length === 0) throw new UsageError('the session has no episode (no run_started)');
  if (flag === undefined) return episodes.at(-1)!;
  const number = positiveInteger(flag, '--episode');
  const episode = episodes.find((candidate) => candidate.episode === number);
  if (episode === undefined) throw new UsageError(`no episode ${number}: the session has ${plural(episodes.length, 'episode')}`);
  return episode;
}

// What each real session holds, read back from its WAL: the strings of the source as they were (colour codes
// included), the tool names and commands, reasoning blocks with their signatures, a parallel batch, the
// sources' times, usage and outcomes.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Payload } from '../../src-shared/wal.js';
import { readWal } from '../../src-main/engine/reader.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { episodeCost } from '../../src-main/replay/cost.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { episodeTiming } from '../../src-main/replay/timing.js';
import { realdataMissing, useRealSessions } from '../fixtures/realdata/fixtures.js';
import { realdataDir, REAL_SOURCES, sourcePath, type RealSessionId } from '../fixtures/realdata/sources.js';

const missing = realdataMissing();
if (missing !== null) console.warn(missing);

type Json = Record<string, unknown>;

/** The source file of a session, parsed (a JSON Lines file as its rows). */
function source(id: RealSessionId): Json {
  const file = sourcePath(realdataDir(), REAL_SOURCES.find((entry) => entry.session_id === id)!);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
}

describe.skipIf(missing !== null)('real sessions, source by source', () => {
  const real = useRealSessions();

  const records = (id: RealSessionId) => {
    const found: { type: string; payload: Payload }[] = [];
    const read = readWal(walPath(sessionDir(real().root, id)), { on_frame: (frame) => frame.seq > 0 && found.push({ type: frame.type, payload: frame.payload! }) });
    expect(read.error).toBeNull();
    return found;
  };
  const payloads = (id: RealSessionId, type: string) => records(id).filter((record) => record.type === type).map((record) => record.payload);
  const fold = (id: RealSessionId) => replayTarget(resolveTargets(sessionDir(real().root, id))[0]!).fold;
  const blocks = (step: Payload) => (step['assistant_message'] as { content: Payload[] }).content;

  it('mini-swe-agent: 176 steps of bash, each command as the model wrote it, with the source\'s times and usage; submitted is completed', () => {
    const id = 'real-mini-swe-agent-astroid-1333';
    const messages = source(id)['messages'] as { role: string; tool_calls?: { function: { arguments: string } }[]; extra: { timestamp: number; response: { usage: { prompt_tokens: number } } } }[];
    const answers = messages.filter((entry) => entry.role === 'assistant');
    const intents = payloads(id, 'tool_dispatch_intent');
    expect(intents).toHaveLength(176);
    expect(intents.map((intent) => intent['args'])).toEqual(answers.map((entry) => JSON.parse(entry.tool_calls![0]!.function.arguments)));
    expect(new Set(payloads(id, 'tool_batch_started').map((batch) => (batch['planned_calls'] as Payload[])[0]!['name']))).toEqual(new Set(['bash']));
    const steps = payloads(id, 'model_step_finished');
    expect((steps[0]!['usage'] as Payload)['input_tokens']).toBe(answers[0]!.extra.response.usage.prompt_tokens);
    expect(payloads(id, 'run_started')[0]!['config']).toMatchObject({ model: 'deepseek/deepseek-chat' });
    const timing = episodeTiming(fold(id).episodes[0]!);
    expect(timing.times_recorded).toBe(true);
    expect(timing.last_ms).toBe(Math.round(answers.at(-1)!.extra.timestamp * 1000));
    // The submitting command's result is the submission (the exit message), the run completed.
    const submission = (source(id)['info'] as { submission: string }).submission;
    expect(payloads(id, 'tool_result').at(-1)!['output']).toBe(submission);
    expect(payloads(id, 'run_finished')).toEqual([{ reason: 'completed' }]);
  });

  it('Claude Code: thinking as reasoning with its signature, parallel calls as one batch, times, error results, colour codes kept', () => {
    const id = 'real-claude-code';
    const steps = payloads(id, 'model_step_finished');
    const reasoning = steps.flatMap(blocks).filter((block) => block['type'] === 'reasoning');
    expect(reasoning).toHaveLength(12);
    expect(reasoning.every((block) => typeof block['text'] === 'string' && typeof block['signature'] === 'string' && (block['signature'] as string).length > 100)).toBe(true);
    expect(steps.flatMap(blocks).some((block) => block['type'] === 'thinking')).toBe(false);
    const batches = payloads(id, 'tool_batch_started').map((batch) => (batch['planned_calls'] as Payload[]).map((call) => call['name']));
    expect(batches).toContainEqual(['Write', 'Write']);
    expect(batches).toContainEqual(['Read', 'Bash', 'Bash']);
    const parallel = fold(id).episodes.flatMap((episode) => [...episode.batches]).find((batch) => batch.calls.length === 3)!;
    expect(parallel.sequential).toBe(false);
    expect(parallel.calls.every((call) => call.dispatched_at_ms !== null && call.finished_at_ms! >= call.dispatched_at_ms)).toBe(true);
    expect(payloads(id, 'tool_result').filter((result) => result['is_error'] === true).map((result) => result['output'])).toEqual([
      'Exit code 1\ncat: nonexistent.txt: No such file or directory',
      'Exit code 127\n/bin/bash: line 1: python: command not found',
    ]);
    // Five prompts answered, then the /compact summary handed to a run that never took a step.
    const episodes = fold(id).episodes;
    expect(episodes.map((episode) => episode.finished?.reason ?? null)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed', null]);
    const last_input = (payloads(id, 'run_started').at(-1)!['input'] as { content: Payload[] }[]).map((entry) => entry.content[0]!['text']);
    expect(last_input.at(-1)).toContain('\u001b[2mCompacted (ctrl+o to see full summary)\u001b[22m');
    expect(payloads(id, 'run_started')[0]!['config']).toMatchObject({ model: 'claude-haiku-4-5-20251001' });
  });

  it('tau-bench: 8 episodes of one conversation, the airline tools with their arguments, errors as the environment said them, out of steps at the end', () => {
    const id = 'real-tau-bench-airline-task-9';
    const episodes = fold(id).episodes;
    expect(episodes).toHaveLength(8);
    expect(episodes.map((episode) => episode.finished?.reason)).toEqual([...Array<string>(7).fill('completed'), 'max_steps']);
    expect(payloads(id, 'run_started').every((run) => (run['config'] as Payload)['model'] === 'gpt-4o')).toBe(true);
    const names = new Set(payloads(id, 'tool_batch_started').flatMap((batch) => (batch['planned_calls'] as Payload[]).map((call) => call['name'])));
    expect(names).toEqual(new Set(['get_user_details', 'get_reservation_details', 'search_direct_flight', 'search_onestop_flight', 'think', 'calculate', 'cancel_reservation', 'book_reservation']));
    expect(payloads(id, 'tool_dispatch_intent')[0]!['args']).toEqual({ user_id: 'mohamed_silva_9265' });
    const errors = payloads(id, 'tool_result').filter((result) => result['is_error'] === true);
    expect(errors.map((result) => result['output'])).toEqual(Array<string>(5).fill('Error: payment amount does not add up, total price is 1203, but paid 833'));
  });

  it('SWE-agent CTF runs: each command as typed, the long ones whole, colour codes in the output kept, the flag submitted', () => {
    for (const id of ['real-swe-agent-ctf-baby-time-capsule', 'real-swe-agent-ctf-flash'] as const) {
      const actions = (source(id)['trajectory'] as { action: string; observation: string }[]).map((entry) => entry.action);
      expect(payloads(id, 'tool_dispatch_intent').map((intent) => intent['args'])).toEqual(actions.map((command) => ({ command })));
      expect(payloads(id, 'run_finished')).toEqual([{ reason: 'completed' }]);
    }
    const baby = payloads('real-swe-agent-ctf-baby-time-capsule', 'tool_dispatch_intent').map((intent) => (intent['args'] as Payload)['command'] as string);
    expect(Math.max(...baby.map((command) => command.length))).toBeGreaterThan(700);
    expect(baby.at(-1)).toBe("submit 'HTB{t3h_FuTUr3_15_bR1ghT_1_H0p3_y0uR3_W34r1nG_5h4d35!}'\n");
    const coloured = payloads('real-swe-agent-ctf-baby-time-capsule', 'tool_result').filter((result) => String(result['output']).includes('\u001b['));
    expect(coloured).toHaveLength(4);
    expect(coloured[0]!['output']).toContain('\u001b[33;21mprivate argument is not set');
    expect(payloads('real-swe-agent-ctf-flash', 'tool_dispatch_intent').at(-1)!['args']).toEqual({ command: 'submit flag{b3l0w_th3_r4dar}\n' });
    // A person drove the demonstrations: no model is named, no tokens counted.
    expect((payloads('real-swe-agent-ctf-flash', 'run_started')[0]!['config'] as Payload)['model']).toBeUndefined();
  });

  it('SWE-agent with GPT-4: the thought as text, the run\'s token totals on run_finished, the patch as the submit command\'s result', () => {
    const id = 'real-swe-agent-pydicom-1458';
    const traj = source(id) as { trajectory: { thought: string; observation: string }[]; info: { submission: string; model_stats: { tokens_sent: number; tokens_received: number } } };
    expect(payloads(id, 'model_step_finished').map((step) => blocks(step)[0])).toEqual(traj.trajectory.map((entry) => ({ type: 'text', text: entry.thought })));
    expect(payloads(id, 'run_finished')).toEqual([{ reason: 'completed', usage: { input_tokens: traj.info.model_stats.tokens_sent, output_tokens: traj.info.model_stats.tokens_received } }]);
    expect(payloads(id, 'tool_result').at(-1)!['output']).toBe(traj.info.submission);
    expect((payloads(id, 'run_started')[0]!['config'] as Payload)['model']).toBe('gpt4');
  });

  it("cost, where the run names a model the shipped price table knows: DeepSeek's and Claude's steps priced, SWE-agent's \"gpt4\" unknown", () => {
    const costOf = (id: RealSessionId) => fold(id).episodes.map((episode) => episodeCost(episode));
    const [deepseek] = costOf('real-mini-swe-agent-astroid-1333');
    expect(deepseek).toMatchObject({ priced_as: ['deepseek deepseek-chat'], steps_priced: 176, steps_unpriced: 0, undated_steps: 0 });
    // The source's own figure (LiteLLM's prices of its day) is of the same order as the table's.
    const recorded = (source('real-mini-swe-agent-astroid-1333')['info'] as { model_stats: { instance_cost: number } }).model_stats.instance_cost;
    expect(deepseek!.usd! / recorded).toBeGreaterThan(0.25);
    expect(deepseek!.usd! / recorded).toBeLessThan(4);
    const claude = costOf('real-claude-code');
    expect(claude.map((cost) => cost.priced_as)).toContainEqual(['anthropic claude-haiku-4-5']);
    expect(claude.every((cost) => cost.steps_unpriced === 0 && (cost.steps_priced === 0 || cost.usd! > 0))).toBe(true);
    const [gpt4] = costOf('real-swe-agent-pydicom-1458');
    // The timeline's bars: an error result is drawn as one, every other call of the session as answered.
    const bars = fold('real-claude-code').episodes.flatMap((episode) => episodeTiming(episode).spans).filter((span) => span.kind === 'call');
    expect(bars.map((span) => span.ended)).toContain('error');
    expect(bars.filter((span) => span.ended !== 'error').every((span) => span.ended === 'ok')).toBe(true);
    expect(gpt4).toMatchObject({ usd: null, unknown_models: ['gpt4'], from_run_totals: true });
  });
});

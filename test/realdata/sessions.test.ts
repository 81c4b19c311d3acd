// The six real trajectories, converted (test/fixtures/realdata): each session verifies OK as `walscope verify`
// runs it, replays without an anomaly (the sources are consistent) with every request rendering whole, and
// holds as many episodes, steps, calls, results and error results as the source — counted here from the
// source's own JSON, not by the converter.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../src-shared/wal.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { replayJson } from '../../src-main/replay/report.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { renderSessionRequest } from '../../src-main/replay/transcript.js';
import { realdataMissing, useRealSessions } from '../fixtures/realdata/fixtures.js';
import { realdataDir, REAL_SOURCES, sourcePath, type RealSource } from '../fixtures/realdata/sources.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const missing = realdataMissing();
if (missing !== null) console.warn(missing);

interface Counts {
  episodes: number;
  steps: number;
  calls: number;
  results: number;
  error_results: number;
}

type Json = Record<string, unknown> & { role?: string; type?: string };

const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** The source's own counts, by its format's rules (the converter's module docs say how each maps). */
function sourceCounts(source: RealSource): Counts {
  const raw = fs.readFileSync(sourcePath(realdataDir(), source), 'utf8');
  switch (source.format) {
    case 'swe-agent': {
      const entries = list((JSON.parse(raw) as Json)['trajectory']);
      return { episodes: 1, steps: entries.length, calls: entries.length, results: entries.length, error_results: 0 };
    }
    case 'mini-swe-agent': {
      const messages = list((JSON.parse(raw) as Json)['messages']);
      const tools = messages.filter((entry) => entry.role === 'tool');
      return {
        episodes: 1,
        steps: messages.filter((entry) => entry.role === 'assistant').length,
        calls: messages.reduce((sum, entry) => sum + list(entry['tool_calls']).length, 0),
        // The submitting command's output is the exit message.
        results: tools.length + messages.filter((entry) => entry.role === 'exit').length,
        error_results: tools.filter((entry) => (entry['extra'] as { returncode: number }).returncode !== 0).length,
      };
    }
    case 'tau-bench': {
      const messages = list((JSON.parse(raw) as Json)['traj']);
      const tools = messages.filter((entry) => entry.role === 'tool');
      return {
        episodes: messages.filter((entry) => entry.role === 'user').length,
        steps: messages.filter((entry) => entry.role === 'assistant').length,
        calls: messages.reduce((sum, entry) => sum + list(entry['tool_calls']).length, 0),
        results: tools.length,
        error_results: tools.filter((entry) => String(entry['content']).startsWith('Error: ')).length,
      };
    }
    case 'claude-code': {
      const rows = raw.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Json);
      const blocks = (row: Json) => list((row['message'] as Json | undefined)?.['content']);
      const talk = rows.filter((row) => row.type === 'user' || row.type === 'assistant');
      const prompt = (row: Json) => row.type === 'user' && !blocks(row).some((block) => block.type === 'tool_result');
      const results = talk.flatMap(blocks).filter((block) => block.type === 'tool_result');
      return {
        episodes: talk.filter((row, at) => prompt(row) && (at === 0 || !prompt(talk[at - 1]!))).length,
        steps: new Set(talk.filter((row) => row.type === 'assistant').map((row) => (row['message'] as Json)['id'])).size,
        calls: talk.filter((row) => row.type === 'assistant').flatMap(blocks).filter((block) => block.type === 'tool_use').length,
        results: results.length,
        error_results: results.filter((block) => block['is_error'] === true).length,
      };
    }
  }
}

describe.skipIf(missing !== null)('real sessions', () => {
  const real = useRealSessions();

  const replayOf = (id: string) => {
    const [target] = resolveTargets(sessionDir(real().root, id));
    return replayTarget(target!);
  };

  it('`walscope verify ROOT --json` exits 0: every session intact, no torn tail, nothing refused', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts'), 'verify', real().root, '--json'], { cwd: REPO, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const reports = JSON.parse(run.stdout) as VerifyReport[];
    const summary = reports.map((report) => ({ session: report.session, error: report.error, torn_tail: report.torn_tail, records: report.records > 0 }));
    expect(summary.sort((left, right) => left.session!.localeCompare(right.session!))).toEqual(
      REAL_SOURCES.map((source) => ({ session: source.session_id, error: null, torn_tail: null, records: true })).sort((left, right) => left.session.localeCompare(right.session)),
    );
  }, 30_000);

  it.each(REAL_SOURCES.map((source) => [source.session_id, source] as const))('%s replays without an anomaly and renders its whole conversation', (id) => {
    const replay = replayOf(id);
    expect(replay.read.error).toBeNull();
    expect(replay.fold.anomalies).toEqual([]);
    expect(replay.fold.episodes.flatMap((episode) => episode.anomalies)).toEqual([]);
    const rendering = renderSessionRequest(replay.fold, walPayloadReader(walPath(sessionDir(real().root, id))));
    expect(rendering.problems).toEqual([]);
    expect(rendering.messages.length).toBeGreaterThan(0);
  });

  it.each(REAL_SOURCES.map((source) => [source.session_id, source] as const))('%s holds the source\'s episodes, steps, calls and results', (id, source) => {
    const episodes = replayJson(id, replayOf(id)).episodes;
    const calls = episodes.flatMap((episode) => episode.batches.flatMap((batch) => batch.calls));
    const terminals = calls.filter((call) => call.terminal !== null);
    expect({
      episodes: episodes.length,
      steps: episodes.reduce((sum, episode) => sum + episode.steps.length, 0),
      calls: calls.length,
      results: terminals.length,
      error_results: terminals.filter((call) => call.is_error).length,
    }).toEqual(sourceCounts(source));
    expect(calls.every((call) => call.class === 'completed')).toBe(true);
  });
});

// `walscope replay SESSION --at STEP`, run in-process on the demo's compaction session as the reference
// runtime wrote it: the JSON shape, the text with each message's origin, the view that applied, a view that
// no longer assembles reported (exit 1), usage errors; and the proof that replay shows what was sent: for every
// step the runtime sent, the digest of the rendering is the runtime's recorded request_sha256.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReplayAtJson } from '../../src-shared/replay.js';
import { UsageError } from '../../src-main/cli/command.js';
import { replayCommand } from '../../src-main/cli/replay.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { readTarget, resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { laneSizes, renderStepRequest } from '../../src-main/replay/transcript.js';
import { toJsonPayload } from '../../src-main/replay/values.js';
import { requestBytes, sha256Hex } from '../../src-main/replay/views.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { withSession } from '../app/wal-fixture.js';
import { useTempDirs } from '../helpers/temp.js';

const SESSION = 'compaction-ceiling';
// One demo root for the file: building it runs the reference runtime over every demo session.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-replay-at-'));
const session_dir = sessionDir(root, SESSION);

beforeAll(() => {
  buildDemoRoot(root, steppedClock(1_700_000_000_000));
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

afterEach(() => vi.restoreAllMocks());
const tempDir = useTempDirs('walscope-replay-at-lines-');

async function replayAt(...argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  try {
    return { code: await replayCommand.run([session_dir, ...argv]), stdout };
  } finally {
    vi.restoreAllMocks();
  }
}

async function json(episode: number, step: number): Promise<{ code: number; body: ReplayAtJson }> {
  const { code, stdout } = await replayAt('--at', String(step), '--episode', String(episode), '--json');
  return { code, body: JSON.parse(stdout) as ReplayAtJson };
}

/** Every model_attempt_finished of the session: episode, step and the request digest the runtime recorded. */
function sentRequests(): { episode: number; step_id: number; request_sha256: string; request_len: number }[] {
  const sent: { episode: number; step_id: number; request_sha256: string; request_len: number }[] = [];
  let episode = 0;
  readTarget(resolveTargets(session_dir)[0]!, {
    on_frame: (frame) => {
      if (frame.type === 'run_started') episode += 1;
      if (frame.type !== 'model_attempt_finished') return;
      const payload = toJsonPayload(frame.payload!);
      sent.push({ episode, step_id: payload['step_id'] as number, request_sha256: payload['request_sha256'] as string, request_len: payload['request_len'] as number });
    },
  });
  return sent;
}

describe('walscope replay --at', () => {
  it('agrees with what the runtime sent: every recorded request digest is the digest of the step\'s rendering', async () => {
    const sent = sentRequests();
    // r1: 3 steps, r2: 1 sent (its second is refused by the ceiling), r3: 3 sent (its fourth has a stale view).
    expect(sent.map((entry) => `${entry.episode}/${entry.step_id}`)).toEqual(['1/1', '1/2', '1/3', '2/1', '3/1', '3/2', '3/3']);
    for (const entry of sent) {
      const { code, body } = await json(entry.episode, entry.step_id);
      expect(code).toBe(0);
      expect(body.problems).toEqual([]);
      const bytes = requestBytes(body.messages.map((rendered) => rendered.message));
      expect({ at: `${entry.episode}/${entry.step_id}`, sha256: sha256Hex(bytes), len: bytes.length }).toEqual({ at: `${entry.episode}/${entry.step_id}`, sha256: entry.request_sha256, len: entry.request_len });
    }
  });

  it('the context lane\'s sizes are the renderings\' sizes, step by step', () => {
    const target = resolveTargets(session_dir)[0]!;
    const { fold } = replayTarget(target);
    const payloads = walPayloadReader(target.wal_path);
    for (const episode of fold.episodes) {
      const step_ids = episode.steps.map((step) => step.step_id);
      const expected = step_ids.map((step_id) => {
        const request = renderStepRequest(fold, episode.episode, step_id, payloads);
        return request.problems.length > 0 ? null : request.size_bytes;
      });
      expect(laneSizes(fold, episode.episode, step_ids, payloads).map((lane) => lane.size_bytes)).toEqual(expected);
    }
  });

  it('--json: the step, the view that applied, messages with origins, problems', async () => {
    const { code, body } = await json(1, 3);
    expect(code).toBe(0);
    expect(Object.keys(body)).toEqual(['step_id', 'view', 'messages', 'problems']);
    expect(body.step_id).toBe(3);
    expect(body.view).toEqual({ view_id: 'r1.compact', version: 2, through_step: 2, applied: 'as_published' });
    expect(body.messages.map((rendered) => rendered.origin.kind)).toEqual(['input', 'view']);
    expect(JSON.stringify(body.messages[1]!.message)).toContain('Summary of steps 1-2');
    // One step earlier the first view applied, and step 2's turn is not covered yet.
    const { body: before } = await json(1, 2);
    expect(before.view).toEqual({ view_id: 'r1.compact', version: 1, through_step: 1, applied: 'as_published' });
    expect(before.messages.map((rendered) => rendered.origin)).toEqual([
      { kind: 'input', episode: 1 },
      { kind: 'view', episode: 1, view_id: 'r1.compact', version: 1, seq: expect.any(Number) },
    ]);
    const { body: first } = await json(1, 1);
    expect(first.view).toBeNull();
  });

  it('the default episode is the last; a view that no longer assembles is reported, nothing rendered, exit 1', async () => {
    const { code, stdout } = await replayAt('--at', '4', '--json');
    const body = JSON.parse(stdout) as ReplayAtJson;
    expect(code).toBe(1);
    expect(body.view).toEqual({ view_id: 'r3.compact', version: 1, through_step: 1, applied: 'as_published' });
    expect(body.messages).toEqual([]);
    expect(body.problems).toEqual([expect.objectContaining({ kind: 'view_not_assembled', cause: 'through_step_regressed' })]);
  });

  it('text: each message with its origin, the view with what it replaced, the step\'s records in words', async () => {
    const { code, stdout } = await replayAt('--at', '3', '--episode', '1');
    expect(code).toBe(0);
    expect(stdout).toContain('view: r1.compact v2 (as_published, recorded at this step');
    expect(stdout).toMatch(/replaces steps 1–2: 4 messages, \d+ bytes → \d+ bytes/);
    expect(stdout).toContain('[1] user · view r1.compact v2');
    expect(stdout).toContain('context-ceiling decision');
    expect(stdout).toContain('permitted: the request may be sent');
    const refused = await replayAt('--at', '2', '--episode', '2');
    expect(refused.stdout).toMatch(/refused: size \d+ over window 150 \(over_window\)/);
    const later = await replayAt('--at', '1');
    expect(later.stdout).toContain('episode 1 view r1.compact v2');
    expect(later.stdout).toContain('· input');
  });

  it.each([
    [['--at', '0'], /--at takes a whole number/],
    [['--at', '9'], /episode 3 has no step 9/],
    [['--at', '1', '--episode', '7'], /no episode 7/],
    [['--episode', '1'], /--episode goes with --at/],
  ])('%j is a usage error', async (argv, message) => {
    await expect(replayAt(...argv)).rejects.toThrow(UsageError);
    await expect(replayAt(...argv)).rejects.toThrow(message);
  });
});

describe('walscope replay --at in a terminal', () => {
  it('prints a message\'s lines as lines, indented, with what steers the terminal still escaped', () => {
    const text = 'first line\r\nsecond\tline\n\u001b]0;pwned\u0007 and a lone\rCR\nOK       session forged';
    const state = tempDir();
    withSession(state, 's1', (append) => {
      append('run_started', { run_id: 'r1', session: 's1', config: {}, input: [{ role: 'user', content: [{ type: 'text', text }] }] });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    });
    const run = spawnSync(process.execPath, ['bin/walscope.js', 'replay', sessionDir(state, 's1'), '--at', '1'], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8' });
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    const at = lines.indexOf('  [0] user · input');
    expect(lines.slice(at + 1, at + 5)).toEqual([
      '      first line',
      '      second\tline',
      '      \\u001b]0;pwned\\u0007 and a lone\\u000dCR',
      '      OK       session forged',
    ]);
    expect([...run.stdout].filter((char) => char < ' ' && char !== '\n' && char !== '\t')).toEqual([]);
  });
});

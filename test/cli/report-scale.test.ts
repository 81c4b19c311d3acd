// `walscope report` on valid WALs whose lists are longer than a call's arguments can be: one step's 150,000
// failed model attempts, 140,000 episodes, one batch of 150,000 calls. A spread of such a list into a call
// (Math.max(...times)) overflows the stack; eslint.config.js forbids the spread, these WALs prove the report.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Payload } from '../../src-shared/wal.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-report-scale-');
const REPO = path.resolve(import.meta.dirname, '../..');
const T0_MS = 1_800_000_000_000;
const HASH = '0'.repeat(64);

type Record = [type: string, payload: Payload];

/** A session written by the engine's writer under the lease, one barrier at the end. */
function writeSession(records: () => Iterable<Record>): string {
  const root = tempDir();
  const session = openSessionForWrite(root, 's1', { writer_name: 'report-scale-test' });
  try {
    for (const [type, payload] of records()) session.writer.append(type, payload);
  } finally {
    session.close();
  }
  return sessionDir(root, 's1');
}

const runStarted = (run: number): Record => ['run_started', { run_id: `r${run}`, session: 's1', config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] }];
const attempt = (step_id: number, index: number, outcome: string): Record =>
  ['model_attempt_finished', { step_id, attempt: index, request_len: 10, request_sha256: HASH, response_len: 0, response_sha256: HASH, outcome, ts_ms: T0_MS + index }];
const textStep = (step_id: number): Record => ['model_step_finished', { step_id, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, usage: { input_tokens: 1, output_tokens: 1 } }];

function* manyAttempts(): Iterable<Record> {
  yield runStarted(1);
  for (let index = 1; index <= 150_000; index++) yield attempt(1, index, 'error');
  yield textStep(1);
  yield ['run_finished', { reason: 'completed' }];
}

function* manyEpisodes(): Iterable<Record> {
  for (let run = 1; run <= 140_000; run++) {
    yield runStarted(run);
    yield attempt(1, run, 'completed');
    yield textStep(1);
    yield ['run_finished', { reason: 'completed' }];
  }
}

const CALLS = 150_000;
function* bigBatch(): Iterable<Record> {
  const ids = Array.from({ length: CALLS }, (_, index) => `c${index}`);
  yield runStarted(1);
  yield ['model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 't', input: {} })) }, usage: { input_tokens: 1, output_tokens: 1 } }];
  yield ['tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: ids.map((tool_call_id) => ({ tool_call_id, name: 't', plan: 'dispatch' })) }];
  for (const [index, tool_call_id] of ids.entries()) {
    yield ['tool_dispatch_intent', { batch_id: 'b1', tool_call_id, args: {}, dispatched_at_ms: T0_MS + index }];
    yield ['tool_result', { batch_id: 'b1', tool_call_id, outcome: 'completed', output: 'ok', is_error: false, finished_at_ms: T0_MS + index + 1 }];
  }
  yield ['tool_batch_finished', { batch_id: 'b1' }];
  yield ['turn_finished', { step_id: 1 }];
  yield textStep(2);
  yield ['run_finished', { reason: 'completed' }];
}

function report(session: string) {
  const run = spawnSync(process.execPath, ['bin/walscope.js', 'report', session, '--json'], { cwd: REPO, encoding: 'utf8', maxBuffer: 1 << 30 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as { integrity: { verdict: string }; totals: { failed_attempts: number; first_ms: number | null; last_ms: number | null }; episodes: unknown[] };
}

describe('walscope report on long lists', () => {
  it('one step with 150,000 failed model attempts', () => {
    const json = report(writeSession(manyAttempts));
    expect(json.integrity.verdict).toBe('intact');
    expect(json.totals).toMatchObject({ failed_attempts: 150_000, first_ms: T0_MS + 1, last_ms: T0_MS + 150_000 });
  });

  it('140,000 episodes', () => {
    const json = report(writeSession(manyEpisodes));
    expect(json.episodes).toHaveLength(140_000);
    expect(json.totals).toMatchObject({ first_ms: T0_MS + 1, last_ms: T0_MS + 140_000 });
  });

  it('one batch of 150,000 calls', () => {
    const json = report(writeSession(bigBatch));
    expect(json.totals).toMatchObject({ first_ms: T0_MS, last_ms: T0_MS + CALLS });
  });
});

// Builds real sessions for the replay tests: records appended with the engine's writer, under the lease, into
// a temporary state root, and read back from disk. The script speaks the runtime's vocabulary (start, step,
// batch, intent, result…) so each test reads as the history it stands for.
import fs from 'node:fs';
import type { JsonPayload, JsonValue, SessionFold } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { readWal } from '../../src-main/engine/reader.js';
import { openSessionForWrite, type WritableSession } from '../../src-main/engine/session.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionFolder } from '../../src-main/replay/fold.js';
import type { FaultyIO } from '../helpers/faulty-io.js';

export const SESSION = 's1';
export const USAGE = { input_tokens: 10, output_tokens: 5 };

export interface DiskRecord {
  seq: number;
  fence: number;
  type: string;
  payload: JsonPayload;
}

export type Outcome = 'completed' | 'unknown' | 'interrupted' | 'max_steps';

export class SessionScript {
  private constructor(private readonly session: WritableSession) {}

  static write(root: string, build: (script: SessionScript) => void, session_id = SESSION): void {
    const session = openSessionForWrite(root, session_id, { writer_name: 'test-runtime' });
    try {
      build(new SessionScript(session));
    } finally {
      session.close();
    }
  }

  /** Appends one record and makes it durable; returns its offset (for cutting a torn write after it). */
  record(type: string, payload: JsonPayload): { seq: number; offset: number } {
    const appended = this.session.writer.append(type, payload as Payload);
    this.session.writer.barrier();
    return appended;
  }

  start(run_id: string, text = 'do the thing'): void {
    this.record('run_started', { run_id, session: this.session.session_id, config: { model: 'test-model' }, input: [userMessage(text)] });
  }

  /** A finished model step: tool calls when `calls` is given, otherwise a final answer (natural end). */
  step(step_id: number, calls: { id: string; name: string }[] = []): void {
    const content: JsonValue[] = calls.length === 0
      ? [{ type: 'text', text: `answer ${step_id}` }]
      : calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: { n: step_id } }));
    this.record('model_step_finished', { step_id, assistant_message: { role: 'assistant', content }, usage: USAGE });
  }

  batch(batch_id: string, step_id: number, calls: { id: string; name: string; plan?: 'dispatch' | 'no_dispatch' }[], sequential = false): void {
    const planned_calls = calls.map((call) => ({ tool_call_id: call.id, name: call.name, plan: call.plan ?? 'dispatch' }));
    this.record('tool_batch_started', { batch_id, step_id, sequential, planned_calls });
  }

  intent(batch_id: string, tool_call_id: string): { seq: number; offset: number } {
    return this.record('tool_dispatch_intent', { batch_id, tool_call_id, args: { path: `/${tool_call_id}` } });
  }

  noDispatch(batch_id: string, tool_call_id: string, reason = 'denied'): void {
    this.record('tool_no_dispatch', { batch_id, tool_call_id, reason });
  }

  result(batch_id: string, tool_call_id: string, outcome: Outcome = 'completed', reason?: string): void {
    const payload: JsonPayload = { batch_id, tool_call_id, outcome, output: `output of ${tool_call_id}`, is_error: outcome !== 'completed' };
    if (reason !== undefined) payload['reason'] = reason;
    this.record('tool_result', payload);
  }

  held(batch_id: string, tool_call_id: string, sequential = false): void {
    this.record('tool_call_provider_held', {
      batch_id,
      tool_call_id,
      call_key: `key-${tool_call_id}`,
      module: 'slow-provider',
      reason: 'awaiting_human',
      held_at_ms: 1_700_000_000_000,
      sequential,
    });
  }

  batchFinished(batch_id: string): void {
    this.record('tool_batch_finished', { batch_id });
  }

  turnFinished(step_id: number): void {
    this.record('turn_finished', { step_id });
  }

  runFinished(reason: string): void {
    this.record('run_finished', { reason, usage: USAGE });
  }

  cancel(run_id: string, at: 'now' | 'step_boundary'): void {
    this.record('run_cancel_requested', { run_id, at });
  }

  paused(run_id: string): void {
    this.record('run_paused', { run_id, reason: 'tool_held' });
  }

  steer(text: string): void {
    this.record('steered', { input: [userMessage(text)] });
  }
}

export function userMessage(text: string): JsonPayload {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function walOf(root: string, session_id = SESSION): string {
  return walPath(sessionDir(root, session_id));
}

export function walBytes(root: string, session_id = SESSION): Buffer {
  return fs.readFileSync(walOf(root, session_id));
}

/** Every record on disk (lineage frames left out), as a fresh reader sees them. */
export function diskRecords(root: string, session_id = SESSION): DiskRecord[] {
  const records: DiskRecord[] = [];
  const read = readWal(walOf(root, session_id), {
    on_frame: (frame) => {
      if (frame.seq > 0) records.push({ seq: frame.seq, fence: frame.fence, type: frame.type, payload: frame.payload as JsonPayload });
    },
  });
  if (read.error !== null) throw new Error(`test WAL refused: ${read.error.message}`);
  return records;
}

export function diskFold(root: string, session_id = SESSION): SessionFold {
  const folder = new SessionFolder();
  const read = readWal(walOf(root, session_id), { on_frame: (frame) => folder.push(frame) });
  if (read.error !== null) throw new Error(`test WAL refused: ${read.error.message}`);
  return folder.snapshot();
}

export function lastSeq(root: string, session_id = SESSION): number {
  return diskRecords(root, session_id).at(-1)?.seq ?? 0;
}

export function maxFence(root: string, session_id = SESSION): number {
  let fence = 0;
  readWal(walOf(root, session_id), { with_payload: false, on_frame: (frame) => (fence = Math.max(fence, frame.fence)) });
  return fence;
}

/** How many WAL writes each fdatasync of the WAL made durable, in order (a recording FileIO's view). */
export function writesPerBarrier(recorder: FaultyIO, wal: string): number[] {
  const counts: number[] = [];
  let writes = 0;
  for (const effect of recorder.mutations()) {
    if (effect.path !== wal) continue;
    if (effect.op === 'write') writes += 1;
    if (effect.op === 'fdatasync') {
      counts.push(writes);
      writes = 0;
    }
  }
  return counts;
}

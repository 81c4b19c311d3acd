// Expected records, spelled as the contract prescribes them (§4 close-out, §2 close-out reasons), for the
// table-driven replay tests. Output texts of not-sent and held close-outs are walscope's own words, so only
// their shape is checked; the unknown-outcome text is the contract's.
import { expect } from 'vitest';
import type { JsonPayload } from '../../src-shared/replay.js';
import { UNKNOWN_OUTPUT } from '../../src-main/replay/close-out.js';
import { USAGE } from './session-script.js';

export interface ExpectedRecord {
  type: string;
  payload: JsonPayload | unknown;
}

export const unknownResult = (batch_id: string, tool_call_id: string): ExpectedRecord => ({
  type: 'tool_result',
  payload: { batch_id, tool_call_id, outcome: 'unknown', output: UNKNOWN_OUTPUT, is_error: true },
});

export const closedResult = (batch_id: string, tool_call_id: string, outcome: 'interrupted' | 'max_steps', reason?: string): ExpectedRecord => ({
  type: 'tool_result',
  payload: { batch_id, tool_call_id, outcome, output: expect.any(String), is_error: true, ...(reason === undefined ? {} : { reason }) },
});

export const batchFinished = (batch_id: string): ExpectedRecord => ({ type: 'tool_batch_finished', payload: { batch_id } });

export const turnFinished = (step_id: number): ExpectedRecord => ({ type: 'turn_finished', payload: { step_id } });

export const runFinished = (reason: string, steps = 1): ExpectedRecord => ({
  type: 'run_finished',
  payload: { reason, usage: { input_tokens: USAGE.input_tokens * steps, output_tokens: USAGE.output_tokens * steps } },
});

export const resumeStarted = (
  episode: number,
  resumed_from_seq: number,
  replayed: { messages: number; model_steps: number; tool_results: number },
  indeterminate: string[],
): ExpectedRecord => ({
  type: 'resume_started',
  payload: { episode, resumed_from_seq, replayed, redone: [], indeterminate },
});

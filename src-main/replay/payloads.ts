// What a view asks of the payloads the fold leaves on disk (the readers are recovery/payloads.ts'): the
// reader's shape and what is built from one. The fold keeps where each tool output, assistant message and
// intent's args are, not the values; these read them through the reader they are handed.
import type { CallFold, CallTerminal, JsonPayload, JsonValue, StepFold } from '../../src-shared/replay.js';
import type { CborProjection } from '../engine/index.js';
import { isMap } from './values.js';

/** The payload of the record whose frame starts at `offset`, in its JSON form: whole, or only the members
 *  `projection` names, as it builds them (a preview of a 16 MiB output: timeline.ts). */
export type PayloadReader = (offset: number, projection?: PayloadProjection) => JsonPayload;

/** What to build of a payload map: the members named, each by its projection (`CborDecoder.readProjected`);
 *  the rest is validated, not built. */
export type PayloadProjection = { readonly [member: string]: CborProjection };

/** For what only counts or checks the shape of messages (resume_started.replayed, provider validity): nothing
 *  is read; every output reads as absent, every assistant message as its shape (`stepMessage`). Never for a
 *  request that is sent or shown. */
export const PAYLOADS_UNREAD: PayloadReader = () => ({});

/** A tool_result terminal's output, read back from its record (as `projection`'s `output` builds it). */
export function terminalOutput(terminal: CallTerminal, payloads: PayloadReader, projection?: PayloadProjection): JsonValue {
  if (terminal.type !== 'tool_result') return null;
  return payloads(terminal.offset, projection)['output'] ?? null;
}

/** What a request carries for an assistant message that is not a map. */
export function emptyAssistantMessage(): JsonPayload {
  return { role: 'assistant', content: [] };
}

/** A recorded step's assistant message as a request carries it, read back from its model_step_finished (a
 *  message that is not a map is rendered as an empty assistant message). Through PAYLOADS_UNREAD (nothing
 *  read), its shape: the role and one tool_use block per id, which is all a count or a provider-validity check
 *  looks at, and exactly the message itself when the record has none. */
export function stepMessage(step: StepFold, payloads: PayloadReader): JsonPayload {
  const message = step.offset === null ? undefined : payloads(step.offset)['assistant_message'];
  if (message !== undefined) return isMap(message) ? message : emptyAssistantMessage();
  const content = step.tool_use_ids.map((id): JsonPayload => ({ type: 'tool_use', id }));
  return step.role === null ? { content } : { role: step.role, content };
}

/** A call's args as its intent recorded them (null without an intent), read back from the intent's record (as
 *  `projection`'s `args` builds them). */
export function intentArgs(call: CallFold, payloads: PayloadReader, projection?: PayloadProjection): JsonValue {
  return call.intent === null ? null : (payloads(call.intent.offset, projection)['args'] ?? null);
}

// Provider validity (what a provider accepts of a request): every assistant tool_use answered by exactly one
// tool_result before the next assistant message, and no tool_result without its tool_use. A request is checked
// whole (`checkProviderValid`), or from its episodes' parts, each cut at its assistant messages once
// (`RequestTurns`): the check starts afresh at every assistant message, so only the seams between parts are
// checked again when parts are joined.
import { appendAll } from '../../src-shared/arrays.js';
import type { JsonPayload, ProviderProblem, ProviderValidity, RenderedMessage } from '../../src-shared/replay.js';
import { isMap, text } from './values.js';

/** Provider validity: each assistant tool_use answered by exactly one tool_result before the next assistant
 *  message, and no tool_result without its tool_use. */
export function checkProviderValid(messages: readonly JsonPayload[]): ProviderValidity {
  const problems: ProviderProblem[] = [];
  let open = new Map<string, number>();
  const answered = new Set<string>();
  const closeTurn = () => {
    for (const [tool_use_id, message_index] of open) problems.push({ kind: 'missing_result', tool_use_id, message_index });
    open = new Map();
    answered.clear();
  };
  messages.forEach((message, message_index) => {
    if (message['role'] === 'assistant') closeTurn();
    for (const block of Array.isArray(message['content']) ? message['content'] : []) {
      if (!isMap(block)) continue;
      if (block['type'] === 'tool_use') open.set(text(block, 'id') ?? '', message_index);
      if (block['type'] !== 'tool_result') continue;
      const tool_use_id = text(block, 'tool_use_id') ?? '';
      if (open.delete(tool_use_id)) answered.add(tool_use_id);
      else problems.push({ kind: answered.has(tool_use_id) ? 'duplicate_result' : 'orphan_result', tool_use_id, message_index });
    }
  });
  closeTurn();
  return { valid: problems.length === 0, problems };
}

/** An episode's part of the next request, cut at its assistant messages: the provider-validity check starts a
 *  turn afresh at every assistant message (replay/transcript.ts `checkProviderValid`), so the turns inside one
 *  part are checked once, and only the messages across the seams between parts are checked again. */
export interface RequestTurns {
  /** Before the part's first assistant message (all of it when it has none). */
  head: JsonPayload[];
  /** The turns from the first to the last assistant message: valid or not, once for all. */
  inner_valid: boolean;
  /** From the last assistant message on; null when the part has no assistant message. */
  tail: JsonPayload[] | null;
  /** The seam before this part's first assistant message, when it is the previous part's tail and this
   *  part's head: checked once for that previous part. */
  seam: { after: RequestTurns; valid: boolean } | null;
}

export function requestTurns(messages: Iterable<RenderedMessage>): RequestTurns {
  const sum = newTurnSum();
  for (const rendered of messages) addMessage(sum, rendered);
  return turnsOf(sum);
}

/** An episode's part of the next request split into turns as it goes: each turn checked once it is complete
 *  (the next assistant message starts another). */
export interface TurnSum {
  head: JsonPayload[];
  inner_valid: boolean;
  tail: JsonPayload[] | null;
}

export const newTurnSum = (): TurnSum => ({ head: [], inner_valid: true, tail: null });

/** Adds one message to the turns; true when it checked the turn it closed. */
export function addMessage(sum: TurnSum, rendered: RenderedMessage): boolean {
  const message = rendered.message;
  if (message['role'] !== 'assistant') {
    (sum.tail ?? sum.head).push(message);
    return false;
  }
  const checked = sum.tail !== null && sum.inner_valid;
  if (checked) sum.inner_valid = checkProviderValid(sum.tail!).valid;
  sum.tail = [message];
  return checked;
}

export function turnsOf(sum: TurnSum): RequestTurns {
  return { head: sum.head, inner_valid: sum.inner_valid, tail: sum.tail, seam: null };
}


/** `checkProviderValid` of the parts joined, from each part's turns: the seams are checked, the inner turns
 *  were checked when their part was made. */
export function turnsValid(parts: readonly RequestTurns[]): boolean {
  let turn: JsonPayload[] = [];
  /** The part whose tail `turn` is, while nothing else joined it. */
  let after: RequestTurns | null = null;
  for (const part of parts) {
    if (part.tail === null) {
      appendAll(turn, part.head);
      after = null;
      continue;
    }
    if (!part.inner_valid) return false;
    if (after === null || part.seam?.after !== after) {
      appendAll(turn, part.head);
      const valid = checkProviderValid(turn).valid;
      part.seam = after === null ? null : { after, valid };
      if (!valid) return false;
    } else if (!part.seam.valid) {
      return false;
    }
    turn = [...part.tail];
    after = part;
  }
  return checkProviderValid(turn).valid;
}


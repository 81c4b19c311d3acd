// Words for compaction and context-ceiling records (wal-format §6), shared by the CLI, the timeline and the
// Context view so each says the same thing: a readable label per record type, a one-line summary of its
// payload, and where a rendered message came from. Every value read here is untrusted WAL content: the
// callers print it through their text escapes (the CLI) or React text nodes (the app).
import type { JsonPayload, JsonValue, MessageOrigin } from './replay.js';

const NOTE_LABELS: Record<string, string> = {
  compaction_view_applied: 'compaction view applied',
  compaction_notice: 'compaction notice',
  compaction_message: 'compaction message',
  context_ceiling_wait: 'context-ceiling wait',
  context_ceiling_decided: 'context-ceiling decision',
  compaction_request: 'compaction request (legacy)',
  compaction_answer: 'compaction answer (legacy)',
  compaction_wait: 'compaction wait (legacy)',
};

/** The readable name of a step note's record type; an unknown type is shown as it is written. */
export function noteLabel(type: string): string {
  return NOTE_LABELS[type] ?? type;
}

/** One line saying what a compaction or ceiling record holds, without JSON. */
export function noteSummary(type: string, payload: JsonPayload): string {
  switch (type) {
    case 'compaction_view_applied': {
      const view = asMap(payload['view']);
      const replacement = view['replacement'];
      const count = Array.isArray(replacement) ? replacement.length : 0;
      return `view ${word(view['view_id'])} v${word(view['version'])} replaces steps 1–${word(view['through_step'])} with ${count} message${count === 1 ? '' : 's'} (${word(payload['applied'])})`;
    }
    case 'compaction_notice':
      return `notice #${word(payload['notice_seq'])}${headersText(payload['headers'])}`;
    case 'context_ceiling_wait':
      return `waits for the context ceiling until ${timeText(payload['deadline_ms'])}`;
    case 'context_ceiling_decided':
      return decisionText(payload['detail']);
    default:
      return `${noteLabel(type)} at step ${word(payload['step_id'])}`;
  }
}

/** A ceiling decision: permission (detail null) or the refusal's window, size and cause. */
export function decisionText(detail: JsonValue | undefined): string {
  if (detail === null || detail === undefined) return 'permitted: the request may be sent';
  const refusal = asMap(detail);
  return `refused: size ${word(refusal['size'])} over window ${word(refusal['window'])} (${word(refusal['cause'])})`;
}

/** Where a message came from, as `walscope replay --at` and the Context view print it. Messages of another
 *  episode than the step's say which. */
export function originLabel(origin: MessageOrigin, episode: number): string {
  const prefix = origin.episode === episode ? '' : `episode ${origin.episode} `;
  switch (origin.kind) {
    case 'input':
      return `${prefix}input`;
    case 'view':
      return `${prefix}view ${origin.view_id} v${origin.version}`;
    case 'step':
      return `${prefix}step ${origin.step_id}`;
    case 'steer':
      return `${prefix}steer (seq ${origin.seq})`;
  }
}

/** The text of a message's text-like blocks, and a word for each other block (tool calls, results, media). */
export function messageText(message: JsonPayload): string {
  const content = message['content'];
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map(blockText).filter((part) => part.length > 0).join('\n');
}

function blockText(block: JsonValue): string {
  const map = asMap(block);
  switch (map['type']) {
    case 'text':
    case 'text_with_state':
      return typeof map['text'] === 'string' ? map['text'] : '';
    case 'tool_use':
      return `[tool_use ${word(map['id'])} ${word(map['name'])}] ${JSON.stringify(map['input'] ?? null)}`;
    case 'tool_result': {
      const output = map['output'];
      return `[tool_result ${word(map['tool_use_id'])}${map['is_error'] === true ? ', error' : ''}] ${typeof output === 'string' ? output : JSON.stringify(output ?? null)}`;
    }
    default:
      return `[${word(map['type'])}]`;
  }
}

function headersText(headers: JsonValue | undefined): string {
  const entries = Object.entries(asMap(headers));
  return entries.length === 0 ? '' : ` · ${entries.map(([key, value]) => `${key}: ${word(value)}`).join(', ')}`;
}

function timeText(value: JsonValue | undefined): string {
  // A Date holds ±8.64e15 ms; past that toISOString throws, and a hostile WAL may hold any number.
  return typeof value === 'number' && Math.abs(value) <= 8.64e15 ? new Date(value).toISOString() : word(value);
}

function word(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '?';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asMap(value: JsonValue | undefined): JsonPayload {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
}

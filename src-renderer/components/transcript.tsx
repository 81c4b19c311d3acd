// The transcript as a conversation: each message with its role, its text, the tool calls it makes as cards
// (name, id, arguments) and the results that answer them (output as preformatted text, errors marked). A
// row of the list is the message in one line; the detail pane shows it whole. All WAL content is text.
import type { TranscriptRow } from '../../src-shared/ipc.js';
import type { JsonValue } from '../../src-shared/replay.js';
import { inline } from './format.js';
import { outputText } from '../../src-shared/terminal-text.js';
import { TextBlock } from './output-text.js';
import { TerminalText } from './terminal-output.js';

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'tool_use'; id: string; name: string; input: JsonValue }
  | { kind: 'tool_result'; tool_use_id: string; output: JsonValue; is_error: boolean }
  | { kind: 'other'; value: JsonValue };

function blocksOf(content: JsonValue): Block[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [{ kind: 'other', value: content }];
  return content.map((block): Block => {
    if (block === null || typeof block !== 'object' || Array.isArray(block)) return { kind: 'other', value: block };
    const field = (name: string) => (typeof block[name] === 'string' ? (block[name] as string) : '');
    switch (block['type']) {
      case 'text':
        return { kind: 'text', text: field('text') };
      case 'tool_use':
        return { kind: 'tool_use', id: field('id'), name: field('name'), input: block['input'] ?? null };
      case 'tool_result':
        return { kind: 'tool_result', tool_use_id: field('tool_use_id'), output: block['output'] ?? block['content'] ?? null, is_error: block['is_error'] === true };
      default:
        return { kind: 'other', value: block };
    }
  });
}

/** One message in one line: role, then each block shortened (text, → call, ← result). */
export function TranscriptLine({ row }: { row: TranscriptRow }) {
  return (
    <div className={`tl tl-message role-${roleClass(row.role)}`} data-testid="transcript-message" data-role={row.role}>
      <span className="role">{row.role}</span>
      {blocksOf(row.content).map((block, index) => <BlockInline key={index} block={block} />)}
    </div>
  );
}

function BlockInline({ block }: { block: Block }) {
  switch (block.kind) {
    case 'text':
      return <span className="text">{inline(block.text, 200)}</span>;
    case 'tool_use':
      return <span className="badge call-card-inline" data-testid="tool-use-inline">→ {block.name} <span className="mono">{block.id}</span></span>;
    case 'tool_result':
      return <span className={`badge${block.is_error ? ' warn' : ''}`} data-testid="tool-result-inline">← <span className="mono">{block.tool_use_id}</span>{block.is_error ? ' error' : ''}: {inline(outputText(block.output), 60)}</span>;
    case 'other':
      return <span className="mono muted">{inline(block.value, 80)}</span>;
  }
}

/** The selected message whole: text as text, each tool call a card, each result its output's lines. */
export function TranscriptMessage({ row }: { row: TranscriptRow }) {
  return (
    <div className="detail transcript-detail" data-testid="transcript-detail">
      <h4>{row.role} <span className="muted">message {row.index}</span></h4>
      {blocksOf(row.content).map((block, index) => <BlockWhole key={index} block={block} />)}
    </div>
  );
}

function BlockWhole({ block }: { block: Block }) {
  switch (block.kind) {
    case 'text':
      return <TextBlock text={block.text} />;
    case 'tool_use':
      return (
        <section className="call-card" aria-label={`Tool call ${block.name}`} data-testid="tool-use-card">
          <div className="call-card-head"><strong>{block.name}</strong> <span className="mono muted">{block.id}</span></div>
          <TextBlock text={JSON.stringify(block.input, null, 2)} />
        </section>
      );
    case 'tool_result':
      return (
        <section className={`call-card result-card${block.is_error ? ' is-error' : ''}`} aria-label={`Result of ${block.tool_use_id}`} data-testid="tool-result-card" data-error={block.is_error}>
          <div className="call-card-head">result of <span className="mono">{block.tool_use_id}</span>{block.is_error && <span className="badge warn">is_error</span>}</div>
          <TerminalText text={outputText(block.output)} testid="tool-result-output" />
        </section>
      );
    case 'other':
      return <TextBlock text={JSON.stringify(block.value, null, 2)} />;
  }
}

function roleClass(role: string): string {
  return /^[a-z_]{1,16}$/.test(role) ? role : 'other';
}

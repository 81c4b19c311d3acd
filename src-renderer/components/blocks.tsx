// A message's blocks (src-shared/blocks.ts) as what each is: text as text, thinking folded (opened on demand;
// its signature is never sent here), redacted thinking and media as typed placeholders, an image as an <img> of
// its base64 data (main checked it is a raster image of its type; the CSP allows data: images only), a tool call
// as a card with its arguments, a result as its output's blocks, an unknown block as its fields. Every WAL text
// is a React text node.
import { mediaWords, outputLine, thinkingWords, type ShownBlock } from '../../src-shared/blocks.js';
import type { JsonValue } from '../../src-shared/replay.js';
import { inline } from './format.js';
import { TextBlock } from './output-text.js';
import { TerminalText } from './terminal-output.js';
import { PayloadTree } from './payload-tree.js';

/** Blocks whole: the detail panes, the transcript's message, the context view. */
export function Blocks({ blocks, testid }: { blocks: readonly ShownBlock[]; testid?: string }) {
  return (
    <div className="blocks" data-testid={testid}>
      {blocks.map((block, index) => <BlockWhole key={index} block={block} />)}
    </div>
  );
}

function BlockWhole({ block }: { block: ShownBlock }) {
  switch (block.type) {
    case 'text':
      return <><TextBlock text={block.text} testid="block-text" /><MoreChars count={block.more_chars} /></>;
    case 'text_with_state':
      return (
        <>
          <TextBlock text={block.text} testid="block-text" />
          <MoreChars count={block.more_chars} />
          <p className="muted block-note">carries provider state{block.state_format === null ? '' : ` (${block.state_format})`}, not shown</p>
        </>
      );
    case 'reasoning':
      return (
        <details className="thinking" data-testid="thinking" data-signed={block.signed}>
          <summary>{thinkingWords(block.chars)}{block.signed ? ' · signed' : ''}</summary>
          {block.chars === 0 ? <p className="muted block-note">no text recorded</p> : <TextBlock text={block.text} />}
          <MoreChars count={block.more_chars} />
        </details>
      );
    case 'redacted_reasoning':
      return <p className="block-placeholder" data-testid="redacted-thinking">{redactedWords(block)}</p>;
    case 'media':
      return block.image === null ? (
        <p className="block-placeholder" data-testid="media-placeholder">{mediaWords(block)}</p>
      ) : (
        <figure className="block-image" data-testid="block-image">
          <img src={`data:${block.media_type ?? ''};base64,${block.image}`} alt={`image from the WAL: ${mediaWords(block)}`} />
          <figcaption className="muted">{mediaWords(block)}</figcaption>
        </figure>
      );
    case 'tool_use':
      return (
        <section className="call-card" aria-label={`Tool call ${block.name}`} data-testid="tool-use-card">
          <div className="call-card-head"><strong>{block.name}</strong> <span className="mono muted">{block.id}</span></div>
          <Arguments value={block.input} />
        </section>
      );
    case 'tool_result':
      return (
        <section className={`call-card result-card${block.is_error ? ' is-error' : ''}`} aria-label={`Result of ${block.tool_use_id}`} data-testid="tool-result-card" data-error={block.is_error}>
          <div className="call-card-head">result of <span className="mono">{block.tool_use_id}</span>{block.is_error && <span className="badge warn">is_error</span>}</div>
          {block.output.length === 0 ? <p className="muted block-note">no output</p> : <ToolOutputBlocks blocks={block.output} />}
        </section>
      );
    case 'unknown':
      return (
        <section className="unknown-block" aria-label={`Block of type ${block.block_type ?? 'unknown'}`} data-testid="unknown-block">
          <div className="muted">block of type <span className="mono">{block.block_type ?? '(none)'}</span>, shown as its fields</div>
          {block.fields.map(([key, value]) => <PayloadTree key={key} value={value} label={key} />)}
        </section>
      );
    case 'left_out':
      return <p className="muted block-note">… {block.blocks.toLocaleString()} more blocks; open the record</p>;
  }
}

/** A call's arguments as a tree; none at all said in words, never as `null`. */
export function Arguments({ value }: { value: JsonValue }) {
  const none = value === null || (typeof value === 'object' && Object.keys(value).length === 0);
  return none ? <p className="muted block-note" data-testid="no-arguments">no arguments</p> : <PayloadTree value={value} label="arguments" />;
}

function MoreChars({ count }: { count: number }) {
  return count === 0 ? null : <p className="muted block-note">… {count.toLocaleString()} more characters; open the record</p>;
}

function redactedWords(block: Extract<ShownBlock, { type: 'redacted_reasoning' }>): string {
  return `redacted thinking${block.provider_format === null ? '' : ` (${block.provider_format})`} · ${block.data_chars.toLocaleString()} chars of opaque data`;
}

/** Blocks in one line: the model's words first, then a chip for each other block (thinking, media, calls,
 *  results), so a narrow row keeps the words. */
/** A tool's output as a terminal shows it: its texts with their colours drawn (terminal-output.tsx), the rest of
 *  its blocks (an image, a placeholder) as what they are. */
function ToolOutputBlocks({ blocks }: { blocks: readonly ShownBlock[] }) {
  return (
    <div className="blocks" data-testid="tool-result-output">
      {blocks.map((block, index) => (block.type === 'text' ? <div key={index}><TerminalText text={block.text} /><MoreChars count={block.more_chars} /></div> : <BlockWhole key={index} block={block} />))}
    </div>
  );
}

export function BlocksInline({ blocks, chars_max = 200 }: { blocks: readonly ShownBlock[]; chars_max?: number }) {
  const words = blocks.flatMap((block) => (block.type === 'text' || block.type === 'text_with_state' ? [block.text] : [])).join(' ');
  return (
    <>
      {words !== '' && <span className="text" data-testid="row-words">{inline(words, chars_max)}</span>}
      {blocks.map((block, index) => <BlockChip key={index} block={block} />)}
    </>
  );
}

function BlockChip({ block }: { block: ShownBlock }) {
  switch (block.type) {
    case 'text':
    case 'text_with_state':
      return null;
    case 'reasoning':
      return <span className="badge label thinking-chip" data-testid="thinking-inline">{thinkingWords(block.chars)}</span>;
    case 'redacted_reasoning':
      return <span className="badge label">redacted thinking</span>;
    case 'media':
      return <span className="badge label">{mediaWords(block)}</span>;
    case 'tool_use':
      return <span className="badge call-card-inline" data-testid="tool-use-inline">→ {block.name}</span>;
    case 'tool_result':
      return (
        <span className={`badge${block.is_error ? ' warn' : ''}`} data-testid="tool-result-inline">
          ← <span className="mono">{block.tool_use_id}</span>{block.is_error ? ' error' : ''}{resultWords(block.output)}
        </span>
      );
    case 'unknown':
      return <span className="badge label">{block.block_type ?? 'block'}</span>;
    case 'left_out':
      return <span className="muted">+{block.blocks} blocks</span>;
  }
}

/** A result's output in a few words: its first line with text (no terminal escapes), else its media's kind. */
function resultWords(output: readonly ShownBlock[]): string {
  const line = outputLine({ parts: output });
  if (line !== null) return `: ${inline(line, 60)}`;
  const media = output.find((block) => block.type === 'media');
  return media === undefined ? '' : `: ${mediaWords(media)}`;
}

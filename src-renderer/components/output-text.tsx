// Tool output and message text as preformatted text: a string shows its own lines (not a JSON string with
// `\n`), text blocks are joined, anything else is indented JSON. Always a React text node inside <pre>.
import type { JsonValue } from '../../src-shared/replay.js';

/** The text a value reads as: a string as it is, a list of text blocks as their texts, else indented JSON. */
export function outputText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0 && value.every(isTextBlock)) return value.map((block) => (block as { text: string }).text).join('\n');
  return JSON.stringify(value, null, 2);
}

function isTextBlock(value: JsonValue): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && value['type'] === 'text' && typeof value['text'] === 'string';
}

/** A scrollable block of text; focusable, so a keyboard can scroll it too. */
export function TextBlock({ text, testid }: { text: string; testid?: string }) {
  return <pre className="text-block" tabIndex={0} data-testid={testid}>{text}</pre>;
}

export function OutputBlock({ value, label = 'output', testid }: { value: JsonValue; label?: string; testid?: string }) {
  return (
    <div className="output-block">
      <div className="tree-key">{label}</div>
      <TextBlock text={outputText(value)} testid={testid} />
    </div>
  );
}

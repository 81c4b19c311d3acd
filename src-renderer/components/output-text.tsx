// Tool output and message text as preformatted text: a string shows its own lines (not a JSON string with
// `\n`), text blocks are joined, anything else is indented JSON. Always a React text node inside <pre>.
import type { JsonValue } from '../../src-shared/replay.js';
import { outputText } from '../../src-shared/terminal-text.js';

export { outputText };

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

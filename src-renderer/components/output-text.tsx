// Message text as preformatted text: a string shows its own lines, always a React text node inside <pre>. A
// tool output has a view of its own (terminal-output.tsx).

/** A scrollable block of text; focusable, so a keyboard can scroll it too. */
export function TextBlock({ text, testid }: { text: string; testid?: string }) {
  return <pre className="text-block" tabIndex={0} data-testid={testid}>{text}</pre>;
}

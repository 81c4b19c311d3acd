// A JSON value as a collapsible tree. Every string is a text node: markup, scripts and links in WAL content
// show as the characters they are and never become elements, and nothing here opens a URL.
import { useState } from 'react';
import type { JsonValue } from '../../src-shared/replay.js';
import { TextBlock } from './output-text.js';

/** Children shown per node before "show more": a 100k-element array must not become 100k elements at once. */
const CHILDREN_SHOWN = 200;

export function PayloadTree({ value, label = 'payload', depth = 0 }: { value: JsonValue; label?: string; depth?: number }) {
  const [open, setOpen] = useState(depth < 2);
  const [shown, setShown] = useState(CHILDREN_SHOWN);
  // A string over several lines reads as its lines (tool output, file contents), not as a JSON string with \n.
  if (typeof value === 'string' && value.includes('\n')) {
    return (
      <div className="tree-leaf">
        <span className="tree-key">{label}:</span>
        <TextBlock text={value} />
      </div>
    );
  }
  if (value === null || typeof value !== 'object') {
    return (
      <div className="tree-leaf">
        <span className="tree-key">{label}: </span>
        <span className={`tree-value tree-${value === null ? 'null' : typeof value}`}>{typeof value === 'string' ? JSON.stringify(value) : String(value)}</span>
      </div>
    );
  }
  const entries: [string, JsonValue][] = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
  return (
    <div className="tree-node">
      <button type="button" className="tree-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} <span className="tree-key">{label}</span> <span className="muted">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span>
      </button>
      {open && (
        <div className="tree-children">
          {entries.slice(0, shown).map(([key, item]) => <PayloadTree key={key} value={item} label={key} depth={depth + 1} />)}
          {entries.length > shown && (
            <button type="button" className="link-button" onClick={() => setShown(shown + CHILDREN_SHOWN)}>show {Math.min(CHILDREN_SHOWN, entries.length - shown)} more of {entries.length - shown}</button>
          )}
        </div>
      )}
    </div>
  );
}

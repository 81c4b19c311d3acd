// Small display helpers. Everything they return is plain text for React to escape.
export { actionWords, formatBytes, writtenWords } from '../../src-shared/format.js';
import { terminalPlain } from '../../src-shared/terminal-text.js';

export function formatTime(ms: number | null): string {
  if (ms === null) return '—';
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

export function formatAgo(ms: number | null, now_ms: number): string {
  if (ms === null) return '—';
  const seconds = Math.max(0, Math.round((now_ms - ms) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}

/** A JSON value on one line, cut: for table cells. A text is shown as a terminal shows it (no escape codes). */
export function inline(value: unknown, chars_max = 160): string {
  const text = typeof value === 'string' ? terminalPlain(value) : (JSON.stringify(value) ?? 'null');
  return text.length > chars_max ? `${text.slice(0, chars_max)}…` : text;
}

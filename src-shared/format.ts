// Display helpers that the CLI and the renderer share. Everything they return is plain text.
import type { RecoveryEntry } from './replay.js';

export function formatBytes(size_bytes: number): string {
  if (size_bytes < 1024) return `${size_bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = size_bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A recovery as one phrase: "resume", "acknowledge u1: not applied". */
export function actionWords(entry: RecoveryEntry): string {
  if (entry.action !== 'acknowledge' || entry.call === null) return entry.action;
  return `acknowledge ${entry.call.tool_call_id}: ${entry.finding === null ? 'no finding' : entry.finding.replaceAll('_', ' ')}`;
}

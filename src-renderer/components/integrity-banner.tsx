// What the reader found wrong with the WAL, said plainly: a torn tail (and what was discarded), non-tail
// corruption (nothing after it is used), a newer writer (the feature named), a malformed frame.
import type { Integrity } from '../../src-shared/ipc.js';

export function IntegrityBanner({ integrity }: { integrity: Integrity }) {
  const { torn_tail, in_progress_tail, error } = integrity;
  if (error !== null) {
    const what: Record<string, string> = {
      non_tail_corruption: `Non-tail corruption at offset ${error.offset ?? '?'}: nothing after it is used (the Records tab lists what was found after it, unverified). Restore the WAL from a good copy.`,
      newer_writer: `Written by a newer writer: ${error.features.length > 0 ? `needs ${error.features.join(', ')}` : error.message}. Open it with a newer walscope.`,
      malformed_frame: `Malformed frame at offset ${error.offset ?? '?'}: an intact frame that is not in the format. Refused, never repaired.`,
      sequence_error: `Sequence error at offset ${error.offset ?? '?'}: nothing after it is used (the Records tab lists what was found after it, unverified).`,
      io: `Cannot read the WAL: ${error.message}`,
    };
    return <div className="banner banner-error" role="alert" data-testid="integrity-banner" data-kind={error.kind}>{what[error.kind] ?? error.message}<div className="muted">{error.message}</div></div>;
  }
  if (torn_tail !== null) {
    return (
      <div className="banner banner-warn" role="status" data-testid="integrity-banner" data-kind="torn_tail">
        Torn tail at offset {torn_tail.offset}: {torn_tail.bytes} bytes ({torn_tail.reason.replaceAll('_', ' ')}) were never committed and are not shown. A writer opening the session under its lease truncates them.
      </div>
    );
  }
  if (in_progress_tail !== null) {
    return <div className="banner banner-info" role="status" data-testid="integrity-banner" data-kind="in_progress">A live writer is appending ({in_progress_tail.bytes} bytes at offset {in_progress_tail.offset} not yet complete).</div>;
  }
  return null;
}

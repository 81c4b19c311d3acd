// Frames found after a non-tail damage, as the Records tab lists them: after the last verified record, each
// marked "unverified by sequence" (digest-valid, but whether it belongs where it sits cannot be checked once
// the sequence broke). Read-only: nothing here feeds the timeline, the fold or a recovery plan.
import type { AfterDamageView, RecordRow } from '../../src-shared/ipc.js';

/** The line above the Records list saying what follows the verified records. */
export function AfterDamageNote({ view }: { view: AfterDamageView | null }) {
  if (view === null) return null;
  const range = view.records === 0 ? 'no intact record' : `${view.records} intact record(s), seq ${view.seq_first}–${view.seq_last}`;
  return (
    <p className="warn-text" role="note" data-testid="after-damage-note">
      After the damage at offset {view.damage_offset}: {range}{view.scan_cut ? ' (at least: the scan stopped at its limit)' : ''}, listed after record {view.first_index.toLocaleString()} and marked
      unverified by sequence. They are shown, never used: the timeline, the plan and every action stop at the damage.
      {view.listed < view.frames ? ` Only the first ${view.listed.toLocaleString()} frames are listed.` : ''}
    </p>
  );
}

/** The chip on an unverified row; the first one is the damage marker. */
export function UnverifiedMark({ row, view }: { row: RecordRow; view: AfterDamageView | null }) {
  if (row.unverified !== true || view === null) return null;
  const title = `unverified by sequence: found after the damage at offset ${view.damage_offset}; shown, never used`;
  if (row.index === view.first_index) return <span className="badge warn" title={title} data-testid="damage-marker">after damage</span>;
  return <span className="badge warn" title={title} data-testid="unverified">unverified</span>;
}

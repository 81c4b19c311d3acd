// The side pane of a session: the selected row's detail (a timeline row, a record, a message), the episode's
// waterfall, recovery, history, the recovery history and the send queue.
import { useQuery } from '@tanstack/react-query';
import type { RowList, SessionDetail, TimelineRow, TranscriptRow } from '../../src-shared/ipc.js';
import { queries } from '../queries.js';
import { RecordDetailView, TimelineDetail } from './details.js';
import { HistoryPanel } from './history-panel.js';
import { RecoveryHistory, RecoveryPanel } from './recovery-panel.js';
import { TranscriptMessage } from './transcript.js';
import { Waterfall } from './waterfall.js';

export interface SideSelection {
  tab: RowList;
  /** The selected row, when its detail is open: its index in the list and the row (undefined while its page loads). */
  open: { index: number; row: unknown } | null;
  /** The episode of the timeline's selected row, whose waterfall is shown (else the last episode's). */
  episode: number | null;
}

export function SessionSide({ detail, selection, onJump, onContext, onTimeline }: {
  detail: SessionDetail;
  selection: SideSelection;
  onJump: (seq: number) => void;
  onContext: (episode: number, step_id: number) => void;
  onTimeline: (row: number) => void;
}) {
  const key = detail.summary.key;
  const { tab, open } = selection;
  return (
    <aside className="session-side" aria-label="Details and recovery">
      {open !== null && tab === 'timeline' && open.row !== undefined && <TimelineDetail session_key={key} row={open.row as TimelineRow} onJump={onJump} onContext={onContext} />}
      {open !== null && tab === 'records' && <RecordPane sessionKey={key} index={open.index} onBack={onTimeline} />}
      {open !== null && tab === 'transcript' && open.row !== undefined && <TranscriptMessage row={open.row as TranscriptRow} />}
      <EpisodeWaterfall detail={detail} episode={selection.episode} />
      <RecoveryPanel detail={detail} />
      <HistoryPanel sessionKey={key} lastSeq={detail.summary.last_seq} reading={detail.summary.status === 'loading'} readOnly={detail.read_only} retire={detail.retire} />
      {detail.read_only && <p className="muted" data-testid="no-actions">This export is read-only: no recovery action is offered.</p>}
      <RecoveryHistory entries={detail.summary.recoveries} />
      <QueuePanel detail={detail} />
    </aside>
  );
}

/** The waterfall of the selected row's episode, else of the last one. The detail carries the last one's timing
 *  without its bars; the bars are asked for, again only when the detail's digest of them changes. */
function EpisodeWaterfall({ detail, episode }: { detail: SessionDetail; episode: number | null }) {
  const last = detail.timing.at(-1) ?? null;
  const asked = useQuery(queries.timing(detail.summary.key, episode ?? last?.episode ?? null, last));
  return asked.data === undefined ? null : <Waterfall timing={asked.data} />;
}

function RecordPane({ sessionKey, index, onBack }: { sessionKey: string; index: number; onBack: (row: number) => void }) {
  const record = useQuery(queries.record(sessionKey, index));
  if (record.data === undefined) return <div className="detail muted">{record.error?.message ?? 'reading…'}</div>;
  return <RecordDetailView record={record.data} onBack={onBack} />;
}

function QueuePanel({ detail }: { detail: SessionDetail }) {
  if (detail.queue.length === 0) return null;
  return (
    <section className="panel" aria-label="Send queue">
      <h3>Send queue</h3>
      <ul>{detail.queue.map((entry) => <li key={entry.submission_id}><span className="mono">{entry.submission_id}</span> {entry.state}{entry.delivery !== null ? ` · ${entry.delivery}` : ''}{entry.title !== null ? ` · ${entry.title}` : ''}</li>)}</ul>
    </section>
  );
}

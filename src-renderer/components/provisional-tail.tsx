// The tail of a big session shown while its WAL is still read from the start (SessionTail): its last records or
// timeline rows, found from the end of the file, scrolled to the end as a live log is, under a banner that says
// they are not verified yet and how far the read has got. Rows are text; nothing here can be acted on. The
// real list replaces it when the read ends, following its end, so the same last rows stay in view.
import { useLayoutEffect, useRef } from 'react';
import type { SessionTail, TailRecordRow } from '../../src-shared/ipc.js';
import { formatBytes } from '../../src-shared/format.js';
import { TimelineRowView } from './timeline-row.js';

export function ProvisionalTail({ tail, list }: { tail: SessionTail; list: 'timeline' | 'records' }) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = list === 'records' ? tail.records : tail.timeline;
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element !== null) element.scrollTop = element.scrollHeight;
  }, [rows.length, list]);
  return (
    <div className="provisional-tail" data-testid="provisional-tail" data-list={list}>
      <div className="banner banner-warn" role="status" data-testid="provisional-banner">
        <strong>The start of this WAL is still being read: {formatBytes(tail.head_bytes_read)} of {formatBytes(tail.total_bytes)}</strong>
        {' '}<progress max={tail.total_bytes} value={tail.head_bytes_read} aria-label="Reading the WAL from its start" />
        <div>These last {list === 'records' ? 'records' : 'rows'} are not yet verified in sequence; no action is offered until the read ends.</div>
        <div className="muted" data-testid="provisional-note">{tail.note}</div>
        {tail.torn_tail !== null && <div className="muted" data-testid="provisional-torn">{tail.torn_tail.bytes} bytes at offset {tail.torn_tail.offset} hold no whole frame (a partial last frame, it seems).</div>}
      </div>
      <div className="provisional-rows" ref={scroller} role="list" aria-label={`last ${list}, provisional`}>
        {rows.length === 0 && <p className="muted">Nothing to show from the end yet.</p>}
        {list === 'records'
          ? tail.records.map((row) => <ProvisionalRecord key={row.offset} row={row} />)
          : tail.timeline.map((row, index) => (
              <div key={index} className="row-inner provisional" role="listitem" data-testid="provisional-timeline-row" data-seq={row.seqs[0]}>
                <TimelineRowView row={row} />
              </div>
            ))}
      </div>
    </div>
  );
}

function ProvisionalRecord({ row }: { row: TailRecordRow }) {
  return (
    <div className="row-inner provisional" role="listitem" data-testid="provisional-records-row" data-seq={row.seq}>
      <div className="record-line mono">
        <span>{row.offset}</span><span>seq {row.seq}</span><span>v{row.ver}</span><span>f{row.fence}</span><strong>{row.type}</strong><span className="muted">{row.features.join(',')}</span><span className="muted">{row.digest_algorithm}</span>
      </div>
    </div>
  );
}

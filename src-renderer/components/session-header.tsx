// A session's header: its name (and host in a fleet), its status word (a torn tail beside it), read-only, the
// support report's and the bundle's export, "Compare with…" (compare-picker.tsx), why the status (a refusal's is
// the banner's: said once), its identity and tokens, and its walscope:// link (share-line.tsx).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SessionDetail, SessionTail } from '../../src-shared/ipc.js';
import { reportHtml } from '../../src-shared/report-html.js';
import { isRefusedStatus } from '../../src-shared/status.js';
import { queries } from '../queries.js';
import { StatusChip, TornTailChip } from './chips.js';
import { tokenText } from './waterfall.js';
import { costText } from '../../src-shared/format.js';
import { CompareWith } from './compare-picker.js';
import { ExportBundle, SessionLinkLine, SESSION_PLACE, type LinkPlace } from './share-line.js';

export function SessionHeader({ detail, tail, place = SESSION_PLACE }: { detail: SessionDetail; tail: SessionTail | null; place?: LinkPlace }) {
  const { summary } = detail;
  const key = summary.key;
  const workspace = useQuery(queries.workspace()).data;
  return (
    <header className="session-head">
      <div className="head-line">
        <h2 className="mono" title={key}>{summary.host === undefined ? key : <><span className="badge" data-testid="session-host">{summary.host}</span> {summary.session_id}</>}</h2>
        <StatusChip value={summary.status} title={summary.status_detail} finishReason={summary.finish_reason} />
        {summary.torn_tail !== null && <TornTailChip tail={summary.torn_tail} />}
        {detail.read_only && <span className="badge" data-testid="read-only" title="Nothing is written: an export, or a path opened from a walscope:// link">read-only</span>}
        <ExportReport sessionKey={key} />
        <CompareWith sessionKey={key} lastSeq={summary.last_seq} reading={summary.status === 'loading'} />
        <ExportBundle sessionKey={key} />
      </div>
      {!isRefusedStatus(summary.status) && (
        <div className="head-line">
          <span className="muted head-text" data-testid="status-detail" title={summary.status_detail}>{summary.status_detail}</span>
        </div>
      )}
      <div className="head-line">
        <span className="muted mono head-meta">wal_id {detail.wal_id ?? '—'} · last seq <span data-testid="last-seq">{summary.last_seq}</span>{summary.status === 'loading' && <TailEnd tail={tail} />}</span>
      </div>
      <div className="head-line">
        <span className="muted head-meta" data-testid="session-cost" title={`Priced by the price table ${detail.cost.table}`}>cost: {costText(detail.cost)}{detail.cost.usd === null ? '' : ` (price table ${detail.cost.table})`}</span>
        <span className="muted head-meta" data-testid="session-tokens">tokens: {tokenText(detail.tokens)}</span>
      </div>
      {workspace !== undefined && (
        <div className="head-line" data-testid="share-line">
          <SessionLinkLine path={workspace.path} sessionKey={key} place={place} />
        </div>
      )}
    </header>
  );
}

/** While the WAL is read from its start, its last seq so far is the head's: the end found from the end is said
 *  beside it, as unverified. */
function TailEnd({ tail }: { tail: SessionTail | null }) {
  const last = tail?.records.at(-1);
  return last === undefined ? null : <span data-testid="tail-last-seq"> (read so far) · at the end: seq {last.seq}, not yet verified</span>;
}

/** Saves the support report as one self-contained HTML file, through the browser's download (never beside
 *  the WAL: the app writes nothing into a workspace). */
function ExportReport({ sessionKey }: { sessionKey: string }) {
  const client = useQueryClient();
  const [state, setState] = useState<'idle' | 'busy' | string>('idle');
  const save = async () => {
    setState('busy');
    try {
      const report = await client.fetchQuery(queries.report(sessionKey));
      const url = URL.createObjectURL(new Blob([reportHtml(report)], { type: 'text/html' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `${sessionKey.replace(/[^A-Za-z0-9._-]/g, '_')}-report.html`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState('idle');
    } catch (error) {
      setState(`report failed: ${(error as Error).message}`);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void save()} disabled={state === 'busy'} data-testid="export-report">Export report</button>
      {state !== 'idle' && state !== 'busy' && <span className="error">{state}</span>}
    </>
  );
}

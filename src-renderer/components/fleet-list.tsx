// Every session of every host of a fleet, a page at a time (a fleet holds 100,000): filter by host and by
// status, "Needs attention anywhere" (the attention queue of every host) in one click. A host that is offline says
// so, and its sessions are marked stale (their last known summary). The service's fleet events refetch the pages on
// screen. Two sessions ticked, of any hosts, are compared ("Compare").
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { ALL_SESSIONS, type HostView, type SessionFilter, type SessionPage, type SessionSummary } from '../../src-shared/ipc.js';
import { LISTED_STATUSES, STATUS_LABEL, type ListedStatus } from '../../src-shared/status.js';
import { useQuery } from '@tanstack/react-query';
import { PAGE_ROWS, queries } from '../queries.js';
import { StatusChip, TornTailChip } from './chips.js';
import { formatAgo, formatBytes } from './format.js';
import { CompareTicked, useTicks, type Ticks } from './compare-ticks.js';

const ROW_PX = 52;

export function FleetList(props: { selected: string | null; onSelect: (key: string) => void; onHosts: (hosts: HostView[]) => void }) {
  const [filter, setFilter] = useState<SessionFilter>(ALL_SESSIONS);
  const [center, setCenter] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);
  const page = Math.floor(center / PAGE_ROWS);
  const current = useQuery(queries.sessionPage(filter, page));
  const next = useQuery(queries.sessionPage(filter, page + 1));
  const first = current.data;
  const total = first?.total ?? 0;
  const hosts = first?.hosts ?? [];
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: 8,
    onChange: (instance) => setCenter(instance.getVirtualItems()[0]?.index ?? 0),
  });
  const ticks = useTicks(null);
  const { onHosts } = props;
  useEffect(() => {
    if (first !== undefined) onHosts(first.hosts);
  }, [first, onHosts]);
  const row = (index: number): SessionSummary | undefined => rowOf([current.data, next.data], index);
  const change = (update: Partial<SessionFilter>) => {
    setFilter((previous) => ({ ...previous, ...update }));
    setCenter(0);
    scroller.current?.scrollTo({ top: 0 });
  };
  const now_ms = Date.now();
  return (
    <nav className="session-list" aria-label="Fleet sessions">
      <FleetTools filter={filter} hosts={hosts} onChange={change} />
      <div className="session-scroll" ref={scroller}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const session = row(item.index);
            if (session === undefined) return <div key={item.index} className="session-slot" style={{ top: item.start, height: ROW_PX }}><div className="session-row muted">…</div></div>;
            return <FleetRow key={session.key} session={session} top={item.start} selected={session.key === props.selected} now_ms={now_ms} onSelect={props.onSelect} ticks={ticks} />;
          })}
        </div>
      </div>
      <CompareTicked ticks={ticks} />
      <div className="muted list-count" data-testid="fleet-count">
        {total.toLocaleString()} sessions{filter.host === null ? ` on ${hosts.length} hosts` : ` on ${filter.host}`}{first?.complete === false ? ' (still loading)' : ''}
      </div>
    </nav>
  );
}

/** The fleet's filters: the attention queue of every host in one click, a host, a status. */
function FleetTools({ filter, hosts, onChange }: { filter: SessionFilter; hosts: readonly HostView[]; onChange: (update: Partial<SessionFilter>) => void }) {
  const anywhere = filter.attention && filter.status === null && filter.host === null;
  return (
    <div className="list-tools">
      <button type="button" data-testid="needs-attention-anywhere" aria-pressed={anywhere} onClick={() => onChange({ status: null, host: null, attention: !anywhere })}>
        Needs attention anywhere
      </button>
      <select value={filter.host ?? ''} onChange={(event) => onChange({ host: event.target.value === '' ? null : event.target.value })} aria-label="Filter by host" data-testid="host-filter">
        <option value="">all hosts</option>
        {hosts.map((host) => <option key={host.host} value={host.host}>{host.host}{host.online ? '' : ' (offline)'}</option>)}
      </select>
      <select value={filter.status ?? ''} onChange={(event) => onChange({ status: event.target.value === '' ? null : (event.target.value as ListedStatus) })} aria-label="Filter by status" data-testid="status-filter">
        <option value="">all statuses</option>
        {LISTED_STATUSES.map((value) => <option key={value} value={value}>{STATUS_LABEL[value]}</option>)}
      </select>
    </div>
  );
}

function FleetRow({ session, top, selected, now_ms, onSelect, ticks }: { session: SessionSummary; top: number; selected: boolean; now_ms: number; onSelect: (key: string) => void; ticks: Ticks }) {
  return (
    <div className="session-slot" style={{ top, height: ROW_PX }}>
      <button
        type="button"
        className={`session-row${selected ? ' selected' : ''}${session.stale === undefined ? '' : ' stale'}`}
        onClick={() => onSelect(session.key)}
        data-testid="session-row"
        data-session={session.session_id ?? session.key}
        data-host={session.host}
        data-status={session.status}
        data-stale={session.stale !== undefined}
        aria-current={selected}
        title={session.stale}
      >
        <span className="session-id"><span className="badge" data-testid="row-host">{session.host}</span> {session.session_id}</span>
        <span className="session-chips">
          {session.torn_tail !== null && <TornTailChip tail={session.torn_tail} />}
          <StatusChip value={session.status} title={session.status_detail} finishReason={session.finish_reason} />
        </span>
        <span className="session-meta muted">
          {session.attention !== null && <span className="warn-text" data-testid="row-attention" title={session.attention.message}>needs attention · </span>}
          {session.stale !== undefined && <span className="warn-text" data-testid="row-stale">offline · last known · </span>}
          {formatAgo(session.last_activity_ms, now_ms)} · {session.episodes} ep · {session.records.toLocaleString()} rec · {formatBytes(session.size_bytes)}
        </span>
      </button>
      {ticks.box(session.key, `${session.host ?? ''} ${session.session_id ?? session.key}`)}
    </div>
  );
}

function rowOf(pages: (SessionPage | undefined)[], index: number): SessionSummary | undefined {
  for (const data of pages) {
    if (data !== undefined && index >= data.start && index < data.start + data.rows.length) return data.rows[index - data.start];
  }
  return undefined;
}

/** The session pane before a session is picked, in a fleet: every host, online or not and why. */
export function FleetOverview({ hosts }: { hosts: HostView[] }) {
  const now_ms = Date.now();
  return (
    <div className="overview" data-testid="fleet-overview">
      <p>Pick a session. {hosts.filter((host) => host.online).length} of {hosts.length} hosts online.</p>
      <table>
        <tbody>
          {hosts.map((host) => (
            <tr key={host.host} data-testid="host-row" data-host={host.host} data-online={host.online}>
              <td><strong>{host.host}</strong></td>
              <td className={host.online ? '' : 'warn-text'}>{host.online ? 'online' : 'offline'}</td>
              <td className="count">{host.sessions}</td>
              <td className="muted">{host.why} · beat {formatAgo(host.beat_ms, now_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

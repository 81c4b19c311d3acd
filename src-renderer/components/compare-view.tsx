// The compare view (docs/compare.md, "In the app"): two sessions side by side, as `walscope diff` compares them —
// each side named, with how far it can be trusted; the first divergence in one sentence on top and its step opened;
// the steps aligned row by row (compare-rows.ts), identical runs folded into "N identical steps" rows that expand;
// `n` / `p` to the next / previous difference. The address names the comparison (`#compare=A&with=B&episode=N`,
// location.ts). The rows are windowed, and each step's detail comes with its page of the comparison.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ComparePage, CompareSideJson, StepComparison } from '../../src-shared/compare.js';
import type { SessionSummary } from '../../src-shared/ipc.js';
import { terminalPlain } from '../../src-shared/terminal-text.js';
import { TRUST_WORDS } from '../../src-shared/words.js';
import { openComparison, writeCompareLink, type CompareLink } from '../location.js';
import { COMPARE_VIEW_PAGE_STEPS, keys, queries } from '../queries.js';
import { StatusChip } from './chips.js';
import { compareRows, differencePlace, divergenceRow, foldRowId, nextDifference, stepRowId, type CompareRow, type CompareRowId } from './compare-rows.js';
import { DifferenceView, differenceKinds, StepDifferences, StepSide } from './compare-step.js';

export function CompareView({ link, summaries, onClose }: { link: CompareLink; summaries: ReadonlyMap<string, SessionSummary>; onClose: () => void }) {
  const client = useQueryClient();
  const [episode, setEpisode] = useState(link.episode);
  const head = useQuery(queries.comparePage(link.a, link.b, episode, 0));
  const [episodes, setEpisodes] = useState<number[]>([]);
  useEffect(() => {
    writeCompareLink({ ...link, episode });
  }, [link, episode]);
  // The episodes of the whole comparison, kept while one of them is shown alone.
  const all_episodes = head.data !== undefined && episode === null ? head.data.episodes : null;
  useEffect(() => {
    if (all_episodes !== null) setEpisodes(all_episodes);
  }, [all_episodes]);
  const again = () => void client.invalidateQueries({ queryKey: keys.comparison(link.a, link.b, episode) });
  return (
    <div className="compare-view" data-testid="compare-view" data-a={link.a} data-b={link.b}>
      <header className="session-head compare-head">
        <div className="head-line">
          <h2>Compare</h2>
          <button type="button" onClick={onClose} data-testid="compare-close" title={`Back to ${link.a}`}>Close</button>
          <button type="button" onClick={() => openComparison({ a: link.b, b: link.a, episode })} data-testid="compare-swap">Swap A and B</button>
          <button type="button" onClick={again} disabled={head.isFetching} data-testid="compare-again" title="Read both WALs again: a live session may have grown">Compare again</button>
          <label className="compare-episode-pick">episodes{' '}
            <select value={episode ?? ''} onChange={(event) => setEpisode(event.target.value === '' ? null : Number(event.target.value))} data-testid="compare-episode-select">
              <option value="">all</option>
              {(episodes.length > 0 ? episodes : episode === null ? [] : [episode]).map((number) => <option key={number} value={number}>episode {number} only</option>)}
            </select>
          </label>
        </div>
        <SideLine label="A" name={link.a} side={head.data?.a} summary={summaries.get(link.a)} />
        <SideLine label="B" name={link.b} side={head.data?.b} summary={summaries.get(link.b)} />
      </header>
      {head.data === undefined ? (
        <p className={head.error === null ? 'muted empty' : 'error empty'} role="status" data-testid="compare-unavailable">{head.error?.message ?? 'Comparing… (both WALs are read whole, read-only)'}</p>
      ) : (
        <CompareBody key={JSON.stringify([link.a, link.b, episode])} link={{ ...link, episode }} head={head.data} />
      )}
    </div>
  );
}

/** A side: its key, its status as the list says it, its lineage, and how far it is trusted (a refused side says
 *  where its trusted part ends). */
function SideLine({ label, name, side, summary }: { label: string; name: string; side: CompareSideJson | undefined; summary: SessionSummary | undefined }) {
  const warn = side !== undefined && side.trust !== 'whole';
  return (
    <div className="head-line compare-side-line" data-testid={`compare-head-${label.toLowerCase()}`}>
      <span className="compare-side-label">{label}</span>
      <span className="mono compare-side-name" title={name}>{name}</span>
      {summary !== undefined && <StatusChip value={summary.status} title={summary.status_detail} finishReason={summary.finish_reason} />}
      {side !== undefined && <span className="muted mono head-meta">wal_id {side.wal_id ?? '—'}{side.member === null ? '' : ' · sealed lineage'} · to seq {side.last_seq}</span>}
      {side !== undefined && <span className={`compare-trust${warn ? ' warn-text' : ' muted'}`} data-testid={`compare-trust-${label.toLowerCase()}`} data-trust={side.trust} title={trustText(side)}>{trustText(side)}</span>}
    </div>
  );
}

/** How far a side is trusted, in the app's words or its own sentence (a refusal's message is the WAL's text). */
function trustText(side: CompareSideJson): string {
  return side.trust_words === null ? TRUST_WORDS[side.trust] : terminalPlain(side.trust_words);
}

const ROW_ESTIMATE_PX: Record<CompareRow['kind'], number> = { episode: 30, fold: 32, step: 64, difference: 40 };

function CompareBody({ link, head }: { link: CompareLink; head: ComparePage }) {
  const outline = useMemo(() => head.outline ?? [], [head.outline]);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());
  const rows = useMemo(() => compareRows(outline, head.episode_differences, expanded), [outline, head.episode_differences, expanded]);
  const [current, setCurrent] = useState<CompareRowId | null>(() => divergenceRow(rows, outline, head.episode_differences, head.first_divergence));
  const [open, setOpen] = useState<ReadonlySet<CompareRowId>>(() => new Set(current === null ? [] : [current]));
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: (index) => ROW_ESTIMATE_PX[rows[index]!.kind], overscan: 6, getItemKey: (index) => rows[index]!.id });
  const go = useCallback((direction: 1 | -1) => {
    const next = nextDifference(rows, current, direction);
    if (next === null) return;
    setCurrent(next);
    setOpen((before) => new Set([...before, next]));
  }, [rows, current]);
  // The current difference is brought into view when it changes, and once at first (the first divergence).
  useEffect(() => {
    const index = rows.findIndex((row) => row.id === current);
    if (index >= 0) virtualizer.scrollToIndex(index, { align: 'start' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the current row changes, not as rows are measured
  }, [current]);
  useCompareKeys(go);

  const toggleFold = (from: number) => setExpanded((before) => {
    const next = new Set(before);
    if (!next.delete(from)) next.add(from);
    return next;
  });
  const toggleOpen = (id: CompareRowId) => {
    setCurrent(id);
    setOpen((before) => {
      const next = new Set(before);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  };
  return (
    <>
      <CompareSummary head={head} rows={rows} current={current} go={go} />
      <div className="compare-grid compare-columns" aria-hidden="true">
        <span />
        <span className="mono" title={link.a}>A · {link.a}</span>
        <span className="mono" title={link.b}>B · {link.b}</span>
      </div>
      <div className="compare-rows" ref={scroller} data-testid="compare-rows">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            return (
              <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="compare-row-slot" style={{ transform: `translateY(${item.start}px)` }}>
                <CompareRowView row={row} link={link} head={head} current={row.id === current} open={open.has(row.id)} onToggleFold={toggleFold} onToggleOpen={toggleOpen} />
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}

/** The first divergence in one sentence (or that there is none), what was compared, and the walk from difference
 *  to difference. */
function CompareSummary({ head, rows, current, go }: { head: ComparePage; rows: readonly CompareRow[]; current: CompareRowId | null; go: (direction: 1 | -1) => void }) {
  const place = differencePlace(rows, current);
  const scope = `${head.steps_compared.toLocaleString()} step${head.steps_compared === 1 ? '' : 's'} of ${head.episodes.length} episode${head.episodes.length === 1 ? '' : 's'} compared`;
  return (
    <>
      <p className={`banner ${head.first_divergence === null ? 'banner-info' : 'banner-warn'} compare-divergence`} role="status" data-testid="compare-divergence">
        {head.first_divergence === null ? <>No difference: {scope}, all the same.</> : <><strong>First divergence:</strong> <span data-testid="divergence-sentence">{terminalPlain(head.first_divergence.sentence)}</span></>}
      </p>
      <div className="compare-tools">
        <span className="muted" data-testid="compare-counts">{scope}{head.first_divergence === null ? '' : `, ${head.steps_differing.toLocaleString()} ${head.steps_differing === 1 ? 'differs' : 'differ'}`}</span>
        <button type="button" onClick={() => go(-1)} disabled={nextDifference(rows, current, -1) === null} data-testid="compare-previous" title="Previous difference (p)">Previous difference</button>
        <button type="button" onClick={() => go(1)} disabled={nextDifference(rows, current, 1) === null} data-testid="compare-next" title="Next difference (n)">Next difference</button>
        <span className="muted" data-testid="compare-place">{place.of === 0 ? 'no difference' : `difference ${place.at === 0 ? '–' : place.at} of ${place.of}`} · n / p</span>
        {head.steps_left_out > 0 && <span className="warn-text" data-testid="compare-left-out">{head.steps_left_out.toLocaleString()} more steps were compared and are not listed (the first {head.listed.toLocaleString()} are)</span>}
      </div>
    </>
  );
}

/** `n` / `p`: the next / previous difference, anywhere but in a text field. */
function useCompareKeys(go: (direction: 1 | -1) => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target !== null && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) return;
      if (event.ctrlKey || event.metaKey || event.altKey || (event.key !== 'n' && event.key !== 'p')) return;
      event.preventDefault();
      go(event.key === 'n' ? 1 : -1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go]);
}

function CompareRowView({ row, link, head, current, open, onToggleFold, onToggleOpen }: {
  row: CompareRow;
  link: CompareLink;
  head: ComparePage;
  current: boolean;
  open: boolean;
  onToggleFold: (from: number) => void;
  onToggleOpen: (id: CompareRowId) => void;
}) {
  switch (row.kind) {
    case 'episode':
      return <div className="compare-episode" data-testid="compare-episode" data-episode={row.episode}><strong>Episode {row.episode}</strong></div>;
    case 'fold': {
      const count = row.to - row.from + 1;
      return (
        <button type="button" className="compare-fold" aria-expanded={row.expanded} onClick={() => onToggleFold(row.from)} data-testid="compare-fold" data-fold={foldRowId(row.from)} data-steps={count}>
          <span aria-hidden="true">{row.expanded ? '▾' : '▸'}</span> {count} identical steps <span className="muted">(steps {row.first_step_id}–{row.last_step_id}){row.expanded ? ' · fold them' : ''}</span>
        </button>
      );
    }
    case 'difference': {
      const { episode, difference } = head.episode_differences[row.index]!;
      return (
        <div className={`compare-episode-difference${current ? ' current' : ''}`} data-testid="compare-episode-difference" data-kind={difference.kind} data-current={current}>
          <span className="muted">{episode === null ? 'the session' : `episode ${episode}`}:</span>
          <DifferenceView difference={difference} />
        </div>
      );
    }
    case 'step':
      return <StepRowView row={row} link={link} head={head} current={current} open={open} onToggle={() => onToggleOpen(row.id)} />;
  }
}

function StepRowView({ row, link, head, current, open, onToggle }: { row: Extract<CompareRow, { kind: 'step' }>; link: CompareLink; head: ComparePage; current: boolean; open: boolean; onToggle: () => void }) {
  const page = Math.floor(row.at / COMPARE_VIEW_PAGE_STEPS);
  const answer = useQuery(queries.comparePage(link.a, link.b, link.episode, page));
  const data = answer.data;
  // A page of another comparison than the head's (a WAL grew between them) is not laid beside it.
  const changed = data !== undefined && (data.a.valid_bytes !== head.a.valid_bytes || data.b.valid_bytes !== head.b.valid_bytes);
  const step: StepComparison | undefined = data === undefined || changed ? undefined : data.steps[row.at - data.start];
  const kinds = step === undefined || row.identical ? [] : differenceKinds(step);
  return (
    <div className={`compare-step${row.identical ? ' identical' : ''}${current ? ' current' : ''}`} data-testid="compare-step" data-row={stepRowId(row.at)} data-episode={row.episode} data-step={row.step_id} data-identical={row.identical} data-current={current} data-open={open}>
      <div className="compare-grid">
        <button type="button" className="compare-step-head" aria-expanded={open} onClick={onToggle} data-testid="compare-step-toggle">
          <span className="role">step {row.step_id}</span>
          {row.identical ? <span className="muted">identical</span> : kinds.map((kind) => <span key={kind} className="badge warn">{kind}</span>)}
        </button>
        <StepSide step={step} side="a" />
        <StepSide step={step} side="b" />
      </div>
      {answer.error !== null && <p className="error">{answer.error.message}</p>}
      {changed && <p className="warn-text">The sessions changed since this comparison was made: Compare again.</p>}
      {open && step !== undefined && (step.identical ? <p className="muted compare-details">The same in A and B: the request, the answer and every call.</p> : <StepDifferences step={step} />)}
    </div>
  );
}


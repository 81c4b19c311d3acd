// The Context view: one step's request exactly as the model saw it (wal-format §6). The span a compaction view
// replaced is collapsed into the view's replacement and marked with what it replaced; the step's notices and
// context-ceiling records are shown in words; the context lane shows the prompt's size at each step and
// where views applied. Every WAL value is rendered as a React text node.
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactElement } from 'react';
import { largest } from '../../src-shared/arrays.js';
import type { ContextLaneStep, ContextMessage, StepContext } from '../../src-shared/ipc.js';
import type { ViewInRequest } from '../../src-shared/replay.js';
import { queries } from '../queries.js';
import { formatBytes } from './format.js';
import { Blocks } from './blocks.js';

/** `initial`: the step to open first (from the timeline); null opens the last episode's first step. `episodes`:
 *  how many the session has (its detail's). */
export function ContextView({ sessionKey, episodes, initial }: { sessionKey: string; episodes: number; initial: { episode: number; step_id: number } | null }) {
  const [pick, setPick] = useState<{ episode: number | null; step_id: number | null }>(initial ?? { episode: null, step_id: null });
  const context = useQuery(queries.context(sessionKey, pick.episode, pick.step_id, episodes));
  const data = context.data;
  if (data === undefined) return <div className="context-view muted">{context.error?.message ?? 'rendering…'}</div>;
  if (data.episode === null) return <div className="context-view muted" data-testid="context-view">This session has no episode yet.</div>;
  return (
    <div className="context-view" data-testid="context-view" data-episode={data.episode} data-step={data.step_id ?? ''}>
      <div className="context-pick">
        <label>
          Episode{' '}
          <select value={data.episode} onChange={(event) => setPick({ episode: Number(event.target.value), step_id: null })} data-testid="context-episode">
            {data.episodes.map((entry) => <option key={entry.episode} value={entry.episode}>{entry.episode} · run {entry.run_id ?? '?'}</option>)}
          </select>
        </label>
        <span className="muted">Step</span>
        {data.steps.map((step_id) => (
          <button key={step_id} type="button" aria-pressed={step_id === data.step_id} onClick={() => setPick({ episode: data.episode, step_id })} data-testid="context-step">
            {step_id}
          </button>
        ))}
      </div>
      <ContextLane lane={data.lane} selected={data.step_id} onPick={(step_id) => setPick({ episode: data.episode, step_id })} />
      {data.step_id === null ? <p className="muted">This episode has no step yet.</p> : <StepRequestView data={data} />}
    </div>
  );
}

function StepRequestView({ data }: { data: StepContext }) {
  const total = data.messages.length + data.messages_left_out;
  return (
    <div className="context-body">
      <ViewSummary view={data.view} step_id={data.step_id!} />
      {data.problems.map((problem, index) => (
        <div key={index} className="banner banner-error" data-testid="context-problem">
          <strong>{problem.kind === 'view_not_assembled' ? 'The view no longer assembles' : 'Not provider-valid'}</strong>
          {problem.cause !== null && <span className="muted"> ({problem.cause.replaceAll('_', ' ')})</span>}: {problem.message}
        </div>
      ))}
      <StepRecords data={data} />
      {data.problems.some((problem) => problem.kind === 'view_not_assembled') ? (
        <p className="muted">Request of step {data.step_id}: not rendered. A request is never assembled some other way; the runtime refused this step.</p>
      ) : (
        <>
          <h4>
            Request of step {data.step_id}: {total.toLocaleString()} message{total === 1 ? '' : 's'}, {formatBytes(data.size_bytes)}
            {data.messages_left_out > 0 && <span className="muted"> (shown: its first {data.messages_left_out_at} and its last {data.messages.length - data.messages_left_out_at})</span>}
          </h4>
          <MessageList messages={data.messages} view={data.view} left_out={data.messages_left_out} left_out_at={data.messages_left_out_at} />
        </>
      )}
    </div>
  );
}

function ViewSummary({ view, step_id }: { view: ViewInRequest | null; step_id: number }) {
  if (view === null) return <p className="context-view-info muted" data-testid="context-view-info">No compaction view applies at this step: every turn is sent as recorded.</p>;
  const where = view.step_id === step_id ? 'applied at this step' : `applied at step ${view.step_id}, still in force`;
  return (
    <p className="context-view-info" data-testid="context-view-info">
      View <strong className="mono">{view.view_id}</strong> v{view.version} · {view.applied.replaceAll('_', ' ')} · {where} (seq {view.seq}) · replaces steps 1–{view.through_step}:{' '}
      {view.replaced_messages} message{view.replaced_messages === 1 ? '' : 's'}, {formatBytes(view.replaced_bytes)} → {formatBytes(view.replacement_bytes)}
    </p>
  );
}

/** Notices and ceiling records of the step, in words. */
function StepRecords({ data }: { data: StepContext }) {
  const { wait, decision } = data.ceiling;
  if (data.notices.length === 0 && wait === null && decision === null) return null;
  return (
    <section className="panel context-records" aria-label="Step records" data-testid="context-records">
      {data.notices.map((notice) => (
        <p key={notice.seq} data-testid="context-notice">
          <span className="badge label">compaction notice #{notice.notice_seq ?? '?'}</span> <span className="muted">seq {notice.seq}</span>
          {notice.headers.map(([key, value]) => <span key={key} className="header-pair"> {key}: <span className="mono">{value}</span></span>)}
        </p>
      ))}
      {wait !== null && (
        <p data-testid="context-ceiling-wait">
          <span className="badge label">context-ceiling wait</span> <span className="muted">seq {wait.seq}</span> until {wait.deadline_ms === null ? '—' : deadlineText(wait.deadline_ms)}
        </p>
      )}
      {decision !== null && (
        <p data-testid="context-ceiling-decision" data-outcome={decision.permitted ? 'permitted' : 'refused'}>
          <span className={`badge label${decision.permitted ? '' : ' warn'}`}>context-ceiling decision</span> <span className="muted">seq {decision.seq}</span>{' '}
          {decision.permitted
            ? 'permitted: the request was allowed to be sent'
            : `refused: size ${decision.size ?? '?'} tokens over the window of ${decision.window ?? '?'} (${decision.cause ?? 'no cause recorded'}); the run ended here`}
        </p>
      )}
    </section>
  );
}

function deadlineText(ms: number): string {
  // A Date holds ±8.64e15 ms; a hostile WAL may hold any number.
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

/** The request's messages in order, this step's view's replacement collapsed into one marked block (an
 *  earlier run's view shows as that run's messages, labelled with it). */
function MessageList({ messages, view, left_out, left_out_at }: { messages: ContextMessage[]; view: ViewInRequest | null; left_out: number; left_out_at: number }) {
  const items: ReactElement[] = [];
  const ofView = (message: ContextMessage | undefined) => view !== null && message?.origin.kind === 'view' && message.origin.seq === view.seq;
  for (let index = 0; index < messages.length; index++) {
    if (left_out > 0 && index === left_out_at) {
      items.push(<li key="left-out" className="context-left-out muted" data-testid="context-left-out">… {left_out.toLocaleString()} message{left_out === 1 ? '' : 's'} not shown here …</li>);
    }
    const message = messages[index]!;
    if (!ofView(message) || view === null) {
      items.push(<MessageItem key={index} message={message} />);
      continue;
    }
    const block: ContextMessage[] = [];
    // A span of the view ends at the gap of the messages left out: the gap is shown where it is.
    while (ofView(messages[index]) && !(left_out > 0 && index === left_out_at && block.length > 0)) block.push(messages[index++]!);
    index -= 1;
    items.push(
      <li key={`view-${index}`} className="compacted" data-testid="compacted-span" data-through-step={view.through_step}>
        <div className="compacted-head">
          Compacted: steps 1–{view.through_step} ({view.replaced_messages} message{view.replaced_messages === 1 ? '' : 's'}, {formatBytes(view.replaced_bytes)}) replaced by view{' '}
          <span className="mono">{view.view_id}</span> v{view.version} ({formatBytes(view.replacement_bytes)})
        </div>
        <ol className="context-messages">{block.map((entry, position) => <MessageItem key={position} message={entry} />)}</ol>
      </li>,
    );
  }
  return <ol className="context-messages" data-testid="context-messages">{items}</ol>;
}

function MessageItem({ message }: { message: ContextMessage }) {
  return (
    <li className={`context-message origin-${message.origin.kind}`} data-testid="context-message" data-origin={message.label}>
      <div className="context-message-head"><span className="role">{message.role}</span> <span className="badge label">{message.label}</span></div>
      <Blocks blocks={message.blocks} />
    </li>
  );
}

/** The context lane: one bar per step, its height the prompt's size; a marker where a view applied. */
function ContextLane({ lane, selected, onPick }: { lane: ContextLaneStep[]; selected: number | null; onPick: (step_id: number) => void }) {
  const tallest = Math.max(1, largest(lane.map((step) => step.size_bytes ?? 0)) ?? 0);
  return (
    <div className="context-lane" role="group" aria-label="Context lane: prompt size per step" data-testid="context-lane">
      {lane.map((step) => {
        // A step that could not be rendered has no size: a short bar, marked refused.
        const height = step.size_bytes === null ? 10 : Math.max(4, Math.round((step.size_bytes / tallest) * 100));
        const view = step.view === null ? 'no view' : `view ${step.view.view_id} v${step.view.version}${step.view.applied_here ? ' applied here' : ''}`;
        const title = `step ${step.step_id}: ${step.size_bytes === null ? 'not rendered' : formatBytes(step.size_bytes)} · ${view}${step.refused ? ' · refused' : ''}`;
        return (
          <button key={step.step_id} type="button" className={`lane-step${step.step_id === selected ? ' selected' : ''}${step.refused ? ' refused' : ''}`} title={title} aria-label={title}
            onClick={() => onPick(step.step_id)} data-testid="lane-step" data-step={step.step_id} data-size={step.size_bytes ?? ''} data-view-applied={step.view?.applied_here === true ? 'yes' : 'no'}>
            <span className="lane-marker">{step.view?.applied_here === true ? '◆' : ''}{step.refused ? '✕' : ''}</span>
            <span className="lane-bar" style={{ height: `${height}%` }} />
            <span className="lane-label">{step.step_id}</span>
          </button>
        );
      })}
    </div>
  );
}

// Detail panes: the selected timeline element (with jumps to its records), and one record (every frame field,
// the payload tree, raw hex, and the jump back to the timeline).
import type { BatchHead, RecordDetail, TimelineRow } from '../../src-shared/ipc.js';
import { CALL_PLAN_WORDS, CLASS_WORDS } from '../../src-shared/words.js';
import { Arguments, Blocks } from './blocks.js';
import { ClassChip } from './chips.js';
import { formatUsd } from '../../src-shared/format.js';
import { formatTime } from './format.js';
import { HexView } from './hex-view.js';
import { TextBlock } from './output-text.js';
import { PayloadTree } from './payload-tree.js';
import { RecordedOutput } from './terminal-output.js';

export function TimelineDetail({ session_key, row, onJump, onContext }: { session_key: string; row: TimelineRow; onJump: (seq: number) => void; onContext: (episode: number, step_id: number) => void }) {
  return (
    <div className="detail" data-testid="timeline-detail">
      <h4>{row.kind}</h4>
      {row.kind === 'call' && (
        <>
          <p><ClassChip value={row.call.class} /> <span className="mono">{row.call.tool_call_id}</span> {row.call.name} · {CALL_PLAN_WORDS[row.call.plan].label}{row.call.safe ? ' · declared safe to repeat' : ''}</p>
          <p data-testid="class-why">{CLASS_WORDS[row.call.class].meaning}</p>
          <p>dispatched at {formatTime(row.call.dispatched_at_ms)} · outcome {row.call.outcome ?? '—'} · reason {row.call.reason ?? '—'}{row.call.is_error ? ' · error' : ''}</p>
          {row.call.held !== null && (
            <p data-testid="held-detail">
              Held: key <span className="mono">{row.call.held.call_key}</span>, module {row.call.held.module}, since <HeldSince ms={row.call.held.held_at_ms} />; successors waiting: {row.call.successors.join(', ') || 'none'}
            </p>
          )}
          {row.batch !== null && <p className="muted" data-testid="call-batch">its batch <span className="mono">{row.batch_id}</span>, of this call alone · {batchWords(row.batch)}</p>}
          <Arguments value={row.call.args} />
          {row.call.output_blocks !== null ? <Blocks blocks={row.call.output_blocks} testid="call-output" /> : row.call.output_seq !== null && <RecordedOutput session_key={session_key} seq={row.call.output_seq} preview={row.call.output} testid="call-output" />}
        </>
      )}
      {row.kind === 'step' && <><Blocks blocks={row.blocks} testid="step-blocks" />{row.usage !== null && <PayloadTree value={row.usage} label="usage" />}{row.cost_usd !== null && <p className="muted" data-testid="step-cost">cost {formatUsd(row.cost_usd)}, by the price table named in the header</p>}</>}
      {row.kind === 'batch' && <p>{batchWords(row)}</p>}
      {(row.kind === 'input' || row.kind === 'steer') && <TextBlock text={row.text} />}
      {(row.kind === 'event' || row.kind === 'note') && <TextBlock text={row.summary} />}
      {row.kind === 'anomaly' && <TextBlock text={row.message} />}
      <div className="actions">
        {(row.kind === 'step' || row.kind === 'note') && row.step_id !== null && (
          <button type="button" onClick={() => onContext(row.episode, row.step_id!)} data-testid="open-context">this step's context</button>
        )}
        {row.seqs.map((seq) => (
          <button key={seq} type="button" onClick={() => onJump(seq)} data-testid="jump-record">record seq {seq}</button>
        ))}
      </div>
    </div>
  );
}

/** A batch in words: how its calls ran, its step, whether it finished and can be committed. */
export function batchWords(batch: BatchHead): string {
  return [batch.sequential ? 'sequential' : 'parallel', `step ${batch.step_id ?? '—'}`, batch.finished ? 'finished' : 'open', ...(batch.committable ? [] : ['not committable']), ...(batch.mixed_crash ? ['mixed crash'] : [])].join(' · ');
}

/** A machine-readable instant beside the local-time text: tests and assistive tools read the ISO form. */
function HeldSince({ ms }: { ms: number | null }) {
  if (ms === null) return <>{formatTime(ms)}</>;
  return <time dateTime={new Date(ms).toISOString()} data-testid="held-since">{formatTime(ms)}</time>;
}

export function RecordDetailView({ record, onBack }: { record: RecordDetail; onBack: (row: number) => void }) {
  return (
    <div className="detail" data-testid="record-detail">
      <h4>{record.type} <span className="muted">seq {record.seq}</span></h4>
      {record.unverified === true && <p className="warn-text" role="note" data-testid="record-unverified">Found after the damage: digest-valid, but unverified by sequence. Shown only; nothing uses it.</p>}
      <dl className="fields">
        <dt>offset</dt><dd>{record.offset}</dd>
        <dt>size</dt><dd>{record.size_bytes} bytes</dd>
        <dt>seq</dt><dd>{record.seq}</dd>
        <dt>ver</dt><dd>{record.ver}</dd>
        <dt>fence</dt><dd>{record.fence}</dd>
        <dt>features</dt><dd>{record.features.join(', ') || 'none'}</dd>
        <dt>digest</dt><dd data-testid="digest-check">{record.digest_algorithm} · {record.digest_ok ? 'verified' : 'MISMATCH'}</dd>
      </dl>
      {record.timeline_row !== null && <button type="button" onClick={() => onBack(record.timeline_row!)} data-testid="jump-timeline">show in timeline</button>}
      <PayloadTree value={record.payload} label="payload" />
      {record.payload_truncated && <p className="muted">payload cut for display</p>}
      <HexView hex={record.hex} base_offset={record.offset} truncated={record.hex_truncated} />
    </div>
  );
}

// The transcript as a conversation: each message with its role and its blocks (blocks.tsx): the words, the
// thinking folded, the tool calls as cards and the results that answer them. A row of the list is the message
// in one line; the detail pane shows it whole. All WAL content is text.
import type { TranscriptRow } from '../../src-shared/ipc.js';
import { Blocks, BlocksInline } from './blocks.js';

/** One message in one line: its role, its words, a chip for each other block. */
export function TranscriptLine({ row }: { row: TranscriptRow }) {
  return (
    <div className={`tl tl-message role-${roleClass(row.role)}`} data-testid="transcript-message" data-role={row.role}>
      <span className="role">{row.role}</span>
      <BlocksInline blocks={row.blocks} />
    </div>
  );
}

/** The selected message whole. */
export function TranscriptMessage({ row }: { row: TranscriptRow }) {
  return (
    <div className="detail transcript-detail" data-testid="transcript-detail">
      <h4>{row.role} <span className="muted">message {row.index}</span></h4>
      <Blocks blocks={row.blocks} />
    </div>
  );
}

function roleClass(role: string): string {
  return /^[a-z_]{1,16}$/.test(role) ? role : 'other';
}

// `walscope retire SESSION_FOLDER --seal|--delete [--dry-run] [--yes] [--json] [--reason TEXT [--operator NAME]]`:
// retires the session's live lineage (wal-format §11): prints exactly what it will write — the archive member,
// the successor's lineage frame, the index — and writes only after an interactive "y" (or --yes), under the
// session's lease. Refused under a live lease and for exports (a WAL file, a folder outside a state root).
import {
  type RetireReason, describe, previewRetire, retireLineage, type RetirePlan, osUser, walPath, tornTailCopyPath,
} from '../engine/index.js';
import { auditProblem } from '../recovery/actions.js';
import { confirm, refuse, sessionOf } from './actions.js';
import { EXIT_OK, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { plural, printable } from './format.js';

export const retireCommand: Command = {
  summary: 'retire a session\'s live lineage into its archive (--seal keeps the bytes, --delete keeps a tombstone)',
  usage: 'walscope retire SESSION_FOLDER --seal|--delete [--dry-run] [--yes] [--json] [--reason TEXT [--operator NAME]]',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      seal: { type: 'boolean' },
      delete: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      yes: { type: 'boolean' },
      json: { type: 'boolean' },
      operator: { type: 'string' },
      reason: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one SESSION_FOLDER');
    if (values.seal === values.delete) throw new UsageError('pass exactly one of --seal (keep the bytes) and --delete (keep a tombstone)');
    // As resume|cancel|seal record theirs: --operator defaults to the OS user, and names nobody without a reason.
    if (values.operator !== undefined && values.reason === undefined) throw new UsageError('--operator needs --reason TEXT: the audit record says who approved it and why');
    const reason: RetireReason = values.seal === true ? 'sealed' : 'deleted';
    const session = sessionOf(positionals[0]!);
    if (typeof session === 'string') return refuse(session);
    const preview = previewRetire(session.root, session.id, reason);
    if (preview.kind === 'index_owed') return completeIndexOnly(session, reason, preview.message, values);
    if (preview.kind !== 'plan') return refuse(`${preview.code}: ${preview.message}`);
    const operator = values.reason === undefined ? undefined : { operator: values.operator ?? osUser(), reason: values.reason, via: 'cli' as const };
    const problem = operator === undefined ? null : auditProblem(operator);
    if (problem !== null) throw new UsageError(`${problem}; nothing was written`);
    await writeOut(values.json ? `${JSON.stringify({ plan: preview.plan, operator: operator ?? null }, null, 2)}\n` : planText(preview.plan, operator?.operator));
    if (values['dry-run']) return EXIT_OK;
    const approved = values.yes === true || (await confirm(`retire lineage ${preview.plan.live.wal_id} (${reason})?`));
    if (!approved) return refuse(process.stdin.isTTY ? 'not confirmed: nothing was written' : 'not confirmed: there is no terminal to ask on; pass --yes to write');
    let outcome;
    try {
      outcome = retireLineage(session.root, session.id, { writer_name: 'walscope-retire', reason, operator, expected: preview.plan });
    } catch (error) {
      // A failed write or sync: every step is idempotent, so running retire again finishes what this one began.
      return refuse(`retire failed: ${describe(error)}; what the disk holds is safe to read — run the same retire again to finish it`);
    }
    if (outcome.kind === 'refused') return refuse(`${outcome.code}: ${outcome.message}`);
    if (outcome.kind === 'index_completed') {
      await writeOut(`the lineage was already retired; completed the index under lease epoch ${outcome.epoch}\n`);
      return EXIT_OK;
    }
    const member = outcome.member === null ? 'member already archived (skipped)' : `member at archive offset ${outcome.member.offset} (${plural(outcome.member.content_bytes, 'content byte')})`;
    await writeOut(`retired ${outcome.plan.live.wal_id}: ${member}; successor ${outcome.successor_wal_id}; index rewritten; under lease epoch ${outcome.epoch}\n`);
    return EXIT_OK;
  },
};

/** The lineage holds nothing to retire, but the last retire died before its step 3: the index is all it writes
 *  (confirmed as a retire is; nothing goes into a WAL, so no operator_action is recorded). */
async function completeIndexOnly(session: { root: string; id: string }, reason: RetireReason, message: string, values: { 'dry-run'?: boolean; yes?: boolean; json?: boolean }): Promise<number> {
  await writeOut(values.json ? `${JSON.stringify({ plan: null, index_owed: message }, null, 2)}\n` : `${printable(message, 600)}\n  3. archive.index rewritten to cover the whole archive; fsync, rename, fsync folder\n`);
  if (values['dry-run']) return EXIT_OK;
  const approved = values.yes === true || (await confirm('rewrite the archive index?'));
  if (!approved) return refuse(process.stdin.isTTY ? 'not confirmed: nothing was written' : 'not confirmed: there is no terminal to ask on; pass --yes to write');
  const outcome = retireLineage(session.root, session.id, { writer_name: 'walscope-retire', reason, index_only: true });
  if (outcome.kind === 'refused') return refuse(`${outcome.code}: ${outcome.message}`);
  await writeOut(`completed the index under lease epoch ${outcome.epoch}\n`);
  return EXIT_OK;
}

function planText(plan: RetirePlan, operator: string | undefined): string {
  const live = plan.live;
  const lines = [`retire lineage ${live.wal_id} of ${plan.session_dir} (${plan.reason}): ${plural(live.records, 'record')}, last seq ${live.last_seq}`];
  if (live.torn_tail !== null && operator === undefined) lines.push(`  the live WAL's torn tail (${plural(live.torn_tail.bytes, 'byte')} at offset ${live.torn_tail.offset}) was never committed: it is left out`);
  if (live.torn_tail !== null && operator !== undefined) lines.push(`  the live WAL's torn tail (${plural(live.torn_tail.bytes, 'byte')} at offset ${live.torn_tail.offset}) is cut before the operator_action is appended, after a copy is kept at ${printable(tornTailCopyPath(walPath(plan.session_dir), live.torn_tail.offset), 400)}`);
  if (operator !== undefined) lines.push(`  first: an operator_action (retire, by ${printable(operator, 80)}) appended to the lineage in its own barrier: the member then holds it (seq ${live.last_seq + 1})`);
  const tail = plan.archive_torn_tail;
  if (tail !== null) lines.push(`  archive torn tail: ${plural(tail.bytes, 'byte')} at offset ${tail.offset} copied to ${tail.copy_name}, synced, then cut`);
  const member = plan.member;
  if (member === null) {
    lines.push('  1. member: already archived, whole and matching: skipped');
  } else {
    lines.push(`  1. append member to archive at offset ${member.offset}: {wal_id ${member.wal_id}, reason ${member.reason}, first_seq ${member.first_seq}, last_seq ${member.last_seq}, frames ${member.frames}, content_bytes ${member.content_bytes}, content_sha256 ${member.content_sha256}, next_tag ${member.next_tag}, next_notice_seq ${member.next_notice_seq}, sealed_ms <now>}${operator === undefined ? '' : ' (before the operator_action; its frames are added)'}; fsync`);
  }
  const retired = operator === undefined ? '' : ', retired {the operator_action\'s who, why and when, the lineage retired, the torn tails cut}';
  lines.push(`  2. successor wal: one lineage frame {wal_id <new>, parent_wal_id ${plan.successor.parent_wal_id}, next_tag ${plan.successor.next_tag}, next_notice_seq ${plan.successor.next_notice_seq}, epoch <lease>${retired}}; fsync, rename over wal, fsync folder`);
  lines.push(`  3. archive.index rewritten to cover the whole archive (${plural(plan.index.members, 'member')}; it is ${plan.index.before} now); fsync, rename, fsync folder`);
  return `${lines.join('\n')}\n`;
}

// `walscope acknowledge SESSION_FOLDER --call TOOL_CALL_ID [--batch BATCH_ID] --finding FINDING [--reason TEXT]
// [--operator NAME] [--yes] [--dry-run] [--json]`: records what the owner found when checking a call whose
// outcome the WAL leaves unknown (wal-format §6). It prints the call and the one record it would append, and
// writes only after a reason and "y" (or --yes with --reason), as resume, cancel and seal do. Refused, writing
// nothing, for an export, under a live lease, and for a call whose outcome is known.
import { FINDINGS, type Finding } from '../../src-shared/replay.js';
import { FINDING_WORDS } from '../../src-shared/words.js';
import { acknowledgeCall, previewAcknowledge, type AcknowledgePreview } from '../recovery/acknowledge.js';
import { auditProblem, type OperatorAudit } from '../recovery/actions.js';
import { osUser } from '../engine/index.js';
import { askReason, confirm, refuse, sessionOf } from './actions.js';
import { EXIT_OK, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { plural, printable, textLines } from './format.js';

export const acknowledgeCommand: Command = {
  summary: 'record what you found when checking a call whose outcome is unknown (applied, not applied, or unknown accepted)',
  usage: `walscope acknowledge SESSION_FOLDER --call TOOL_CALL_ID [--batch BATCH_ID] --finding ${FINDINGS.join('|')} [--reason TEXT] [--operator NAME] [--yes] [--dry-run] [--json]\n  (--operator is self-declared: the record also names the OS user walscope runs as)`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      call: { type: 'string' },
      batch: { type: 'string' },
      finding: { type: 'string' },
      reason: { type: 'string' },
      operator: { type: 'string' },
      yes: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one SESSION_FOLDER');
    if (values.call === undefined) throw new UsageError('--call TOOL_CALL_ID names the call you checked');
    const finding = findingOf(values.finding);
    if (values.yes === true && values.reason === undefined && values['dry-run'] !== true) throw new UsageError('--yes needs --reason TEXT: an acknowledgement records who checked and why');
    const session = sessionOf(positionals[0]!);
    if (typeof session === 'string') return refuse(session);
    const choice = { tool_call_id: values.call, batch_id: values.batch ?? null };
    const preview = previewAcknowledge(session.root, session.id, choice, finding);
    if (preview.kind !== 'plan') return refuse(preview.message);
    const operator = values.operator ?? osUser();
    const report = (outcome: object | null) => writeOut(`${JSON.stringify({ action: 'acknowledge', ...preview, operator, outcome }, null, 2)}\n`);
    if (!values.json) await writeOut(textLines(previewLines(preview, operator)));
    if (values['dry-run'] === true) {
      if (values.json) await report(null);
      return EXIT_OK;
    }
    if (values.reason === undefined && !process.stdin.isTTY) return refuse('not confirmed: there is no terminal to ask for a reason on; pass --yes --reason TEXT to write');
    const reason = values.reason ?? (await askReason());
    if (reason === null) return refuse('no reason given: nothing was written');
    const audit: OperatorAudit = { operator, reason, via: 'cli' };
    const problem = auditProblem(audit);
    if (problem !== null) throw new UsageError(`${problem}; nothing was written`);
    if (values.yes !== true && !(await confirm('append this record?'))) return refuse('not confirmed: nothing was written');
    const outcome = acknowledgeCall(session.root, session.id, choice, finding, audit, { based_on_seq: preview.based_on_seq });
    if (outcome.kind !== 'done') {
      if (values.json) await report({ kind: outcome.kind, message: outcome.message });
      return refuse(outcome.message);
    }
    const message = `appended the acknowledgement at seq ${outcome.seq} under lease epoch ${outcome.epoch}`;
    if (values.json) await report({ kind: 'done', message, seq: outcome.seq, epoch: outcome.epoch, record: outcome.record });
    else await writeOut(textLines([message]));
    return EXIT_OK;
  },
};

function findingOf(value: string | undefined): Finding {
  if (value !== undefined && (FINDINGS as readonly string[]).includes(value)) return value as Finding;
  throw new UsageError(`--finding must be one of ${FINDINGS.join(', ')}: what you found the call did`);
}

function previewLines(preview: AcknowledgePreview, operator: string): string[] {
  const { call } = preview;
  const lines = [
    `call ${printable(call.tool_call_id, 120)} (${printable(call.name, 120)}) of batch ${printable(call.batch_id, 120)}, episode ${call.episode}: its outcome is unknown`,
    `  ${printable(call.may_have, 400)}`,
    `your finding: ${FINDING_WORDS[preview.finding].label} (${FINDING_WORDS[preview.finding].meaning})`,
  ];
  if (preview.tail_repair !== null) {
    const repair = preview.tail_repair;
    lines.push(`  before appending, the torn tail is cut: ${plural(repair.bytes, 'byte')} at offset ${repair.offset} are truncated, after a copy is kept at ${printable(repair.copy_path, 400)}`);
  }
  lines.push(`  the one record, in a barrier of its own: operator_action {"action":"acknowledge","operator":${printable(JSON.stringify(operator), 200)},"os_user":${printable(JSON.stringify(osUser()), 200)},"reason":(yours),"via":"cli","based_on_seq":${preview.based_on_seq},"call":{"batch_id":${printable(JSON.stringify(call.batch_id), 200)},"tool_call_id":${printable(JSON.stringify(call.tool_call_id), 200)}},"finding":"${preview.finding}"}`);
  lines.push('  it changes no class and no plan: the run reads as "finished, checked" once every unknown outcome is acknowledged');
  return lines;
}

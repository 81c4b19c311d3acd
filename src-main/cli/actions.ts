// `walscope resume|cancel|seal SESSION_FOLDER [--dry-run] [--yes] [--operator NAME] [--reason TEXT] [--json]`:
// print the plan and every write it makes (the operator_action audit record first, a torn tail's truncation,
// each appended record); write only after an interactive reason and "y" (or with --yes, which needs
// --reason). --dry-run never writes. --json prints the plan and the outcome as one JSON object. A WAL file is an
// export and is refused: actions need the session's lease, which only a session folder of a state root has.
import path from 'node:path';
import type { RecoveryKind } from '../../src-shared/replay.js';
import { classifyPath, isValidSessionId, SESSIONS_DIR_NAME, osUser } from '../engine/index.js';
import {
  auditProblem,
  cancelSession,
  previewRecovery,
  resumeSession,
  sealSession,
  type OperatorAudit,
  type Planner,
  type RecoveryOptions,
  type RecoveryOutcome,
  type RecoveryPreview,
} from '../recovery/actions.js';
import { contradiction } from '../replay/choices.js';
import { planCancel, planResume, planSeal } from '../replay/plan.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { plural, printable, textLines } from './format.js';
import { planLines } from './replay.js';
import { ask } from './terminal.js';

type Act = (root: string, session_id: string, options: RecoveryOptions) => RecoveryOutcome;

export const resumeCommand = actionCommand('resume', 'resume a crashed session as the contract prescribes (finalize, close out, wait on held calls)', planResume, resumeSession);
export const cancelCommand = actionCommand('cancel', 'cancel a session\'s open run: close its batch and seal it Cancelled', planCancel, cancelSession);
export const sealCommand = actionCommand('seal', 'force-close a session\'s open run: every pending call gets a terminal, sealed Interrupted', planSeal, sealSession);

function actionCommand(name: RecoveryKind, summary: string, planner: Planner, act: Act): Command {
  return {
    summary,
    usage: `walscope ${name} SESSION_FOLDER [--dry-run] [--yes --reason TEXT] [--operator NAME] [--json]\n  (--operator is self-declared, by default the OS user; the record also names the OS user walscope runs as)`,
    async run(argv) {
      const { values, positionals } = parseCommandArgs(argv, {
        'dry-run': { type: 'boolean' },
        yes: { type: 'boolean' },
        json: { type: 'boolean' },
        operator: { type: 'string' },
        reason: { type: 'string' },
      });
      if (positionals.length !== 1) throw new UsageError('expected exactly one SESSION_FOLDER');
      if (values.yes === true && values.reason === undefined && values['dry-run'] !== true) {
        throw new UsageError('--yes needs --reason TEXT: every recovery records who approved it and why');
      }
      const session = sessionOf(positionals[0]!);
      if (typeof session === 'string') return refuse(session);
      const preview = previewRecovery(session.root, session.id, planner);
      if (preview.kind !== 'plan') return refuse(preview.message);
      const recommended = previewRecovery(session.root, session.id, planResume);
      const contradicts = recommended.kind === 'plan' ? contradiction(name, preview.plan, recommended.plan) : null;
      const operator = values.operator ?? osUser();
      const report = (outcome: JsonOutcome | null) => writeOut(`${JSON.stringify({ action: name, ...previewJson(preview, contradicts), operator, outcome }, null, 2)}\n`);
      if (!values.json) await writeOut(textLines(previewLines(name, preview, contradicts, operator)));
      if (values['dry-run'] || preview.plan.records.length === 0) {
        if (values.json) await report(null);
        return EXIT_OK;
      }
      if (values.reason === undefined && !process.stdin.isTTY) {
        return refuse('not confirmed: there is no terminal to ask for a reason on; pass --yes --reason TEXT to write');
      }
      const reason = values.reason ?? (await askReason());
      if (reason === null) return refuse('no reason given: nothing was written');
      const audit: OperatorAudit = { operator, reason, via: 'cli' };
      const problem = auditProblem(audit);
      if (problem !== null) throw new UsageError(`${problem}; nothing was written`);
      const approved = values.yes === true || (await confirm(`append these ${plural(preview.plan.records.length + 1, 'record')}?`));
      if (!approved) return refuse(process.stdin.isTTY ? 'not confirmed: nothing was written' : 'not confirmed: there is no terminal to ask on; pass --yes --reason TEXT to write');
      const outcome = act(session.root, session.id, { expected_records: preview.plan.records, writer_name: `walscope-${name}`, audit, based_on_seq: preview.based_on_seq });
      if (outcome.kind !== 'done') {
        if (values.json) await report({ kind: outcome.kind, message: outcome.message, appended: [], epoch: null });
        return refuse(outcome.message);
      }
      const seqs = outcome.appended.map((record) => record.seq);
      const message = `appended ${plural(seqs.length, 'record')} (seq ${seqs[0]}–${seqs.at(-1)}) under lease epoch ${outcome.epoch}`;
      if (values.json) await report({ kind: 'done', message, appended: outcome.appended, epoch: outcome.epoch });
      else await writeOut(textLines([message]));
      return EXIT_OK;
    },
  };
}

interface JsonOutcome {
  kind: 'done' | 'lease_held' | 'refused';
  message: string;
  appended: { seq: number; type: string; barrier: number }[];
  epoch: number | null;
}

function previewJson(preview: RecoveryPreview, contradicts: string | null) {
  return { plan: preview.plan, based_on_seq: preview.based_on_seq, tail_repair: preview.tail_repair, contradicts };
}

/** The plan, then every write carrying it out makes: the audit record, the torn tail's cut, the records. */
function previewLines(name: RecoveryKind, preview: RecoveryPreview, contradicts: string | null, operator: string): string[] {
  const lines = planLines(preview.plan);
  if (preview.plan.records.length === 0) return lines;
  if (contradicts !== null) lines.push(`  WARNING: ${contradicts}`);
  if (preview.tail_repair !== null) {
    const repair = preview.tail_repair;
    lines.push(`  before appending, the torn tail is cut: ${plural(repair.bytes, 'byte')} at offset ${repair.offset} are truncated, after a copy is kept at ${printable(repair.copy_path, 400)}`);
  }
  lines.push(`  first, in barrier 1: operator_action {"action":"${name}","operator":${printable(JSON.stringify(operator), 200)},"reason":(yours),"via":"cli","based_on_seq":${preview.based_on_seq}}`);
  return lines;
}

export async function askReason(): Promise<string | null> {
  const answer = await ask('reason for this action (recorded in the WAL): ');
  return answer === '' ? null : answer;
}

/** The state root and session id of a session folder, or why the path cannot be acted on. */
export function sessionOf(folder: string): { root: string; id: string } | string {
  const resolved = path.resolve(folder);
  const kind = classifyPath(resolved);
  if (kind === 'wal_file') return `${folder} is a WAL file: exports are read-only; act on the session folder in its state root`;
  if (kind === 'missing') return `${folder}: no such folder`;
  const parent = path.dirname(resolved);
  const id = path.basename(resolved);
  if (path.basename(parent) !== SESSIONS_DIR_NAME || !isValidSessionId(id)) {
    return `${folder} is not a session folder of a state root (<root>/${SESSIONS_DIR_NAME}/<id>): a copied folder is an export and is read-only`;
  }
  return { root: path.dirname(parent), id };
}

/** Asks on the terminal; false when there is none (a script must pass --yes). */
export async function confirm(question: string): Promise<boolean> {
  return (await ask(`${question} [y/N] `))?.toLowerCase() === 'y';
}

export async function refuse(message: string): Promise<number> {
  process.stderr.write(textLines([message]));
  return EXIT_REFUSED;
}

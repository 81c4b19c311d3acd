// `walscope resume|cancel|seal SESSION_FOLDER [--dry-run] [--yes]`: print the plan and the records it would
// append; write only after an interactive "y" (or with --yes). --dry-run never writes. A WAL file is an export
// and is refused: actions need the session's lease, which only a session folder of a state root has.
import path from 'node:path';
import readline from 'node:readline/promises';
import { classifyPath, isValidSessionId, SESSIONS_DIR_NAME } from '../engine/state-root.js';
import { cancelSession, previewRecovery, resumeSession, sealSession, type Planner, type RecoveryOptions, type RecoveryOutcome } from '../replay/actions.js';
import { planCancel, planResume, planSeal } from '../replay/plan.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { plural, textLines } from './format.js';
import { planLines } from './replay.js';

type Act = (root: string, session_id: string, options: RecoveryOptions) => RecoveryOutcome;

export const resumeCommand = actionCommand('resume', 'resume a crashed session as the contract prescribes (finalize, close out, wait on held calls)', planResume, resumeSession);
export const cancelCommand = actionCommand('cancel', 'cancel a session\'s open run: close its batch and seal it Cancelled', planCancel, cancelSession);
export const sealCommand = actionCommand('seal', 'force-close a session\'s open run: every pending call gets a terminal, sealed Interrupted', planSeal, sealSession);

function actionCommand(name: string, summary: string, planner: Planner, act: Act): Command {
  return {
    summary,
    usage: `walscope ${name} SESSION_FOLDER [--dry-run] [--yes]`,
    async run(argv) {
      const { values, positionals } = parseCommandArgs(argv, { 'dry-run': { type: 'boolean' }, yes: { type: 'boolean' } });
      if (positionals.length !== 1) throw new UsageError('expected exactly one SESSION_FOLDER');
      const session = sessionOf(positionals[0]!);
      if (typeof session === 'string') return refuse(session);
      const preview = previewRecovery(session.root, session.id, planner);
      if (preview.kind !== 'plan') return refuse(preview.message);
      await writeOut(textLines(planLines(preview.plan)));
      if (values['dry-run'] || preview.plan.records.length === 0) return EXIT_OK;
      const approved = values.yes === true || (await confirm(`append these ${plural(preview.plan.records.length, 'record')}?`));
      if (!approved) return refuse(process.stdin.isTTY ? 'not confirmed: nothing was written' : 'not confirmed: there is no terminal to ask on; pass --yes to write');
      const outcome = act(session.root, session.id, { expected_records: preview.plan.records, writer_name: `walscope-${name}` });
      if (outcome.kind !== 'done') return refuse(outcome.message);
      const seqs = outcome.appended.map((record) => record.seq);
      await writeOut(`appended ${plural(seqs.length, 'record')} (seq ${seqs[0]}–${seqs.at(-1)}) under lease epoch ${outcome.epoch}\n`);
      return EXIT_OK;
    },
  };
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
  if (!process.stdin.isTTY) return false;
  const prompt = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return answer.trim().toLowerCase() === 'y';
  } finally {
    prompt.close();
  }
}

export async function refuse(message: string): Promise<number> {
  process.stderr.write(textLines([message]));
  return EXIT_REFUSED;
}

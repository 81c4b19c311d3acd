// `walscope report PATH [--html FILE | --json]`: the support report of one WAL (a WAL file or a session folder),
// read-only. --html writes one self-contained page to FILE, which the user names: never beside the WAL (exports
// are never written), never inside a state root or a session folder (a reader would take the file for state:
// SESSION/archive, ROOT/wal-feature-floor), never over an existing file. --json prints the same facts.
import fs from 'node:fs';
import path from 'node:path';
import { reportHtml } from '../../src-shared/report-html.js';
import type { SupportReport } from '../../src-shared/report.js';
import { planLabel } from '../../src-shared/words.js';
import { stateFolderKind } from '../engine/index.js';
import { supportReport } from '../recovery/support-report.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { plural, printable, runLines } from './format.js';
import { appendAll } from '../../src-shared/arrays.js';
import { singleTarget } from './targets.js';

export const reportCommand: Command = {
  summary: 'a support report of one WAL: size and SHA-256, integrity and what is lost, lineage, outcomes, plan (read-only)',
  usage: 'walscope report PATH [--html FILE | --json]   (PATH: a session folder or a WAL file)',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { html: { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one PATH');
    if (values.html !== undefined && values.json === true) throw new UsageError('--html and --json are exclusive');
    const target = singleTarget(positionals[0]!, 'report');
    if (values.html !== undefined) {
      const out = path.resolve(values.html);
      const misplaced = placeProblem(out, target.wal_path);
      if (misplaced !== null) return refuse(`walscope report: ${misplaced}`, EXIT_USAGE);
      if (fs.existsSync(out)) return refuse(`${out} exists: name a new file; a report never overwrites`);
      const report = supportReport(target, Date.now());
      try {
        fs.writeFileSync(out, reportHtml(report), { flag: 'wx', mode: 0o644 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return refuse(`${values.html} exists: name a new file; a report never overwrites`);
        throw error;
      }
      await writeOut(`report of ${printable(report.file.name, 200)} written to ${printable(out, 400)} (${report.integrity.verdict})\n`);
      return EXIT_OK;
    }
    const report = supportReport(target, Date.now());
    await writeOut(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : summary(report));
    return EXIT_OK;
  },
};

/** Why `out` is no place for a report, or null. Judged on the real folder (a symbolic link to a state root is
 *  that state root), and on every folder above it: anything inside a state root is a root's file. */
function placeProblem(out: string, wal_path: string): string | null {
  const named = printable(out, 400);
  let folder: string;
  try {
    folder = fs.realpathSync(path.dirname(out));
  } catch {
    return `${named}: its folder does not exist; name a file in an existing folder outside it`;
  }
  if (folder === fs.realpathSync(path.dirname(wal_path))) return `${named} is beside the WAL it describes, in ${printable(folder, 400)}: name a file outside it`;
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const kind = stateFolderKind(dir);
    if (kind !== null) return `${named} is inside the ${kind === 'state_root' ? 'state root' : 'session folder'} ${printable(dir, 400)}: name a file outside it`;
    if (path.dirname(dir) === dir) return null;
  }
}

function summary(report: SupportReport): string {
  const lines = [
    `${report.file.name}: ${report.file.size_bytes} bytes, sha256 ${report.file.sha256}`,
    `integrity: ${report.integrity.verdict}: ${printable(report.integrity.summary, 400)}`,
    `lost: ${printable(report.integrity.lost, 400)}`,
  ];
  if (report.integrity.ask_customer !== null) lines.push(`ask the customer: ${printable(report.integrity.ask_customer, 600)}`);
  appendAll(lines, runLines(report.run));
  lines.push(`${plural(report.lineage.length, 'lineage frame')}, ${plural(report.episodes.length, 'episode')}, ${report.recoveries.length} recovery action(s)`);
  lines.push(`resume: ${planLabel(report.resume.action)} (${report.resume.action}): ${printable(report.resume.message, 400)}`);
  lines.push('(--html FILE writes the whole report as one page; --json prints it as JSON)');
  return `${lines.join('\n')}\n`;
}

async function refuse(message: string, code = EXIT_REFUSED): Promise<number> {
  process.stderr.write(`${message}\n`);
  return code;
}

// `walscope report PATH [--html FILE | --json]`: the support report of one WAL (a WAL file or a session folder),
// read-only. --html writes one self-contained page to FILE, which the user names: never beside the WAL (exports
// are never written), never over an existing file, never over the WAL itself. --json prints the same facts.
import fs from 'node:fs';
import path from 'node:path';
import { reportHtml } from '../../src-shared/report-html.js';
import type { SupportReport } from '../../src-shared/report.js';
import { supportReport } from '../replay/support-report.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
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
      const refused = outputProblem(out, target.wal_path);
      if (refused !== null) return refuse(refused);
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

/** The report goes only where the user says, and never onto the WAL it describes. */
function outputProblem(out: string, wal_path: string): string | null {
  if (out === path.resolve(wal_path)) return 'the report cannot be written over the WAL it describes';
  if (fs.existsSync(out)) return `${out} exists: name a new file; a report never overwrites`;
  return null;
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
  lines.push(`resume: ${report.resume.action}: ${printable(report.resume.message, 400)}`);
  lines.push('(--html FILE writes the whole report as one page; --json prints it as JSON)');
  return `${lines.join('\n')}\n`;
}

async function refuse(message: string): Promise<number> {
  process.stderr.write(`${message}\n`);
  return EXIT_REFUSED;
}

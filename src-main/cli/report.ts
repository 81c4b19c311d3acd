// `walscope report PATH [--html FILE | --json] [--redact ...]`: the support report of one WAL (a WAL file or a
// session folder), read-only. --html writes one self-contained page to FILE, a new file the user names
// (out-file.ts says where it may not be). --json prints the same facts. --redact replaces what it names with
// markers and carries their manifest (docs/share.md).
import fs from 'node:fs';
import path from 'node:path';
import { reportHtml } from '../../src-shared/report-html.js';
import type { SupportReport } from '../../src-shared/report.js';
import { planLabel } from '../../src-shared/words.js';
import type { WalTarget } from '../engine/index.js';
import { replayTarget } from '../recovery/replay-target.js';
import { supportReport } from '../recovery/support-report.js';
import { MANIFEST_ELEMENT_ID, type RedactClass, type RedactionManifest } from '../share/redaction.js';
import { sharedReport } from '../share/shared-session.js';
import { outFileProblem, writeNewFile } from '../services/out-file.js';
import { redactClasses, redactedWords, redactFlagAlone } from './redact-flag.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { plural, printable, runLines } from './format.js';
import { appendAll } from '../../src-shared/arrays.js';
import { singleTarget } from './targets.js';

export const reportCommand: Command = {
  summary: 'a support report of one WAL: size and SHA-256, integrity and what is lost, lineage, outcomes, plan (read-only)',
  usage: 'walscope report PATH [--html FILE | --json] [--redact [outputs,args,inputs,model-text,secrets]]   (PATH: a session folder or a WAL file; --redact alone: secrets)',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(redactFlagAlone(argv), { html: { type: 'string' }, json: { type: 'boolean' }, redact: { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one PATH');
    if (values.html !== undefined && values.json === true) throw new UsageError('--html and --json are exclusive');
    const classes = values.redact === undefined ? [] : redactClasses(values.redact);
    const target = singleTarget(positionals[0]!, 'report');
    if (values.html !== undefined) {
      const out = path.resolve(values.html);
      const misplaced = outFileProblem(out, target.wal_path);
      if (misplaced !== null) return refuse(`walscope report: ${misplaced}`, EXIT_USAGE);
      if (fs.existsSync(out)) return refuse(`${out} exists: name a new file; a report never overwrites`);
      const { report, manifest } = await reportOf(target, classes);
      if (!writeNewFile(out, reportHtml(report, manifest === null ? [] : [{ id: MANIFEST_ELEMENT_ID, value: manifest }]))) return refuse(`${values.html} exists: name a new file; a report never overwrites`);
      await writeOut(`report of ${printable(report.file.name, 200)} written to ${printable(out, 400)} (${report.integrity.verdict})${redactedWords(manifest)}\n`);
      return EXIT_OK;
    }
    const { report, manifest } = await reportOf(target, classes);
    if (values.json === true) await writeOut(`${JSON.stringify(manifest === null ? report : { ...report, redactions: manifest }, null, 2)}\n`);
    else await writeOut(summary(report) + redactedWords(manifest).trim() + (manifest === null ? '' : '\n'));
    return EXIT_OK;
  },
};

/** The report, redacted when `classes` names anything (share/shared-session.ts). */
async function reportOf(target: WalTarget, classes: readonly RedactClass[]): Promise<{ report: SupportReport; manifest: RedactionManifest | null }> {
  const report = supportReport(target, Date.now());
  if (classes.length === 0) return { report, manifest: null };
  return sharedReport(replayTarget(target).fold, report, classes);
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

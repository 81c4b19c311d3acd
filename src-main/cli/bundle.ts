// `walscope bundle PATH --out FILE.html [--max-bytes N] [--redact [LIST]]`: the whole session as one page that
// opens from disk with no server and no network (docs/share.md), read-only: the WAL is read, never written.
// `walscope bundle --check-against WAL FILE.html`: every redaction marker of a bundle (or a report) checked
// against the WAL it was made from.
import fs from 'node:fs';
import path from 'node:path';
import type { WalTarget } from '../engine/index.js';
import { walPayloadReader } from '../recovery/payloads.js';
import { replayTarget } from '../recovery/replay-target.js';
import { supportReport } from '../recovery/support-report.js';
import { checkMarkers, manifestOf } from '../share/check.js';
import { BUNDLE_BYTES_DEFAULT, BUNDLE_WAL_BYTES_MAX, BundleTooSmallError, BundleWalTooLargeError, makeBundle, type MadeBundle } from '../services/bundle.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE, parseCommandArgs, UsageError, writeOut, type Command } from './command.js';
import { printable } from './format.js';
import { outFileProblem, writeNewFile } from '../services/out-file.js';
import { REDACT_USAGE, redactClasses, redactedWords, redactFlagAlone } from './redact-flag.js';
import { singleTarget } from './targets.js';

/** A page read back for --check-against at most (a bundle is --max-bytes at most; a larger file is not one). */
const CHECKED_PAGE_BYTES_MAX = 1024 * 1_048_576;

export const bundleCommand: Command = {
  summary: 'the whole session as one HTML file that opens anywhere offline: report, timeline, transcript, each request (read-only)',
  usage: `walscope bundle PATH --out FILE.html [--max-bytes N] [${REDACT_USAGE}]   |   walscope bundle --check-against WAL FILE.html`,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(redactFlagAlone(argv), {
      out: { type: 'string' },
      'max-bytes': { type: 'string' },
      redact: { type: 'string' },
      'check-against': { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one PATH (or, with --check-against WAL, one FILE.html)');
    if (values['check-against'] !== undefined) {
      if (values.out !== undefined || values.redact !== undefined || values['max-bytes'] !== undefined) throw new UsageError('--check-against takes only the WAL and the FILE.html');
      return check(singleTarget(values['check-against'], 'bundle --check-against'), positionals[0]!);
    }
    if (values.out === undefined) throw new UsageError('--out FILE.html is required: the bundle is written to a new file you name');
    const size_bytes_max = values['max-bytes'] === undefined ? BUNDLE_BYTES_DEFAULT : byteCount(values['max-bytes']);
    const classes = values.redact === undefined ? [] : redactClasses(values.redact);
    const target = singleTarget(positionals[0]!, 'bundle');
    const out = path.resolve(values.out);
    const misplaced = outFileProblem(out, target.wal_path);
    if (misplaced !== null) return refuse(`walscope bundle: ${misplaced}`, EXIT_USAGE);
    if (fs.existsSync(out)) return refuse(`${out} exists: name a new file; a bundle never overwrites`);
    let made: MadeBundle;
    try {
      made = await makeBundle(target, classes, size_bytes_max);
    } catch (error) {
      if (error instanceof BundleTooSmallError) return refuse(`walscope bundle: ${error.message}`, EXIT_USAGE);
      if (error instanceof BundleWalTooLargeError) {
        return refuse(`walscope bundle: ${printable(target.wal_path, 400)} is ${error.wal_bytes} bytes, over the ${BUNDLE_WAL_BYTES_MAX} a bundle reads (it holds every payload it shows in memory): share its report (walscope report --html) or open it with walscope serve`);
      }
      throw error;
    }
    const { html, report, manifest } = made;
    if (!writeNewFile(out, html)) return refuse(`${out} exists: name a new file; a bundle never overwrites`);
    await writeOut(`bundle of ${printable(report.file.name, 200)} written to ${printable(out, 400)}: ${Buffer.byteLength(html)} bytes (${report.integrity.verdict})${redactedWords(manifest)}\n`);
    return EXIT_OK;
  },
};

async function check(target: WalTarget, page_path: string): Promise<number> {
  let html: string;
  try {
    if (fs.statSync(page_path).size > CHECKED_PAGE_BYTES_MAX) return refuse(`${page_path} is larger than ${CHECKED_PAGE_BYTES_MAX} bytes: not a bundle`);
    html = fs.readFileSync(page_path, 'utf8');
  } catch (error) {
    return refuse(`${page_path} cannot be read: ${(error as Error).message}`, EXIT_USAGE);
  }
  let manifest;
  try {
    manifest = manifestOf(html);
  } catch (error) {
    return refuse(`${page_path}: its redaction manifest does not read: ${(error as Error).message}`);
  }
  if (manifest === null) return refuse(`${page_path} carries no redaction manifest: nothing in it was redacted, so there is no marker to check`);
  const { fold } = replayTarget(target);
  const report = supportReport(target, Date.now());
  const result = checkMarkers(html, manifest, { file: report.file, fold, report, payloads: walPayloadReader(target.wal_path) });
  if (result.problems.length > 0) {
    process.stderr.write(`${result.problems.map((problem) => printable(problem, 1_000)).join('\n')}\n`);
    return refuse(`walscope bundle: ${result.problems.length} problem(s) in ${result.markers} marker(s) and ${result.entries} manifest entries of ${page_path}`);
  }
  await writeOut(`${result.entries} manifest entries and ${result.markers} marker(s) in ${printable(page_path, 400)} match ${printable(report.file.name, 200)} (sha256 ${report.file.sha256})\n`);
  return EXIT_OK;
}

function byteCount(value: string): number {
  if (!/^[1-9][0-9]{0,11}$/.test(value)) throw new UsageError(`--max-bytes takes a whole number of bytes, not "${value}"`);
  return Number(value);
}

async function refuse(message: string, code = EXIT_REFUSED): Promise<number> {
  process.stderr.write(`${message}\n`);
  return code;
}

// A session's bundle (docs/share.md), made the one way for `walscope bundle` and the app's Export bundle
// (getBundle): its WAL read once for its report and fold (never written), every payload shown read once, redacted as asked, rendered by share/
// within its size. What it is saved to is the caller's: the CLI writes the file named, a window saves a new file.
import fs from 'node:fs';
import type { RedactClass } from '../../src-shared/bundle.js';
import type { SupportReport } from '../../src-shared/report.js';
import type { WalTarget } from '../engine/index.js';
import { withPayloadPass } from '../recovery/payloads.js';
import { supportReportAndFold } from '../recovery/support-report.js';
import { bundleHtml, BUNDLE_BYTES_DEFAULT } from '../share/bundle-html.js';
import { bundleModel } from '../share/bundle-model.js';
import type { RedactionManifest } from '../share/redaction.js';
import { readPayloads, sharedSession } from '../share/shared-session.js';

export { BUNDLE_BYTES_DEFAULT };
export { BundleTooSmallError } from '../share/bundle-html.js';

/** A WAL bundled at most: a bundle holds every payload it shows, read into memory before it is redacted, so a
 *  session past this is refused rather than read whole (its report and `walscope serve` show it). */
export const BUNDLE_WAL_BYTES_MAX = 256 * 1_048_576;

/** A session too large to bundle (BUNDLE_WAL_BYTES_MAX). */
export class BundleWalTooLargeError extends Error {
  override name = 'BundleWalTooLargeError';
  constructor(readonly wal_bytes: number) {
    super(`the WAL is ${wal_bytes} bytes, over the ${BUNDLE_WAL_BYTES_MAX} a bundle reads (it holds every payload it shows in memory): share its report, or open it with walscope serve`);
  }
}

export interface MadeBundle {
  html: string;
  report: SupportReport;
  /** null when nothing was redacted. */
  manifest: RedactionManifest | null;
}

/** The bundle of `target`'s session, redacting `classes`, within `size_bytes_max` (BundleTooSmallError when the
 *  report and the manifest alone do not fit; BundleWalTooLargeError for a WAL past BUNDLE_WAL_BYTES_MAX). */
export async function makeBundle(target: WalTarget, classes: readonly RedactClass[], size_bytes_max = BUNDLE_BYTES_DEFAULT, generated_ms = Date.now()): Promise<MadeBundle> {
  const wal_bytes = fs.statSync(target.wal_path).size;
  if (wal_bytes > BUNDLE_WAL_BYTES_MAX) throw new BundleWalTooLargeError(wal_bytes);
  const { report, fold } = supportReportAndFold(target, generated_ms);
  // Every payload shown is read once, in one pass over the file, before anything is redacted.
  const originals = withPayloadPass(target.wal_path, (read) => readPayloads(fold, read));
  const shared = await sharedSession(fold, report, originals, classes);
  return { html: bundleHtml(bundleModel(shared), generated_ms, size_bytes_max), report, manifest: shared.manifest };
}

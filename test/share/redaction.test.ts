// A bundle redacted at share time: none of the redacted strings is left in the file, in any form the page could
// show it; the structure stays; every marker checks against the WAL it was made from (`--check-against`), and a
// marker or a manifest entry changed after is rejected by name. The WAL is never written.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { useTempDirs } from '../helpers/temp.js';
import { bundleCli, bundleTo } from './bundle-page.js';
import { PLAIN, SECRETS, writeSecretsSession } from './secrets-session.js';

const tempDir = useTempDirs('walscope-redaction-');

/** `text` as the page could carry it: itself, JSON-escaped (the manifest, the requests' data) and HTML-escaped. */
function forms(text: string): string[] {
  const json = JSON.stringify(text).slice(1, -1);
  const html = text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
  return [...new Set([text, json, html, ...text.split('\n').filter((line) => line.length >= 12)])];
}

function bundled(root: string, ...flags: string[]): { out: string; html: string } {
  const out = path.join(tempDir(), 'bundle.html');
  return { out, html: bundleTo(sessionDir(root, 's'), out, ...flags) };
}

function secretsRoot(): string {
  const root = tempDir();
  writeSecretsSession(root, 's');
  return root;
}

describe('walscope bundle --redact', () => {
  it('by default (--redact alone) removes every secret and keeps the rest of the run', () => {
    const root = secretsRoot();
    const { html } = bundled(root, '--redact');
    for (const secret of Object.values(SECRETS)) for (const form of forms(secret)) expect(html).not.toContain(form);
    for (const plain of Object.values(PLAIN)) expect(html).toContain(plain);
    expect(html).toMatch(/⟦redacted secrets #\d+: \d+ bytes, sha256 [0-9a-f]{64}⟧/);
  });

  it('removes every class asked for, and its markers check against the WAL', () => {
    const root = secretsRoot();
    const { out, html } = bundled(root, '--redact', 'outputs,args,inputs,model-text,secrets');
    for (const text of [...Object.values(SECRETS), ...Object.values(PLAIN)]) for (const form of forms(text)) expect(html).not.toContain(form);
    const checked = bundleCli('--check-against', walPath(sessionDir(root, 's')), out);
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    expect(checked.stdout).toMatch(/manifest entries and \d+ marker\(s\) in .* match/);
  });

  it('rejects a marker whose hash was changed, naming it, and a page checked against another session\'s WAL', () => {
    const root = secretsRoot();
    const { out, html } = bundled(root, '--redact', 'outputs,secrets');
    const marker = /⟦redacted (\w[\w-]*) #(\d+): (\d+) bytes, sha256 ([0-9a-f]{64})⟧/.exec(html)!;
    const flipped = marker[4]!.replace(/^./, (first) => (first === '0' ? '1' : '0'));
    const tampered = path.join(tempDir(), 'tampered.html');
    fs.writeFileSync(tampered, html.replaceAll(marker[0]!, marker[0]!.replace(marker[4]!, flipped)));
    const rejected = bundleCli('--check-against', walPath(sessionDir(root, 's')), tampered);
    expect(rejected.status).toBe(1);
    expect(rejected.stderr).toContain(`#${marker[2]}`);
    const other = tempDir();
    writeSecretsSession(other, 's');
    const elsewhere = bundleCli('--check-against', walPath(sessionDir(other, 's')), out);
    expect(elsewhere.status).toBe(1);
  });

  it('refuses a WAL past what a bundle reads into memory, before reading it, and writes nothing', () => {
    const wal = path.join(tempDir(), 'big.wal');
    fs.writeFileSync(wal, '');
    fs.truncateSync(wal, 257 * 1_048_576);
    const out = path.join(tempDir(), 'big.html');
    const refused = bundleCli(wal, '--out', out);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/over the 268435456 a bundle reads/);
    expect(fs.existsSync(out)).toBe(false);
  });
});

// Runs the real `walscope serve` (the built CLI and renderer: out/, built once by test/build-once.ts) in a child
// process, and Debian's Chromium through playwright-core, for the end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { chromium, type BrowserContext } from 'playwright-core';

export const REPO_DIR = path.resolve(import.meta.dirname, '../..');
export const CHROMIUM_PATH = '/usr/bin/chromium';
const START_TIMEOUT_MS = 30_000;

export interface Served {
  url: string;
  port: number;
  token: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The summary cache of every served root goes to one temporary folder, not the user's cache. */
const CACHE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-e2e-cache-'));

/** `walscope serve TARGET…`: a state root, a session, an export, a folder of exports, or several export files. */
export async function serve(target: string | readonly string[]): Promise<Served> {
  const env = { ...process.env, WALSCOPE_CACHE_DIR: CACHE_DIR };
  const targets = typeof target === 'string' ? [target] : target;
  const child = spawn(process.execPath, ['bin/walscope.js', 'serve', ...targets, '--port', '0'], { cwd: REPO_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${errors}`)), START_TIMEOUT_MS);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(line);
      if (found === null) return;
      clearTimeout(timer);
      resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${errors}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    port: Number(parsed.port),
    token: parsed.searchParams.get('token')!,
    child,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile folder of its own (playwright passes it as --user-data-dir). */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Tall enough that the screenshots show every demo session in the list.
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

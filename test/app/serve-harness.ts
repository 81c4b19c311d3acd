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
  port: number;
  /** The token, as a script gets it: by spending the first link serve printed. */
  token: string;
  /** The newest link serve printed, for one page to open: each is good for one tab, and serve prints the next
   *  once it is spent. */
  link(): Promise<string>;
  child: ChildProcess;
  stop(): Promise<void>;
}

const LINK_PATTERN = /(http:\/\/127\.0\.0\.1:\d+\/\?open=\S+)/;

/** The token the link `url` opens a tab with, taken as the page takes it (POST /open). */
export async function spendLink(url: string): Promise<string> {
  const link = new URL(url);
  const response = await fetch(new URL('/open', link), { method: 'POST', headers: { 'x-walscope-open': link.searchParams.get('open')! } });
  const value = (await response.json()) as { token?: string; error?: string };
  if (!response.ok) throw new Error(`the link did not open: ${value.error}`);
  return value.token!;
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
  const printed: string[] = [];
  let waiting: ((url: string) => void) | null = null;
  const first = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${errors}`)), START_TIMEOUT_MS);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = LINK_PATTERN.exec(line);
      if (found === null) return;
      clearTimeout(timer);
      resolve();
      if (waiting === null) printed.push(found[1]!);
      else waiting(found[1]!);
      waiting = null;
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${errors}`)));
  });
  await first;
  const first_link = printed.shift()!;
  const token = await spendLink(first_link);
  return {
    port: Number(new URL(first_link).port),
    token,
    link: () => (printed.length > 0 ? Promise.resolve(printed.shift()!) : new Promise((resolve) => (waiting = resolve))),
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
  /** The --user-data-dir: its files (Default/History) can be read once the context is closed. */
  profile: string;
  close(): Promise<void>;
}

/** Chromium with a fresh profile folder of its own (playwright passes it as --user-data-dir). */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Tall enough that the screenshots show every demo session in the list.
    viewport: { width: 1400, height: 1320 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    profile,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

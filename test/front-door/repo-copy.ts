// The repository as a new user has it: a copy of its files without out/ (never built), inside a parent folder
// of its own so a test can see whether anything was written beside it, with node_modules hard-linked from
// this checkout (what `npm ci` would install, without the network). Files are only ever added to the copy's
// node_modules, never changed in place: they share their bytes with the real ones. And `npm start` run as a
// user runs it: its own process group (as a terminal's foreground job), stopped with SIGINT as Ctrl-C does.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

export const REPO_DIR = path.resolve(import.meta.dirname, '../..');
/** What `git clone` would not bring (built, installed or local): everything else is copied. */
const NOT_IN_A_CLONE = new Set(['.git', 'node_modules', 'out', 'tmp', 'bench-data']);
const LINE_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export interface RepoCopy {
  /** The folder holding only the copy: a build that writes beside the repository shows up here. */
  parent: string;
  repo: string;
  /** A folder outside `parent` for what the test itself needs (demo root, caches, records). */
  scratch: string;
  remove(): void;
}

export function copyRepo(): RepoCopy {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-clone-'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-clone-scratch-'));
  const repo = path.join(parent, 'walscope');
  fs.cpSync(REPO_DIR, repo, { recursive: true, filter: (source) => !NOT_IN_A_CLONE.has(path.relative(REPO_DIR, source).split(path.sep)[0]!) });
  execFileSync('cp', ['-al', path.join(REPO_DIR, 'node_modules'), path.join(repo, 'node_modules')]);
  return {
    parent,
    repo,
    scratch,
    remove() {
      fs.rmSync(parent, { recursive: true, force: true });
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** The environment of a user's shell: no display unless the test gives one, the demo root under `scratch`. */
export function userEnv(scratch: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: path.join(scratch, 'xdg'), ...extra };
  if (extra['DISPLAY'] === undefined) delete env['DISPLAY'];
  delete env['WAYLAND_DISPLAY'];
  return env;
}

export const demoRootIn = (scratch: string): string => path.join(scratch, 'xdg/walscope/demo');

/** An exit code, or the signal that ended it: npm, sent SIGINT with its script, ends by that signal. */
export type Ended = number | NodeJS.Signals;

export interface Job {
  child: ChildProcess;
  /** Every line it printed so far, stdout and stderr. */
  lines: string[];
  /** Resolves with the first group of the first line (so far or to come) that matches. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Ctrl-C: SIGINT to the whole group; resolves with how the leader ended. */
  interrupt(): Promise<Ended>;
  exited(): Promise<Ended>;
  /** True while any process of the group is alive. */
  groupAlive(): boolean;
}

export function startJob(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Job {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const exit = new Promise<Ended>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      for (const wake of waiters.splice(0)) wake();
    });
  }
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    child,
    lines,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line matched ${pattern} in ${LINE_TIMEOUT_MS} ms:\n${lines.join('\n')}`)), LINE_TIMEOUT_MS);
        const check = () => {
          const found = lines.map((line) => pattern.exec(line)).find((match) => match !== null);
          if (found !== undefined) {
            clearTimeout(timer);
            resolve(found[1] ?? found[0]);
          } else waiters.push(check);
        };
        void exit.then(() => {
          clearTimeout(timer);
          if (lines.every((line) => !pattern.test(line))) reject(new Error(`exited before a line matched ${pattern}:\n${lines.join('\n')}`));
        });
        check();
      });
    },
    interrupt() {
      if (groupAlive()) process.kill(-child.pid!, 'SIGINT');
      return this.exited();
    },
    exited() {
      return Promise.race([exit, new Promise<Ended>((_resolve, reject) => setTimeout(() => reject(new Error(`still running ${STOP_TIMEOUT_MS} ms after SIGINT:\n${lines.join('\n')}`)), STOP_TIMEOUT_MS).unref())]);
    },
    groupAlive,
  };
}

/** Waits for every process of the job's group to end (the leader's exit comes a moment before its children's
 *  when they are reaped); false if any is still there after `wait_ms`. */
export async function groupEnds(job: Job, wait_ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + wait_ms;
  while (job.groupAlive()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

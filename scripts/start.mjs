// `npm start [ROOT]`: the desktop app on the demo state root (written on first run and kept after that, its
// live session appending), or on ROOT. Where Electron cannot start (no display, or its binary was never
// fetched on an offline machine) it says so in one line and serves the same UI in the browser instead,
// printing the URL. Ctrl-C or SIGTERM stops every process it started, and waits for them: the live session's
// writer drains and releases its lease before this exits. If any of them ends on its own, the rest stop too.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'bin/walscope.js');
const EXIT_STOPPED = 0;
const EXIT_FAILED = 1;
/** A child still running this long after SIGTERM is killed: nothing we started may outlive us. */
const STOP_GRACE_MS = 10_000;
const children = new Set();
let stopping = false;

/** Why Electron cannot run here, or null. Never requires 'electron' from Node: that would try a download. */
function electronUnavailable() {
  const dir = path.join(REPO, 'node_modules/electron');
  let binary = null;
  try {
    binary = path.join(dir, 'dist', fs.readFileSync(path.join(dir, 'path.txt'), 'utf8').trim());
  } catch {
    // no path.txt: the binary was never installed
  }
  if (binary === null || !fs.existsSync(binary)) return { reason: 'its binary is not installed (npx install-electron needs the network)' };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return { reason: 'there is no display (DISPLAY is not set)' };
  return { binary };
}

/** Starts a child we own (a signal during the build stops us before it starts): when it ends on its own,
 *  everything stops. */
function startChild(name, command, args, stdio) {
  if (stopping) process.exit(process.exitCode);
  const child = spawn(command, args, { cwd: REPO, stdio });
  children.add(child);
  child.once('exit', (code, signal) => {
    children.delete(child);
    // Closing the desktop app's window ends it with 0: a normal way to stop, not a failure.
    if (!stopping) stopAll(code === 0 ? null : `${name} ended (${signal ?? code})`, code === 0 ? EXIT_STOPPED : EXIT_FAILED);
    else if (children.size === 0) process.exit(process.exitCode);
  });
  return child;
}

/** Resolves with the first group of `pattern` in the child's stdout; other lines are echoed when asked. */
function firstMatch(child, pattern, echo) {
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const found = pattern.exec(line);
      if (found !== null) resolve(found[1]);
      else if (echo) process.stdout.write(`${line}\n`);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before it was ready`)));
  });
}

/** Asks every child to stop and exits once they all have: no process of ours outlives this one. */
function stopAll(why, code) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  if (why !== null) process.stderr.write(`walscope: ${why}; stopping\n`);
  if (children.size === 0) process.exit(code);
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => {
    for (const child of children) child.kill('SIGKILL');
  }, STOP_GRACE_MS).unref();
}

process.once('SIGINT', () => stopAll(null, EXIT_STOPPED));
process.once('SIGTERM', () => stopAll(null, EXIT_STOPPED));
// `npm start` runs this under `sh -c`, and a SIGTERM sent to npm ends that shell without passing it on: we are
// then re-parented, and stop as if we had been sent it ourselves.
const PARENT_CHECK_MS = 1_000;
const parent_pid = process.ppid;
setInterval(() => {
  if (process.ppid !== parent_pid) stopAll('the process that started this one ended', EXIT_STOPPED);
}, PARENT_CHECK_MS).unref();

try {
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: REPO, stdio: 'inherit' });
  execFileSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build', '--logLevel', 'warn'], { cwd: REPO, stdio: 'inherit' });
  let root = process.argv[2];
  if (root === undefined) {
    const demo = startChild('walscope demo', process.execPath, [CLI, 'demo', '--if-missing', '--live'], ['ignore', 'pipe', 'inherit']);
    root = await firstMatch(demo, /^demo state root: (.+)$/, false);
    process.stdout.write(`walscope: the demo state root is ${root}; its live session keeps appending (\`walscope demo\` rewrites it)\n`);
  }
  const electron = electronUnavailable();
  if (electron.binary !== undefined) {
    startChild('the desktop app', electron.binary, [path.join(REPO, 'out/main/index.js'), root], 'inherit');
  } else {
    const server = startChild('walscope serve', process.execPath, [CLI, 'serve', root], ['ignore', 'pipe', 'inherit']);
    const url = await firstMatch(server, /^walscope serve: (\S+)/, true);
    process.stdout.write(`walscope: Electron cannot start here: ${electron.reason}; serving the same UI in your browser instead: ${url}\n`);
  }
} catch (error) {
  stopAll(`could not start: ${error instanceof Error ? error.message : String(error)}`, EXIT_FAILED);
}

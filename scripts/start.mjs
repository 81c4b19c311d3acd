// `npm start [ROOT]`: the desktop app on the demo state root (written on first run and kept after that, its
// live session appending), or on ROOT. Electron's binary is not part of `npm ci`: on first start it is fetched
// with Electron's own installer (bounded by FETCH_TIMEOUT_MS, its progress shown). Where the window cannot
// open (no display, the fetch failed, the app died at start) it says why in one line and serves the same UI in
// the browser instead, printing the URL. Ctrl-C or SIGTERM stops every process it started, and waits for them:
// the live session's writer drains and releases its lease before this exits. If one ends on its own, the rest
// stop too (closing the window ends the app with 0: a normal way to stop).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'bin/walscope.js');
const ELECTRON_DIR = path.join(REPO, 'node_modules/electron');
const MAIN_ENTRY = path.join(REPO, 'out/main/index.js');
const EXIT_STOPPED = 0;
const EXIT_FAILED = 1;
/** A child still running this long after SIGTERM is killed: nothing we started may outlive us. */
const STOP_GRACE_MS = 10_000;
/** The binary is about 100 MB; a fetch slower than this is given up for the browser. */
const FETCH_TIMEOUT_MS = 300_000;
/** The desktop app failing this soon after its start means it cannot run here: the browser takes over. */
const DESKTOP_EARLY_EXIT_MS = 10_000;
/** The Node that Electron's installer declares (its package's engines); on older Node it is still tried. */
const INSTALLER_NODE_MIN = [22, 12];
const children = new Set();
let stopping = false;

/** The Electron executable that path.txt names, when it is there. Never requires 'electron' from Node. */
function electronBinary() {
  try {
    const binary = path.join(ELECTRON_DIR, 'dist', fs.readFileSync(path.join(ELECTRON_DIR, 'path.txt'), 'utf8').trim());
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null; // no path.txt: the binary was never installed
  }
}

function hasDisplay() {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY) || Boolean(process.env.WAYLAND_DISPLAY);
}

/** Any exit of a child we depend on stops everything. */
function endedOnItsOwn(name, code, signal) {
  stopAll(code === 0 ? null : `${name} ended (${signal ?? code})`, code === 0 ? EXIT_STOPPED : EXIT_FAILED);
}

/** Starts a child we own (a signal during the build stops us before it starts); `ended` decides what its
 *  exit means unless we are already stopping. */
function startChild(name, command, args, stdio, ended = endedOnItsOwn) {
  if (stopping) process.exit(process.exitCode);
  const child = spawn(command, args, { cwd: REPO, stdio });
  children.add(child);
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (!stopping) ended(name, code, signal);
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

/** Runs Electron's installer (scripts/fetch-electron.cjs); resolves null once the binary is there, else why not. */
function fetchElectron() {
  process.stdout.write(`walscope: fetching Electron's binary with its installer (once, about 100 MB, at most ${FETCH_TIMEOUT_MS / 1000} s)\n`);
  return new Promise((resolve) => {
    let said = '';
    const installer = startChild('the Electron installer', process.execPath, [path.join(REPO, 'scripts/fetch-electron.cjs')], ['ignore', 'pipe', 'inherit'], (_name, code, signal) => {
      clearTimeout(timer);
      if (code === 0 && electronBinary() !== null) return resolve(null);
      const what = timed_out ? `it took longer than ${FETCH_TIMEOUT_MS / 1000} s` : (said.split('\n')[0] || `the installer ended (${signal ?? code})`);
      const [major, minor] = process.versions.node.split('.').map(Number);
      const old = major < INSTALLER_NODE_MIN[0] || (major === INSTALLER_NODE_MIN[0] && minor < INSTALLER_NODE_MIN[1]);
      const node = old ? ` (the installer declares Node >= ${INSTALLER_NODE_MIN.join('.')}; this is ${process.versions.node})` : '';
      resolve(`Electron's binary could not be fetched: ${what}${node}`);
    });
    installer.stdout.on('data', (chunk) => (said += chunk.toString()));
    let timed_out = false;
    const timer = setTimeout(() => {
      timed_out = true;
      installer.kill('SIGKILL');
    }, FETCH_TIMEOUT_MS);
  });
}

/** The executable that opens the window, or why there is none. */
async function desktopOrWhyNot() {
  if (!hasDisplay()) return { reason: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)' };
  if (electronBinary() === null) {
    const failed = await fetchElectron();
    if (failed !== null) return { reason: failed };
  }
  return { binary: electronBinary() };
}

function openDesktop(binary, root) {
  const started_ms = Date.now();
  startChild('the desktop app', binary, [MAIN_ENTRY, root], 'inherit', (name, code, signal) => {
    const early = Date.now() - started_ms < DESKTOP_EARLY_EXIT_MS;
    if (code !== 0 && early) void serveInBrowser(root, `the desktop app ended at its start (${signal ?? code})`);
    else endedOnItsOwn(name, code, signal);
  });
}

async function serveInBrowser(root, reason) {
  try {
    const server = startChild('walscope serve', process.execPath, [CLI, 'serve', root], ['ignore', 'pipe', 'inherit']);
    const url = await firstMatch(server, /^walscope serve: (\S+)/, true);
    process.stdout.write(`walscope: the desktop window cannot open here: ${reason}; serving the same UI in your browser instead: ${url}\n`);
  } catch (error) {
    stopAll(`could not serve: ${error instanceof Error ? error.message : String(error)}`, EXIT_FAILED);
  }
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
  execFileSync(process.execPath, [path.join(REPO, 'scripts/build.mjs')], { cwd: REPO, stdio: 'inherit' });
  let root = process.argv[2];
  if (root === undefined) {
    const demo = startChild('walscope demo', process.execPath, [CLI, 'demo', '--if-missing', '--live'], ['ignore', 'pipe', 'inherit']);
    root = await firstMatch(demo, /^demo state root: (.+)$/, false);
    process.stdout.write(`walscope: the demo state root is ${root}; its live session keeps appending (\`walscope demo\` rewrites it)\n`);
  }
  const desktop = await desktopOrWhyNot();
  if (desktop.binary !== undefined) openDesktop(desktop.binary, root);
  else await serveInBrowser(root, desktop.reason);
} catch (error) {
  stopAll(`could not start: ${error instanceof Error ? error.message : String(error)}`, EXIT_FAILED);
}

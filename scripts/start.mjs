// `npm start`: the desktop app on the demo state root (written on first run, its live session appending).
// Where Electron cannot start (no display, or its binary was never fetched on an offline machine) it says so
// in one line and serves the same UI in the browser instead, printing the URL.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'bin/walscope.js');
const children = [];

function run(args) {
  execFileSync(process.execPath, args, { cwd: REPO, stdio: 'inherit' });
}

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

/** Starts a child and resolves with the first stdout line that matches. */
function startChild(args, pattern, echo) {
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const found = pattern.exec(line);
      if (found !== null) resolve(found[1]);
      else if (echo) process.stdout.write(`${line}\n`);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`)));
  });
}

function stopAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.once('SIGINT', stopAll);
process.once('SIGTERM', stopAll);

run(['scripts/build-cli.mjs']);
run(['node_modules/electron-vite/bin/electron-vite.js', 'build', '--logLevel', 'warn']);
const root = process.argv[2] ?? await startChild([CLI, 'demo', '--live'], /^demo state root: (.+)$/, false);
const electron = electronUnavailable();
if (electron.binary !== undefined) {
  const app = spawn(electron.binary, [path.join(REPO, 'out/main/index.js'), root], { cwd: REPO, stdio: 'inherit' });
  children.push(app);
  app.once('exit', stopAll);
} else {
  const url = await startChild([CLI, 'serve', root], /^walscope serve: (\S+)/, true);
  process.stdout.write(`walscope: Electron cannot start here: ${electron.reason}; serving the same UI in your browser instead: ${url}\n`);
}

// The built CLI loads the NATS client only when a command reaches the bus: loading it took ~80 ms of every
// command's start (a verify of a demo session 0.34 -> 0.27 s without it). What was loaded is read from the
// process itself (the NATS packages are CommonJS, so each one loaded is in require's cache at exit).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-cli-startup-');
const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'bin/walscope.js');
const WAL = path.join(REPO, 'test/fixtures/wal/d2-all-heads-double.wal');
/** Nothing listens on port 1: a connection there is refused at once. */
const NO_SERVER = 'nats://127.0.0.1:1';

const REPORTER = `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) => file.includes('/@nats-io/'));
  process.stderr.write('nats modules loaded: ' + loaded.length + '\\n');
});
`;

/** How many NATS modules the CLI had loaded when it exited, running `argv`. */
function natsModulesLoaded(argv: string[]): number {
  const reporter = path.join(tempDir(), 'report-modules.mjs');
  fs.writeFileSync(reporter, REPORTER);
  const run = spawnSync(process.execPath, ['--import', reporter, CLI, ...argv], { cwd: REPO, encoding: 'utf8', timeout: 30_000, env: { ...process.env, NATS_URL: '' } });
  const found = /nats modules loaded: (\d+)/.exec(run.stderr);
  expect(found, run.stderr).not.toBeNull();
  return Number(found![1]);
}

describe('the CLI start', () => {
  it('loads no NATS module for a command that does not reach the bus', () => {
    expect(natsModulesLoaded(['--help'])).toBe(0);
    expect(natsModulesLoaded(['verify', WAL])).toBe(0);
    expect(natsModulesLoaded(['replay', WAL, '--json'])).toBe(0);
    // A fleet command refused before it connects loads none either.
    expect(natsModulesLoaded(['fleet', 'ls'])).toBe(0);
  });

  it('loads the NATS client once a command connects to the bus', () => {
    expect(natsModulesLoaded(['fleet', 'ls', '--nats', NO_SERVER])).toBeGreaterThan(0);
  });
});

// `npm start` where a desktop could open, without the internet: with a display but no Electron binary it
// fetches one with Electron's installer, and a fetch that fails (the mirror is a closed port on 127.0.0.1)
// falls back to the browser within seconds, saying why in one line; a binary that is there (a stand-in that
// records its argv, written into a copy of the repository, never the real node_modules) is launched with the
// built main entry and the root, and one that dies at its start hands over to the browser too.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_SESSION_ID } from '../../src-main/demo/sessions.js';
import { probeLease } from '../../src-main/engine/lease.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { copyRepo, demoRootIn, groupEnds, startJob, userEnv, type RepoCopy } from './repo-copy.js';

const FALLBACK_WITHIN_MS = 10_000;
const BROWSER_LINE = /^walscope: the desktop window cannot open here: (.+); serving the same UI in your browser instead: (\S+)$/;

let copy: RepoCopy;

beforeAll(() => {
  copy = copyRepo();
});

afterAll(() => copy?.remove());

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A stand-in Electron: records its arguments, one a line, then exits with `code`. */
function writeStandIn(code: number): string {
  const dist = path.join(copy.repo, 'node_modules/electron/dist');
  fs.mkdirSync(dist, { recursive: true });
  const record = path.join(copy.scratch, `argv-${code}.txt`);
  fs.rmSync(path.join(dist, 'electron'), { force: true });
  fs.writeFileSync(path.join(dist, 'electron'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\nexit ${code}\n`, { mode: 0o755 });
  fs.rmSync(path.join(copy.repo, 'node_modules/electron/path.txt'), { force: true });
  fs.writeFileSync(path.join(copy.repo, 'node_modules/electron/path.txt'), 'electron');
  return record;
}

const display = (extra: Record<string, string> = {}) => userEnv(copy.scratch, { DISPLAY: ':99', electron_config_cache: path.join(copy.scratch, 'electron-cache'), ...extra });

describe('npm start on a desktop', () => {
  it('fetches Electron with its installer; a failed fetch falls back to the browser within seconds', async () => {
    const mirror = `http://127.0.0.1:${await closedPort()}/`;
    const start = startJob('npm', ['start'], copy.repo, display({ ELECTRON_MIRROR: mirror }));
    await start.waitFor(/^walscope: fetching Electron's binary with its installer/);
    const fetching_ms = Date.now();
    const line = BROWSER_LINE.exec(await start.waitFor(/^(walscope: the desktop window cannot open here: .*)$/))!;
    expect(Date.now() - fetching_ms).toBeLessThan(FALLBACK_WITHIN_MS);
    expect(line[1]).toMatch(/^Electron's binary could not be fetched: .*fetch failed/);
    expect(line[2]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?open=/);
    expect(start.lines.filter((text) => /^\s+at /.test(text))).toEqual([]); // the installer's stack is not shown
    expect([0, 'SIGINT']).toContain(await start.interrupt());
    expect(await groupEnds(start)).toBe(true);
    expect(fs.existsSync(path.join(copy.repo, 'node_modules/electron/path.txt'))).toBe(false);
  }, 120_000);

  it('launches a binary that is there with the built main entry and the demo root', async () => {
    const record = writeStandIn(0);
    const start = startJob('npm', ['start'], copy.repo, display());
    // The stand-in exits 0 at once, as closing the window does: start then stops the live session and ends.
    expect(await start.exited()).toBe(0);
    expect(await groupEnds(start)).toBe(true);
    const root = demoRootIn(copy.scratch);
    expect(fs.readFileSync(record, 'utf8')).toBe(`${path.join(copy.repo, 'out/main/index.js')}\n${root}\n`);
    expect(probeLease(sessionDir(root, LIVE_SESSION_ID)).state).toBe('free');
    expect(start.lines.some((text) => BROWSER_LINE.test(text))).toBe(false);
  }, 120_000);

  it('a desktop app that dies at its start hands over to the browser', async () => {
    const record = writeStandIn(3);
    const start = startJob('npm', ['start'], copy.repo, display());
    const line = BROWSER_LINE.exec(await start.waitFor(/^(walscope: the desktop window cannot open here: .*)$/))!;
    expect(line[1]).toBe('the desktop app ended at its start (3)');
    expect(fs.existsSync(record)).toBe(true);
    expect([0, 'SIGINT']).toContain(await start.interrupt());
    expect(await groupEnds(start)).toBe(true);
  }, 120_000);
});

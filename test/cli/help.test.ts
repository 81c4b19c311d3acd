// What a person types first: `walscope --version` (or -V) prints the version of package.json; `walscope help
// COMMAND` prints that command's own help, as `walscope COMMAND --help` does; an unknown one is a usage error.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '../..');
const cli = (...argv: string[]) => spawnSync(process.execPath, ['bin/walscope.js', ...argv], { cwd: REPO, encoding: 'utf8' });
const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };

describe('walscope --version and help COMMAND', () => {
  it('--version and -V print the version of package.json', () => {
    for (const flag of ['--version', '-V']) {
      expect(cli(flag)).toMatchObject({ status: 0, stdout: `walscope ${version}\n`, stderr: '' });
    }
  });

  it('help COMMAND prints that command\'s help, the same as COMMAND --help', () => {
    for (const name of ['verify', 'report', 'resume', 'serve']) {
      const asked = cli('help', name);
      expect(asked).toMatchObject({ status: 0, stderr: '' });
      expect(asked.stdout).toMatch(new RegExp(`^usage: walscope ${name} `));
      expect(asked.stdout).toBe(cli(name, '--help').stdout);
    }
    expect(cli('help', 'verify').stdout).not.toBe(cli('help').stdout);
  });

  it('help of an unknown command is a usage error naming it', () => {
    const asked = cli('help', 'nosuch');
    expect(asked.status).toBe(2);
    expect(asked.stdout).toBe('');
    expect(asked.stderr).toMatch(/^walscope: unknown command "nosuch"\n/);
  });
});

// The app's "Connect to a Fleet…" reads a fleet profile: the CLI's bus flags as JSON, checked the same way.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFleetProfile } from '../../src-main/fleet/profile.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-profile-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function profile(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('fleet profile', () => {
  it('reads the bus options, with file paths relative to the profile', () => {
    const read = readFleetProfile(profile('ok.json', JSON.stringify({ nats: 'tls://nats.example:4222', creds: 'keys/operator.creds', 'tls-ca': '/etc/ca.pem' })), 'app');
    expect(read).toEqual({ bus: { url: 'tls://nats.example:4222', creds: path.join(dir, 'keys/operator.creds'), user: null, password: null, tls_ca: '/etc/ca.pem', name: 'app' } });
  });

  it('says in one sentence what is wrong: not JSON, unknown fields, no server, both logins, too large, missing', () => {
    expect(readFleetProfile(profile('a.json', '{nats'), 'app')).toMatch(/not JSON$/);
    expect(readFleetProfile(profile('b.json', JSON.stringify({ nats: 'nats://x', pasword: 'p' })), 'app')).toMatch(/unknown field\(s\) pasword/);
    expect(readFleetProfile(profile('c.json', JSON.stringify({ creds: 'x.creds' })), 'app')).toMatch(/no "nats" server URL/);
    expect(readFleetProfile(profile('d.json', JSON.stringify({ nats: 'nats://x', creds: 'c', user: 'u', password: 'p' })), 'app')).toMatch(/two ways to log in/);
    expect(readFleetProfile(profile('e.json', JSON.stringify({ nats: 'nats://x', port: 4222 })), 'app')).toMatch(/unknown field/);
    expect(readFleetProfile(profile('f.json', JSON.stringify({ nats: 4222 })), 'app')).toMatch(/every field is text/);
    expect(readFleetProfile(profile('g.json', ' '.repeat(70_000)), 'app')).toMatch(/at most/);
    expect(readFleetProfile(path.join(dir, 'none.json'), 'app')).toMatch(/ENOENT/);
    // Who acts is the NATS user the profile logs in as: a name of one's own choosing is no field of it.
    expect(readFleetProfile(profile('h.json', JSON.stringify({ nats: 'nats://x', operator: 'ops-3' })), 'app')).toMatch(/unknown field\(s\) operator/);
  });
});

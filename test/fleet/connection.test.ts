// Who a connection calls as (connection.ts busUser): the name its API subjects and inbox carry, which the server's
// permissions hold it to. With a creds file it is the user JWT's name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { busUser, type BusOptions } from '../../src-main/fleet/connection.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-creds-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const bus = (options: Partial<BusOptions>): BusOptions => ({ url: 'nats://x', creds: null, user: null, password: null, tls_ca: null, name: 't', ...options });

/** A creds file as `nsc` writes one, around a JWT whose claims are `claims` (the signature is not checked here). */
function creds(name: string, claims: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const jwt = `${part({ typ: 'JWT', alg: 'ed25519-nkey' })}.${part(claims)}.c2lnbmF0dXJl`;
  const file = path.join(dir, name);
  fs.writeFileSync(file, `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n************************* IMPORTANT *************************\n\n-----BEGIN USER NKEY SEED-----\nSUAFAKESEED\n------END USER NKEY SEED------\n`);
  return file;
}

describe('busUser', () => {
  it('is --user, else the creds JWT\'s name, else anonymous', () => {
    expect(busUser(bus({ user: 'support', password: 'p' }))).toBe('support');
    expect(busUser(bus({ creds: creds('ops.creds', { name: 'ops-1', sub: 'UABC' }) }))).toBe('ops-1');
    expect(busUser(bus({}))).toBe('anonymous');
  });

  it('refuses a creds file whose JWT names no one, saying so', () => {
    expect(() => busUser(bus({ creds: creds('nameless.creds', { sub: 'UABC' }) }))).toThrow(/no user JWT with a name in it/);
    const garbage = path.join(dir, 'garbage.creds');
    fs.writeFileSync(garbage, 'not a creds file');
    expect(() => busUser(bus({ creds: garbage }))).toThrow(/no user JWT with a name in it/);
  });
});

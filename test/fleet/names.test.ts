// Host and session names become subject tokens and KV key segments that round-trip exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeToken, encodeToken, parseSessionKey, sessionKey } from '../../src-main/fleet/names.js';

const TOKEN = /^[A-Za-z0-9_=-]+$/;

describe('fleet names', () => {
  it('keeps plain names as they are and escapes the rest', () => {
    expect(encodeToken('host-1_a')).toBe('host-1_a');
    expect(encodeToken('beta.dc-1')).toBe('beta=2Edc-1');
    expect(encodeToken('a*b>c d=é')).toBe('a=2Ab=3Ec=20d=3D=C3=A9');
  });

  it('any name round-trips and never holds a dot, a wildcard or white space', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }), (name) => {
        const token = encodeToken(name);
        expect(token).toMatch(TOKEN);
        expect(decodeToken(token)).toBe(name);
      }),
    );
  });

  it('a session key splits back into host and session', () => {
    expect(parseSessionKey(sessionKey('h.1', 'sess.x'))).toEqual({ host: 'h.1', session: 'sess.x' });
  });

  it('refuses empty and over-long names and malformed tokens', () => {
    expect(() => encodeToken('')).toThrow(/empty/);
    expect(() => encodeToken('x'.repeat(201))).toThrow(/longer/);
    expect(() => decodeToken('a.b')).toThrow(/not an encoded name/);
  });
});

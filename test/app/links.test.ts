// walscope:// links (src-shared/links.ts): every target a link may name survives formatLink → linkTarget, and
// everything else is refused with its reason — an unknown, repeated or secret parameter, a relative path, a bad
// percent-encoding, a control character, another scheme or action, a link too long.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLink, LINK_CHARS_MAX, LINK_TABS, linkFragment, linkTarget, parseLink, sessionLink, type LinkProblem, type LinkTarget } from '../../src-shared/links.js';

const problemOf = (text: unknown): LinkProblem | null => {
  const parsed = parseLink(text);
  return parsed.ok ? null : parsed.error.problem;
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const OPEN = { session: null, tab: null, step: null, record: null };

describe('walscope:// links', () => {
  it('names a path, a session, a tab, a step or a record', () => {
    expect(linkTarget('walscope://open?path=%2Fsrv%2Fstate')).toEqual({ path: '/srv/state', ...OPEN });
    expect(linkTarget('walscope://open?path=/srv/state&session=s1&record=42')).toEqual({ path: '/srv/state', session: 's1', tab: null, step: null, record: 42 });
    expect(linkTarget('walscope://open?path=/srv/state&session=s1&tab=transcript')).toMatchObject({ session: 's1', tab: 'transcript' });
    expect(linkTarget('walscope://open?path=/srv/state&session=s1&episode=1&step=3')).toMatchObject({ step: { episode: 1, step_id: 3 } });
    expect(linkTarget('walscope://open?path=C%3A%5Cruns%5Cexport.wal')).toMatchObject({ path: 'C:\\runs\\export.wal' });
    expect(linkTarget('walscope://open?path=%5C%5Cnas%5Cruns')).toMatchObject({ path: '\\\\nas\\runs' });
    // As a desktop may hand it over: a slash before the query, the scheme and action in capitals.
    expect(linkTarget('WALSCOPE://Open/?path=/x')).toEqual({ path: '/x', ...OPEN });
  });

  it('writes the parameters in one order, each percent-encoded (a plus and a space too)', () => {
    const link = formatLink({ path: '/home/a b/c+d & e', session: 'sess=1&x', tab: null, step: null, record: 7 });
    expect(link).toBe('walscope://open?path=%2Fhome%2Fa%20b%2Fc%2Bd%20%26%20e&session=sess%3D1%26x&record=7');
    expect(linkTarget(link)).toEqual({ path: '/home/a b/c+d & e', session: 'sess=1&x', tab: null, step: null, record: 7 });
    // A plus in a hand-written link is a plus (RFC 3986), never a space.
    expect(linkTarget('walscope://open?path=/a+b').path).toBe('/a+b');
  });

  it('every target it may name comes back from its link as it was', () => {
    const segment = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }).filter((text) => text !== '.' && text !== '..' && !/[/\\]/.test(text) && !CONTROL.test(text));
    const path = fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => `/${parts.join('/')}`),
      fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `D:\\${parts.join('\\')}`),
    );
    const session = fc.option(fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((text) => !CONTROL.test(text)), { nil: null });
    const whole = fc.nat({ max: Number.MAX_SAFE_INTEGER });
    const target: fc.Arbitrary<LinkTarget> = fc.record({ path, session }).chain(({ path, session }): fc.Arbitrary<LinkTarget> => session === null
      ? fc.constant<LinkTarget>({ path, ...OPEN })
      : fc.oneof(
        fc.record({ tab: fc.option(fc.constantFrom(...LINK_TABS), { nil: null }) }).map(({ tab }) => ({ path, session, tab, step: null, record: null })),
        fc.record({ tab: fc.constantFrom(null, 'records' as const), record: whole }).map(({ tab, record }) => ({ path, session, tab, step: null, record })),
        fc.record({ tab: fc.constantFrom(null, 'context' as const), episode: whole, step_id: whole }).map(({ tab, episode, step_id }) => ({ path, session, tab, step: { episode, step_id }, record: null })),
      ));
    fc.assert(fc.property(target, (shown) => {
      const link = formatLink(shown);
      expect(linkTarget(link)).toEqual(shown);
      expect(formatLink(linkTarget(link))).toBe(link);
    }), { numRuns: 500 });
  });

  it('refuses what is not a walscope://open link', () => {
    expect(problemOf(42)).toBe('not_text');
    for (const text of ['javascript:alert(1)//walscope://open?path=/x', 'JavaScript:alert(1)', 'http://127.0.0.1:5173/?open=abc', 'file:///etc/passwd', '/srv/state', '']) {
      expect(problemOf(text), text).toBe('not_walscope');
    }
    for (const text of ['walscope://run?path=/x', 'walscope://user@open?path=/x', 'walscope://open:8080?path=/x', 'walscope://open/extra?path=/x', 'walscope://open?path=/x#frag', 'walscope:///open?path=/x', 'walscope:open?path=/x']) {
      expect(problemOf(text), text).toBe('not_open');
    }
  });

  it('never carries a token, a code or a port, and takes no parameter it does not know', () => {
    for (const name of ['token', 'Token', 'code', 'open', 'port']) expect(problemOf(`walscope://open?path=/x&${name}=1`), name).toBe('secret_param');
    expect(problemOf('walscope://open?path=/x&action=resume')).toBe('unknown_param');
    expect(problemOf('walscope://open?path=/x&run=1')).toBe('unknown_param');
    expect(problemOf('walscope://open?path=/x&path=/y')).toBe('repeated_param');
    expect(problemOf('walscope://open?path=/x&session=')).toBe('bad_value');
    expect(problemOf('walscope://open?path=/x&session')).toBe('bad_value');
    expect(problemOf('walscope://open?path=/x&&session=s')).toBe('unknown_param');
  });

  it('refuses a relative path, a path with . or .., and a link with no path', () => {
    expect(problemOf('walscope://open')).toBe('no_path');
    expect(problemOf('walscope://open?session=s')).toBe('no_path');
    for (const path of ['state', './state', '../state', '~/state', 'C:state', '%2Fsrv%2F..%2Fetc', '/srv/./state', 'C:%5Cruns%5C..%5Cx']) {
      expect(problemOf(`walscope://open?path=${path}`), path).toBe('relative_path');
    }
  });

  it('refuses a bad percent-encoding, raw spaces and control characters, decoded or not', () => {
    for (const query of ['path=/a%', 'path=/a%zz', 'path=/a%2', 'path=/a%FF', 'path=/a%C3%28', 'path=/a%ED%A0%80']) {
      expect(problemOf(`walscope://open?${query}`), query).toBe('bad_encoding');
    }
    expect(problemOf('walscope://open?path=/a b')).toBe('bad_encoding');
    expect(problemOf('walscope://open?path=/a\u0000')).toBe('bad_encoding');
    for (const encoded of ['%00', '%0A', '%1B%5B31m', '%C2%85', '%E2%80%AE', '%E2%80%A8']) {
      expect(problemOf(`walscope://open?path=/a${encoded}`), encoded).toBe('bad_value');
      expect(problemOf(`walscope://open?path=/a&session=s${encoded}`), encoded).toBe('bad_value');
    }
  });

  it('refuses a tab, a step or a record without a session, or two that disagree', () => {
    expect(problemOf('walscope://open?path=/x&record=3')).toBe('needs_session');
    expect(problemOf('walscope://open?path=/x&tab=records')).toBe('needs_session');
    expect(problemOf('walscope://open?path=/x&session=s&tab=timeline&record=3')).toBe('conflict');
    expect(problemOf('walscope://open?path=/x&session=s&tab=records&episode=0&step=1')).toBe('conflict');
    expect(problemOf('walscope://open?path=/x&session=s&episode=0&step=1&record=3')).toBe('conflict');
    expect(problemOf('walscope://open?path=/x&session=s&step=1')).toBe('conflict');
    expect(problemOf('walscope://open?path=/x&session=s&tab=settings')).toBe('bad_value');
    for (const number of ['-1', '01', '1.5', '1e3', '0x10', '99999999999999999', ' 1']) {
      expect(problemOf(`walscope://open?path=/x&session=s&record=${encodeURIComponent(number)}`), number).toBe('bad_value');
    }
  });

  it('refuses a link too long before reading it, and a path or session over its own limit', () => {
    expect(problemOf(`walscope://open?path=/${'a'.repeat(LINK_CHARS_MAX)}`)).toBe('too_long');
    expect(problemOf(`walscope://open?path=/${'a'.repeat(5_000)}`)).toBe('too_long');
    expect(problemOf(`walscope://open?path=/x&session=${'s'.repeat(5_000)}`)).toBe('bad_value');
    expect(() => formatLink({ path: `/${'%'.repeat(5_000)}`, ...OPEN })).toThrow(/at most/);
  });

  it('hostile text never makes a link the parser takes for more than it says', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (tail) => {
      const parsed = parseLink(`walscope://open?${tail}`);
      if (!parsed.ok) return;
      expect(parsed.target.path.startsWith('/') || /^[A-Za-z]:[\\/]|^\\\\/.test(parsed.target.path)).toBe(true);
      expect(Object.keys(parsed.target).sort()).toEqual(['path', 'record', 'session', 'step', 'tab']);
    }), { numRuns: 2_000 });
  });

  it('a session link is null where there can be none (a relative path, a fleet\'s URL)', () => {
    expect(sessionLink('/srv/state', 's1')).toBe('walscope://open?path=%2Fsrv%2Fstate&session=s1');
    expect(sessionLink('/srv/state', 's1', { record: 4 })).toBe('walscope://open?path=%2Fsrv%2Fstate&session=s1&record=4');
    expect(sessionLink('nats://bus:4222', 'alpha/s1')).toBeNull();
    expect(sessionLink('state', 's1')).toBeNull();
    expect(sessionLink('/srv/state', 'half \uD800 a pair')).toBeNull();
    expect(sessionLink('/srv/\uDC00', 's1')).toBeNull();
  });

  it('becomes the renderer\'s fragment: the session, and the tab that shows what it names', () => {
    expect(linkFragment({ session: null, tab: null, step: null, record: null })).toBe('');
    expect(linkFragment({ session: 'a b', tab: null, step: null, record: null })).toBe('session=a%20b');
    expect(linkFragment({ session: 's', tab: null, step: null, record: 9 })).toBe('session=s&tab=records&record=9');
    expect(linkFragment({ session: 's', tab: null, step: { episode: 1, step_id: 2 }, record: null })).toBe('session=s&tab=context&episode=1&step=2');
    expect(linkFragment({ session: 's', tab: 'time', step: null, record: null })).toBe('session=s&tab=time');
  });
});

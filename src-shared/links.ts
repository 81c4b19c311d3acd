// `walscope://` links (docs/share.md, "Links"): an address that names what to open — a path, and in it a session,
// a tab, a step or a record — and nothing else. `walscope://open?path=/srv/state&session=s1&record=42`.
//
// A link only opens, read-only: it carries no token, no port and no action, and opening one never triggers an
// action (the desktop app opens its path as File › Open does, and shows what it names). The parser is strict so a
// link means one thing everywhere: an unknown, repeated or empty parameter, a relative path, a bad
// percent-encoding or a control character refuses the whole link with a typed reason, never a guess.
//
// Pure and runtime-free (src-shared: neither the DOM's URL nor Node's): the Electron handler, the renderer's
// "Copy link", the served page and the alerts all build and read links here.

/** The tabs a link may name: the session view's (src-renderer/location.ts). */
export const LINK_TABS = ['timeline', 'records', 'transcript', 'context', 'time'] as const;
export type LinkTab = (typeof LINK_TABS)[number];

export const LINK_SCHEME = 'walscope';
/** The one thing a link does. */
export const LINK_ACTION = 'open';
/** A link longer than this is refused unread (a path is at most LINK_PATH_CHARS_MAX, a key its own maximum). */
export const LINK_CHARS_MAX = 16_384;
export const LINK_PATH_CHARS_MAX = 4_096;
export const LINK_SESSION_CHARS_MAX = 4_096;

/** What a link names. `session` is the session's key in the workspace `path` opens (its id in a state root, the file
 *  name for an export); `tab`, `step` and `record` need a session. A record (by seq) is shown in the Records tab,
 *  a step in the Context view: `tab` may only say so again. */
export interface LinkTarget {
  path: string;
  session: string | null;
  tab: LinkTab | null;
  step: { episode: number; step_id: number } | null;
  record: number | null;
}

export type LinkProblem =
  | 'not_text'
  | 'too_long'
  | 'not_walscope'
  | 'not_open'
  | 'bad_encoding'
  | 'unknown_param'
  | 'secret_param'
  | 'repeated_param'
  | 'bad_value'
  | 'no_path'
  | 'relative_path'
  | 'needs_session'
  | 'conflict';

/** Why a link is refused: `problem` for code, `message` for a person (it quotes nothing of the link but names). */
export class LinkError extends Error {
  override name = 'LinkError';
  constructor(
    readonly problem: LinkProblem,
    message: string,
  ) {
    super(message);
  }
}

export type LinkParse = { ok: true; target: LinkTarget } | { ok: false; error: LinkError };

/** The parameters a link may carry, in the order formatLink writes them. */
const PARAMS = ['path', 'session', 'tab', 'episode', 'step', 'record'] as const;
type Param = (typeof PARAMS)[number];
/** Names a link must never carry: what opens a served page (its token, its one-use code, its port) is never in one. */
const SECRET_PARAMS = new Set(['token', 'code', 'open', 'port', 'host', 'password', 'secret', 'key', 'auth']);

// C0 and C1 controls, DEL, line and paragraph separators, bidi overrides and isolates: nothing in a link may steer
// a terminal or reorder a line it is shown in.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** A UTF-16 surrogate without its pair: no UTF-8 encodes it, so no link can carry it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const WHOLE_NUMBER = /^(0|[1-9][0-9]{0,15})$/;

/** The link's target, or why it is refused (never throws). */
export function parseLink(text: unknown): LinkParse {
  try {
    return { ok: true, target: linkTarget(text) };
  } catch (error) {
    if (error instanceof LinkError) return { ok: false, error };
    throw error;
  }
}

/** The link's target; a LinkError says why not. */
export function linkTarget(text: unknown): LinkTarget {
  if (typeof text !== 'string') throw new LinkError('not_text', 'a link is text');
  if (text.length > LINK_CHARS_MAX) throw new LinkError('too_long', `a link is at most ${LINK_CHARS_MAX} characters; this one is ${text.length}`);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text);
  if (scheme === null || scheme[1]!.toLowerCase() !== LINK_SCHEME) throw new LinkError('not_walscope', `not a ${LINK_SCHEME}:// link`);
  // Raw controls and spaces are never part of a URL: a link that holds one was not made by formatLink.
  if (CONTROL.test(text) || /\s/.test(text)) throw new LinkError('bad_encoding', 'a link holds no spaces or control characters: they are percent-encoded');
  // walscope://open?… (some desktops add a slash before the query: walscope://open/?…). No user, port, path,
  // fragment or other action.
  const rest = text.slice(scheme[0].length);
  const shape = /^\/\/([^/?#]*)\/?(?:\?([^#]*))?$/.exec(rest);
  if (shape === null || shape[1]!.toLowerCase() !== LINK_ACTION) throw new LinkError('not_open', `a ${LINK_SCHEME}:// link is ${LINK_SCHEME}://${LINK_ACTION}?path=…, with no fragment: it only opens`);
  const values = queryValues(shape[2] ?? '');
  return checkedTarget({
    path: values.get('path') ?? null,
    session: values.get('session') ?? null,
    tab: tabOf(values.get('tab')),
    step: stepOf(values.get('episode'), values.get('step')),
    record: numberOf('record', values.get('record')),
  });
}

/** The link to `target` (checked as a parsed link is: formatLink never makes a link parseLink refuses). */
export function formatLink(target: LinkTarget): string {
  const checked = checkedTarget(target);
  const values: [Param, string | null][] = [
    ['path', checked.path],
    ['session', checked.session],
    ['tab', checked.tab],
    ['episode', checked.step === null ? null : String(checked.step.episode)],
    ['step', checked.step === null ? null : String(checked.step.step_id)],
    ['record', checked.record === null ? null : String(checked.record)],
  ];
  const query = values.filter((entry): entry is [Param, string] => entry[1] !== null).map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  const link = `${LINK_SCHEME}://${LINK_ACTION}?${query}`;
  if (link.length > LINK_CHARS_MAX) throw new LinkError('too_long', `the link would be ${link.length} characters, over ${LINK_CHARS_MAX}`);
  return link;
}

/** The link to a session of the workspace at `path`, or null when it cannot be one (a relative path, a fleet's URL,
 *  a name with a control character): what an alert and "Copy link" carry. */
export function sessionLink(path: string, session: string | null, more: Partial<Omit<LinkTarget, 'path' | 'session'>> = {}): string | null {
  try {
    return formatLink({ path, session, tab: null, step: null, record: null, ...more });
  } catch (error) {
    if (error instanceof LinkError) return null;
    throw error;
  }
}

/** The renderer's address fragment (src-renderer/location.ts) that shows what `target` names in its workspace:
 *  `session=KEY&tab=…&record=SEQ` (empty: the workspace's overview). */
export function linkFragment(target: Omit<LinkTarget, 'path'>): string {
  if (target.session === null) return '';
  const parts: string[] = [`session=${encodeURIComponent(target.session)}`];
  const tab = target.record !== null ? 'records' : target.step !== null ? 'context' : target.tab;
  if (tab !== null) parts.push(`tab=${tab}`);
  if (target.step !== null) parts.push(`episode=${target.step.episode}`, `step=${target.step.step_id}`);
  if (target.record !== null) parts.push(`record=${target.record}`);
  return parts.join('&');
}

/** Whether `path` is absolute: POSIX (`/…`), a Windows drive (`C:\…`, `C:/…`) or a UNC share (`\\server\share`). A
 *  link is opened by a process whose working folder means nothing to whoever made it: a relative path is refused. */
export function isAbsoluteLinkPath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || /^\\\\[^\\]/.test(path);
}

/** The query's values by name: each parameter at most once, known, not empty, percent-encoded well (UTF-8). `+` is
 *  a plus, as in a path (RFC 3986; formatLink encodes it, and a space, as %2B and %20). */
function queryValues(query: string): Map<Param, string> {
  const values = new Map<Param, string>();
  if (query === '') return values;
  for (const part of query.split('&')) {
    const at = part.indexOf('=');
    const raw_name = at < 0 ? part : part.slice(0, at);
    const name = decoded(raw_name, 'a parameter name');
    if (SECRET_PARAMS.has(name.toLowerCase())) throw new LinkError('secret_param', `a link never carries "${name}": it opens the path in the app, and needs no token, code or port`);
    if (!(PARAMS as readonly string[]).includes(name)) throw new LinkError('unknown_param', `a link takes only ${PARAMS.join(', ')}; not "${name.slice(0, 40)}"`);
    const param = name as Param;
    if (values.has(param)) throw new LinkError('repeated_param', `"${param}" is given twice`);
    if (at < 0 || at === part.length - 1) throw new LinkError('bad_value', `"${param}" has no value`);
    values.set(param, decoded(part.slice(at + 1), `"${param}"`));
  }
  return values;
}

function decoded(raw: string, what: string): string {
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) throw new LinkError('bad_encoding', `${what} has a % that is not followed by two hex digits`);
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw new LinkError('bad_encoding', `${what} is not percent-encoded UTF-8`);
  }
  if (CONTROL.test(value)) throw new LinkError('bad_value', `${what} holds a control character`);
  return value;
}

function tabOf(value: string | undefined): LinkTab | null {
  if (value === undefined) return null;
  if (!(LINK_TABS as readonly string[]).includes(value)) throw new LinkError('bad_value', `"tab" is one of ${LINK_TABS.join(', ')}`);
  return value as LinkTab;
}

function numberOf(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  const number = Number(value);
  if (!WHOLE_NUMBER.test(value) || !Number.isSafeInteger(number)) throw new LinkError('bad_value', `"${name}" is a whole number ≥ 0`);
  return number;
}

function stepOf(episode: string | undefined, step: string | undefined): LinkTarget['step'] {
  if (episode === undefined && step === undefined) return null;
  if (episode === undefined || step === undefined) throw new LinkError('conflict', 'a step is named by "episode" and "step" together');
  return { episode: numberOf('episode', episode)!, step_id: numberOf('step', step)! };
}

/** `target` as a link may name it, or the LinkError that says why not (for parseLink and formatLink alike). */
function checkedTarget(target: { path: unknown; session: unknown; tab: unknown; step: unknown; record: unknown }): LinkTarget {
  const { path, session, tab, step, record } = target;
  if (typeof path !== 'string' || path.length === 0) throw new LinkError('no_path', 'a link names the path to open ("path")');
  if (path.length > LINK_PATH_CHARS_MAX) throw new LinkError('too_long', `"path" is at most ${LINK_PATH_CHARS_MAX} characters`);
  if (CONTROL.test(path) || LONE_SURROGATE.test(path)) throw new LinkError('bad_value', '"path" holds a control character or a lone surrogate');
  if (!isAbsoluteLinkPath(path)) throw new LinkError('relative_path', '"path" is absolute: a link is opened by a process whose working folder is not the one it was made in');
  if (path.split(/[\\/]/).some((segment) => segment === '.' || segment === '..')) throw new LinkError('relative_path', '"path" has no . or .. segment: a link names its folder as it is');
  if (session !== null && (typeof session !== 'string' || session.length === 0 || session.length > LINK_SESSION_CHARS_MAX || CONTROL.test(session) || LONE_SURROGATE.test(session))) {
    throw new LinkError('bad_value', `"session" is a session key of 1 to ${LINK_SESSION_CHARS_MAX} characters, no control characters`);
  }
  if (tab !== null && !(LINK_TABS as readonly unknown[]).includes(tab)) throw new LinkError('bad_value', `"tab" is one of ${LINK_TABS.join(', ')}`);
  if (record !== null && !(Number.isSafeInteger(record) && (record as number) >= 0)) throw new LinkError('bad_value', '"record" is a whole number ≥ 0');
  const checked_step = step as LinkTarget['step'];
  if (checked_step !== null && !(typeof checked_step === 'object' && Number.isSafeInteger(checked_step.episode) && checked_step.episode >= 0 && Number.isSafeInteger(checked_step.step_id) && checked_step.step_id >= 0)) {
    throw new LinkError('bad_value', '"episode" and "step" are whole numbers ≥ 0');
  }
  if (session === null && (tab !== null || checked_step !== null || record !== null)) throw new LinkError('needs_session', 'a tab, a step or a record is one of a session\'s: name the "session"');
  if (record !== null && checked_step !== null) throw new LinkError('conflict', 'a link names a step or a record, not both');
  if (record !== null && tab !== null && tab !== 'records') throw new LinkError('conflict', 'a record is shown in the records tab');
  if (checked_step !== null && tab !== null && tab !== 'context') throw new LinkError('conflict', 'a step is shown in the context tab');
  return {
    path,
    session: session as string | null,
    tab: tab as LinkTab | null,
    step: checked_step === null ? null : { episode: checked_step.episode, step_id: checked_step.step_id },
    record: record as number | null,
  };
}

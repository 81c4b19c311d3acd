// Reads a nats-server configuration as the server does for what the sample uses (maps, arrays, quoted and bare
// strings, `:` or `=`, commas optional, `#` comments), and judges a subject against a user's permissions as the
// server does: allowed when an allow pattern matches and no deny pattern does (`*` one token, `>` the rest).
export type ConfValue = string | ConfValue[] | { [key: string]: ConfValue };

const TOKEN = /\s+|#[^\n]*|"((?:[^"\\]|\\.)*)"|([{}[\]:=,])|([^\s{}[\]:=,#"]+)/y;

type Token = { kind: 'string'; text: string } | { kind: 'punct'; text: string };

function tokens(text: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (match === null) throw new Error(`cannot read the config at offset ${at}`);
    if (match[1] !== undefined) out.push({ kind: 'string', text: JSON.parse(`"${match[1]}"`) as string });
    else if (match[2] !== undefined) out.push({ kind: 'punct', text: match[2] });
    else if (match[3] !== undefined) out.push({ kind: 'string', text: match[3] });
  }
  return out;
}

export function parseServerConf(text: string): { [key: string]: ConfValue } {
  const list = tokens(text);
  let at = 0;
  const peek = () => list[at];
  const punct = (text: string) => peek()?.kind === 'punct' && peek()!.text === text;
  const value = (): ConfValue => {
    const token = list[at++];
    if (token === undefined) throw new Error('the config ends inside a value');
    if (token.kind === 'string') return token.text;
    if (token.text === '{') return map('}');
    if (token.text === '[') {
      const items: ConfValue[] = [];
      while (!punct(']')) {
        items.push(value());
        if (punct(',')) at += 1;
      }
      at += 1;
      return items;
    }
    throw new Error(`unexpected "${token.text}"`);
  };
  const map = (close: string | null): { [key: string]: ConfValue } => {
    const fields: { [key: string]: ConfValue } = {};
    while (at < list.length && !(close !== null && punct(close))) {
      const key = list[at++]!;
      if (key.kind !== 'string') throw new Error(`expected a key, found "${key.text}"`);
      if (punct(':') || punct('=')) at += 1;
      fields[key.text] = value();
      if (punct(',')) at += 1;
    }
    if (close !== null) at += 1;
    return fields;
  };
  return map(null);
}

function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

export interface UserPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[]; deny: string[] };
}

/** Each user's permissions in a parsed config (`authorization.users`). */
export function usersOf(conf: { [key: string]: ConfValue }): Map<string, UserPermissions> {
  const users = new Map<string, UserPermissions>();
  const list = (value: ConfValue | undefined): string[] => (value === undefined ? [] : (value as string[]));
  const side = (value: ConfValue | undefined) => {
    const fields = (value ?? {}) as { [key: string]: ConfValue };
    return { allow: list(fields['allow']), deny: list(fields['deny']) };
  };
  for (const entry of (conf['authorization'] as { [key: string]: ConfValue })['users'] as { [key: string]: ConfValue }[]) {
    const permissions = (entry['permissions'] ?? {}) as { [key: string]: ConfValue };
    users.set(entry['user'] as string, { publish: side(permissions['publish']), subscribe: side(permissions['subscribe']) });
  }
  return users;
}

/** Whether the server lets a user with `side`'s patterns use `subject`. */
export function allowed(side: { allow: string[]; deny: string[] }, subject: string): boolean {
  return side.allow.some((pattern) => matches(pattern, subject)) && !side.deny.some((pattern) => matches(pattern, subject));
}

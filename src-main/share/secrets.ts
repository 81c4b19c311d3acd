// The secrets a share redacts by default, found by secretlint's recommended rule preset (a maintained set: cloud
// and SaaS API keys, tokens, private keys, basic-auth URLs, connection strings) and by two patterns of ours for
// what that preset does not look for: bearer tokens (an Authorization header's) and e-mail addresses
// (docs/share.md, "Secrets"). secretlint lints asynchronously, so every text is scanned before anything is
// redacted, in chunks of many texts joined by newlines, each hit mapped back to its text.
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';

export interface SecretHit {
  start: number;
  end: number;
  rule: string;
}

export const SECRET_RULES = '@secretlint/secretlint-rule-preset-recommend 13.0.7, walscope/bearer-token, walscope/email';

/** Texts joined into one lint of about this many characters. */
const SCAN_CHUNK_CHARS_MAX = 4 * 1_048_576;

/** Our own patterns, for what the preset does not cover. */
const OWN_PATTERNS: { rule: string; pattern: RegExp }[] = [
  // RFC 6750's b64token after "Bearer ", 16 characters or more (shorter is a word, not a token).
  { rule: 'walscope/bearer-token', pattern: /\bBearer\s+([A-Za-z0-9\-._~+/]{16,}=*)/g },
  // The WHATWG's valid e-mail address (input type=email), with a dot in the domain.
  { rule: 'walscope/email', pattern: /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+/g },
];

/** The secrets in each of `texts` (only texts with one are in the map). */
export async function scanSecrets(texts: Iterable<string>): Promise<Map<string, SecretHit[]>> {
  const found = new Map<string, SecretHit[]>();
  let chunk: string[] = [];
  let chars = 0;
  for (const text of texts) {
    ownHits(text, found);
    chunk.push(text);
    chars += text.length + 1;
    if (chars >= SCAN_CHUNK_CHARS_MAX) {
      await lintChunk(chunk, found);
      chunk = [];
      chars = 0;
    }
  }
  if (chunk.length > 0) await lintChunk(chunk, found);
  for (const hits of found.values()) hits.sort((a, b) => a.start - b.start);
  return found;
}

function ownHits(text: string, found: Map<string, SecretHit[]>): void {
  for (const { rule, pattern } of OWN_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const secret = match[1] ?? match[0];
      const start = match.index + match[0].length - secret.length;
      add(found, text, { start, end: start + secret.length, rule });
    }
  }
}

async function lintChunk(texts: readonly string[], found: Map<string, SecretHit[]>): Promise<void> {
  const content = texts.join('\n');
  const result = await lintSource({
    source: { content, filePath: 'walscope-share.txt', ext: '.txt', contentType: 'text' },
    options: { config: { rules: [{ id: recommended.meta.id, rule: recommended }] }, maskSecrets: false },
  });
  const starts: number[] = [];
  let at = 0;
  for (const text of texts) {
    starts.push(at);
    at += text.length + 1;
  }
  for (const message of result.messages) {
    const [start, end] = message.range;
    const index = textAt(starts, start);
    const text = texts[index]!;
    const from = start - starts[index]!;
    // A hit across two texts (a pattern that spans the newline between them) is clipped to the first.
    add(found, text, { start: from, end: Math.min(end - starts[index]!, text.length), rule: message.ruleId });
  }
}

/** The index of the text that the joined content's character `offset` is in. */
function textAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

function add(found: Map<string, SecretHit[]>, text: string, hit: SecretHit): void {
  if (hit.end <= hit.start) return;
  const hits = found.get(text);
  if (hits === undefined) found.set(text, [hit]);
  else if (!hits.some((other) => other.start === hit.start && other.end === hit.end)) hits.push(hit);
}

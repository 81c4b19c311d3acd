// Text helpers for the human outputs of the CLI (byte sizes come from src-shared/format.ts).

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

/** WAL content is untrusted: control characters are shown escaped, never sent to the terminal raw. */
export function printable(text: string, length_max: number): string {
  // eslint-disable-next-line no-control-regex
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > length_max ? `${escaped.slice(0, length_max - 1)}…` : escaped;
}

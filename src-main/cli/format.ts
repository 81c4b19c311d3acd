// Small text formatting helpers shared by the human outputs of the CLI.

export function formatBytes(size_bytes: number): string {
  if (size_bytes < 1024) return `${size_bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = size_bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

/** WAL content is untrusted: control characters are shown escaped, never sent to the terminal raw. */
export function printable(text: string, length_max: number): string {
  // eslint-disable-next-line no-control-regex
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > length_max ? `${escaped.slice(0, length_max - 1)}…` : escaped;
}

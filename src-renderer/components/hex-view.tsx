// Raw frame bytes, 16 a line with offsets and printable ASCII, as text (focusable: a keyboard scrolls it too).
const BYTES_PER_LINE = 16;

export function HexView({ hex, base_offset, truncated }: { hex: string; base_offset: number; truncated: boolean }) {
  const lines: string[] = [];
  for (let at = 0; at < hex.length; at += BYTES_PER_LINE * 2) {
    const chunk = hex.slice(at, at + BYTES_PER_LINE * 2);
    const bytes = chunk.match(/../g) ?? [];
    const ascii = bytes.map((pair) => {
      const code = parseInt(pair, 16);
      return code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : '.';
    }).join('');
    lines.push(`${(base_offset + at / 2).toString(16).padStart(8, '0')}  ${bytes.join(' ').padEnd(BYTES_PER_LINE * 3 - 1)}  ${ascii}`);
  }
  return (
    <pre className="hex" tabIndex={0} data-testid="hex-view">
      {lines.join('\n')}
      {truncated ? '\n… (cut: the frame is larger than shown)' : ''}
    </pre>
  );
}

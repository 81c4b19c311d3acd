// `walscope dump PATH [--json] [--from SEQ] [--type T]`: every frame of one WAL, like pg_waldump. Read-only;
// each frame is written out before the next is read (fd-output.ts), so a 1 GiB WAL streams in the memory of
// one frame, at the pace of whoever reads the output, and `dump | head` stops quietly when head does.
import { toJsonValue } from '../../src-shared/json.js';
import type { CborValue, ReadFrame } from '../../src-shared/wal.js';
import { readTarget } from '../engine/index.js';
import { EXIT_OK, EXIT_READER_GONE, EXIT_REFUSED, parseCommandArgs, UsageError, type Command } from './command.js';
import { FdOutput, OutputClosedError } from './fd-output.js';
import { printable, terminalSafe, textLines } from './format.js';
import { singleTarget } from './targets.js';

const SUMMARY_CHARS_MAX = 96;
const STDOUT_FD = 1;

export const dumpCommand: Command = {
  summary: 'list every frame of one WAL (read-only)',
  usage: 'walscope dump PATH [--json] [--from SEQ] [--type T]',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      json: { type: 'boolean' },
      from: { type: 'string' },
      type: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one PATH (a WAL file or a session folder)');
    const from_seq = values.from === undefined ? 0 : Number(values.from);
    if (!Number.isSafeInteger(from_seq) || from_seq < 0) throw new UsageError(`--from takes a sequence number, not "${values.from}"`);
    const target = singleTarget(positionals[0]!, 'dump');
    let reached = from_seq === 0;
    const print = values.json ? jsonLine : textLine;
    const out = new FdOutput(STDOUT_FD);
    if (!values.json) out.write(`${'offset'.padStart(12)}  ${'seq'.padStart(8)} ver ${'fence'.padStart(5)}  type / features / size / payload\n`);
    // The reader reports an exception thrown from on_frame as a failed read of the WAL, so a failed write is
    // kept here and judged after the read: a closed output ends the command quietly, with the status main.ts
    // gives every command whose reader went away; any other write error is the output's failure, not the WAL's.
    let write_error: unknown = null;
    const emit = (text: string) => {
      try {
        out.write(text);
      } catch (error) {
        write_error = error;
        throw error;
      }
    };
    const result = readTarget(target, {
      on_frame(frame) {
        reached ||= frame.seq >= from_seq;
        if (!reached || (values.type !== undefined && frame.type !== values.type)) return;
        emit(print(frame));
      },
    });
    if (write_error === null) {
      try {
        out.flush();
      } catch (error) {
        write_error = error;
      }
    }
    if (write_error instanceof OutputClosedError) return EXIT_READER_GONE;
    if (write_error !== null) throw write_error;
    const notes: string[] = [];
    if (result.torn_tail !== null) {
      notes.push(`torn tail: ${result.torn_tail.bytes} bytes at offset ${result.torn_tail.offset} (${result.torn_tail.reason}) not shown: never committed`);
    }
    if (result.in_progress_tail !== null) notes.push(`tail in progress at offset ${result.in_progress_tail.offset}`);
    if (result.error !== null) notes.push(`REFUSED: ${result.error.kind}: ${result.error.message}`);
    if (notes.length > 0) process.stderr.write(textLines(notes));
    return result.error === null ? EXIT_OK : EXIT_REFUSED;
  },
};

/** One frame as one JSON line, with exactly the fields of ReadFrame (docs/wal-format.md, "dump --json"):
 *  named one by one, so a field the reader keeps for itself never becomes part of the output. terminalSafe is
 *  lossless on JSON (format.ts); it is applied here because this output bypasses main.ts's stdout guard. */
function jsonLine(frame: ReadFrame): string {
  const { offset, size_bytes, digest_algorithm, ver, seq, fence, type, features, payload } = frame;
  const line = { offset, size_bytes, digest_algorithm, ver, seq, fence, type, features, payload: payload === null ? null : toJsonValue(payload) };
  return `${terminalSafe(JSON.stringify(line))}\n`;
}

function textLine(frame: ReadFrame): string {
  const features = frame.features.length > 0 ? ` [${frame.features.join(',')}]` : '';
  const summary = frame.payload === null ? '' : summarize(frame.payload);
  return textLines([`${String(frame.offset).padStart(12)}  ${String(frame.seq).padStart(8)} ${String(frame.ver).padStart(3)} ${String(frame.fence).padStart(5)}  ${printable(frame.type, 40)}${features} ${frame.size_bytes}B  ${summary}`]);
}

/** key=value for scalars, [n] for arrays, {…} for maps; untrusted text is escaped and cut short. */
function summarize(payload: { [key: string]: CborValue }): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(payload)) parts.push(`${printable(key, 32)}=${summarizeValue(value)}`);
  return printable(parts.join(' '), SUMMARY_CHARS_MAX);
}

function summarizeValue(value: CborValue): string {
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex').slice(0, 16)}${value.length > 8 ? '…' : ''}`;
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value !== null && typeof value === 'object') return '{…}';
  if (typeof value === 'string') return JSON.stringify(value.length > 24 ? `${value.slice(0, 23)}…` : value);
  return String(value);
}

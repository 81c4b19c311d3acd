// `walscope dump PATH [--json] [--from SEQ] [--type T]`: every frame of one WAL, like pg_waldump. Read-only;
// frames are printed as they are read, so a 1 GiB WAL streams instead of filling memory.
import { toJsonValue } from '../../src-shared/json.js';
import type { CborValue, ReadFrame } from '../../src-shared/wal.js';
import { readTarget } from '../engine/inspect.js';
import { EXIT_OK, EXIT_REFUSED, parseCommandArgs, UsageError, type Command } from './command.js';
import { printable } from './format.js';
import { singleTarget } from './targets.js';

const SUMMARY_CHARS_MAX = 96;

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
    if (!values.json) process.stdout.write(`${'offset'.padStart(12)}  ${'seq'.padStart(8)} ver ${'fence'.padStart(5)}  type / features / size / payload\n`);
    const result = readTarget(target, {
      on_frame(frame) {
        reached ||= frame.seq >= from_seq;
        if (!reached || (values.type !== undefined && frame.type !== values.type)) return;
        process.stdout.write(print(frame));
      },
    });
    if (result.torn_tail !== null) {
      process.stderr.write(`torn tail: ${result.torn_tail.bytes} bytes at offset ${result.torn_tail.offset} (${result.torn_tail.reason}) not shown: never committed\n`);
    }
    if (result.in_progress_tail !== null) process.stderr.write(`tail in progress at offset ${result.in_progress_tail.offset}\n`);
    if (result.error !== null) {
      process.stderr.write(`REFUSED: ${result.error.kind}: ${result.error.message}\n`);
      return EXIT_REFUSED;
    }
    return EXIT_OK;
  },
};

function jsonLine(frame: ReadFrame): string {
  const { payload, ...rest } = frame;
  return `${JSON.stringify({ ...rest, payload: payload === null ? null : toJsonValue(payload) })}\n`;
}

function textLine(frame: ReadFrame): string {
  const features = frame.features.length > 0 ? ` [${frame.features.join(',')}]` : '';
  const summary = frame.payload === null ? '' : summarize(frame.payload);
  return `${String(frame.offset).padStart(12)}  ${String(frame.seq).padStart(8)} ${String(frame.ver).padStart(3)} ${String(frame.fence).padStart(5)}  ${printable(frame.type, 40)}${features} ${frame.size_bytes}B  ${summary}\n`;
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

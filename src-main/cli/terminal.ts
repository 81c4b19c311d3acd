// What reaches the terminal. Every write of stdout and stderr passes terminalSafe (main.ts guards both streams
// once), whichever command or library made it: WAL text is untrusted. The one way past the guard is a prompt's
// line editing: readline moves the cursor and clears the line with escape sequences of its own, and escaped
// they printed as text ("\u001b[1G\u001b[0Jreason…"). Its question is escaped here instead, so WAL text in one
// stays text.
import readline from 'node:readline/promises';
import { oneLine, terminalSafe } from './format.js';

type Write = NodeJS.WriteStream['write'];

/** Each guarded stream's own write, for prompts only. */
const unguarded = new WeakMap<NodeJS.WriteStream, Write>();

/** Routes every write of `stream` through terminalSafe. Bytes pass as they are (writeOut's raw output). */
export function guardStream(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  unguarded.set(stream, write as Write);
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === 'string' ? terminalSafe(chunk) : chunk, ...rest)) as Write;
}

/** `stream` as readline sees it: the same terminal (size, resize events, isTTY), its writes unguarded. */
function promptOutput(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = unguarded.get(stream) ?? stream.write.bind(stream);
  return new Proxy(stream, {
    get(target, key) {
      if (key === 'write') return write;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Asks `question` on the terminal; the answer trimmed, or null when stdin is no terminal (a script passes
 *  --yes and --reason instead) or the person pressed Ctrl+C. */
export async function ask(question: string): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  const prompt = readline.createInterface({ input: process.stdin, output: promptOutput(process.stdout) });
  try {
    return (await prompt.question(oneLine(question))).trim();
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
    process.stdout.write('\n');
    return null;
  } finally {
    prompt.close();
  }
}

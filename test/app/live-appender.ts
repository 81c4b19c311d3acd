// Child: holds a session's lease like a live runtime, and appends one steered record (synced) for every line
// it reads on stdin, printing the new seq. Exits when stdin closes.
import readline from 'node:readline';
import { openSessionForWrite } from '../../src-main/engine/session.js';

const [root, session_id] = process.argv.slice(2);
if (root === undefined || session_id === undefined) throw new Error('usage: live-appender.ts <root> <session_id>');
const session = openSessionForWrite(root, session_id, { writer_name: 'live-appender' });
process.stdout.write(`ready ${process.pid}\n`);
let count = 0;
readline.createInterface({ input: process.stdin }).on('line', () => {
  count += 1;
  const { seq } = session.writer.append('steered', { title: `live ${count}`, input: [{ role: 'user', content: [{ type: 'text', text: `live append ${count}` }] }] });
  session.writer.barrier();
  process.stdout.write(`${seq}\n`);
}).on('close', () => {
  session.close();
  process.exit(0);
});

// A state root with the sessions the app's tests look at, written with the engine's writer. It stands in for
// `walscope demo` in these tests: each session is one state a user meets.
import fs from 'node:fs';
import path from 'node:path';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { withSession, writeFinished, writeIndeterminate } from './wal-fixture.js';

export const XSS_TEXT = '<img src=x onerror="window.__walscope_xss=1"> see javascript:window.__walscope_xss=2';

export function writeDemoRoot(root: string): void {
  fs.mkdirSync(root, { recursive: true });
  writeFinished(root, 'finished');
  writeIndeterminate(root, 'indeterminate');
  writeHeld(root, 'held');
  writeFinished(root, 'torn', 'about to tear');
  fs.appendFileSync(walPath(sessionDir(root, 'torn')), Buffer.from('BWAL\x01\x01\x00\x00\x40\x00\x00\x00torn'));
  writeFinished(root, 'corrupt', 'will be damaged');
  corruptMiddle(walPath(sessionDir(root, 'corrupt')));
  writeFinished(root, 'xss', XSS_TEXT);
  writeFinished(root, 'live', 'the live session starts here');
}

/** A sequential batch whose first call the provider holds; the second waits behind it. */
function writeHeld(root: string, session_id: string): void {
  withSession(root, session_id, (append) => {
    append('run_started', { run_id: 'run-held', session: session_id, config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'deploy then notify' }] }] });
    append('model_step_finished', {
      step_id: 1,
      assistant_message: { role: 'assistant', content: [
        { type: 'tool_use', id: 'deploy-1', name: 'deploy', input: {} },
        { type: 'tool_use', id: 'notify-2', name: 'notify', input: {} },
      ] },
      usage: { input_tokens: 9, output_tokens: 4 },
    });
    append('tool_batch_started', { batch_id: 'hb', step_id: 1, sequential: true, planned_calls: [
      { tool_call_id: 'deploy-1', name: 'deploy', plan: 'dispatch' },
      { tool_call_id: 'notify-2', name: 'notify', plan: 'dispatch' },
    ] });
    append('tool_dispatch_intent', { batch_id: 'hb', tool_call_id: 'deploy-1', args: { env: 'prod' } });
    append('tool_dispatch_intent', { batch_id: 'hb', tool_call_id: 'notify-2', args: { channel: '#ops' } });
    append('tool_call_provider_held', { batch_id: 'hb', tool_call_id: 'deploy-1', call_key: 'ck-deploy', module: 'deployer', reason: 'approval at provider', held_at_ms: 1_700_000_000_000, sequential: true });
    append('run_paused', { run_id: 'run-held', reason: 'tool_held' });
  });
}

/** Flips a byte inside the second record frame: a digest mismatch with intact frames after it. */
function corruptMiddle(file: string): void {
  const offsets: number[] = [];
  readWal(file, { on_frame: (frame) => offsets.push(frame.offset) });
  const bytes = fs.readFileSync(file);
  const at = offsets[2]! + 20;
  bytes[at] = bytes[at]! ^ 0xff;
  fs.writeFileSync(file, bytes);
}

/** A copy of one session's WAL as a bare file: an export. */
export function writeExport(root: string, session_id: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${session_id}-export.wal`);
  fs.copyFileSync(walPath(sessionDir(root, session_id)), file);
  return file;
}

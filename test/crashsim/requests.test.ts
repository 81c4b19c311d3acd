// The provider-validity invariant's request check on a real runtime-written WAL: every request the WAL says
// was sent is replay's rendering of its step (compaction views included), and a request that differs by one
// byte, or a step replay cannot render, is a violation.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSentRequests } from '../../src-main/crashsim/invariants.js';
import type { DiskView } from '../../src-main/crashsim/view.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { readTarget, resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { SessionFolder } from '../../src-main/replay/fold.js';
import { toJsonPayload } from '../../src-main/replay/values.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-sent-requests-');

function diskViewOf(session_dir: string): DiskView {
  const folder = new SessionFolder();
  const sent_requests: DiskView['sent_requests'] = [];
  const target = resolveTargets(session_dir)[0]!;
  const read = readTarget(target, {
    on_frame: (frame) => {
      folder.push(frame);
      if (frame.type !== 'model_attempt_finished') return;
      const payload = toJsonPayload(frame.payload!);
      sent_requests.push({ seq: frame.seq, step_id: payload['step_id'] as number, request_sha256: payload['request_sha256'] as string });
    },
  });
  return { wal_bytes: fs.readFileSync(target.wal_path), read, fold: folder.snapshot(), sums: folder.sums, fences: [], types: new Map(), sent_requests, floor: { names: [] }, lease_epoch: null };
}

describe('checkSentRequests', () => {
  it('passes the demo compaction session, and catches a sent request that is not the rendering', () => {
    const root = tempDir();
    buildDemoRoot(root, steppedClock(1_700_000_000_000));
    const view = diskViewOf(sessionDir(root, 'compaction-ceiling'));
    expect(view.sent_requests.length).toBe(7);
    expect(checkSentRequests(view)).toEqual([]);
    const tampered = { ...view, sent_requests: view.sent_requests.map((sent, index) => (index === 2 ? { ...sent, request_sha256: '00'.repeat(32) } : sent)) };
    expect(checkSentRequests(tampered)).toEqual([expect.objectContaining({ invariant: 'provider_valid', message: expect.stringContaining('episode 1 step 3') })]);
    // A request recorded sent at a step whose view no longer assembles can match nothing.
    const refused = { ...view, sent_requests: [...view.sent_requests, { seq: view.fold.episodes[2]!.last_seq, step_id: 4, request_sha256: view.sent_requests[0]!.request_sha256 }] };
    expect(checkSentRequests(refused)).toEqual([expect.objectContaining({ message: expect.stringContaining('no longer assembles') })]);
  });
});

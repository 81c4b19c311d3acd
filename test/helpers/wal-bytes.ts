// Builds WAL bytes frame by frame with the engine's codec, for reader tests that need exact layouts
// (damage at a chosen offset, hostile frames) rather than what a writer would produce.
import type { DigestAlgorithmName, FrameBody, Payload } from '../../src-shared/wal.js';
import { frameDigest } from '../../src-main/engine/digest.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';

export const TEST_WAL_ID = Uint8Array.from({ length: 16 }, (_, index) => index);

export function lineageBody(wal_id: Uint8Array = TEST_WAL_ID, fence = 1): FrameBody {
  return { ver: 2, seq: 0, fence, type: 'lineage', features: [], payload: { wal_id, created_ms: 1_700_000_000_000, writer: 'test' } };
}

export function recordBody(seq: number, type: string, payload: Payload, features: string[] = [], fence = 1): FrameBody {
  return { ver: features.length > 0 ? 3 : 2, seq, fence, type, features, payload };
}

export function walBytes(bodies: FrameBody[], algorithm: DigestAlgorithmName = 'sha256'): Buffer {
  return Buffer.concat(bodies.map((body) => encodeFrame(body, algorithm)));
}

/** A small realistic session: lineage, a run start, a tool batch with one call, a result, the run's end. */
export function sampleBodies(): FrameBody[] {
  return [
    lineageBody(),
    recordBody(1, 'run_started', { run_id: 'r1', session: 's1', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'list files' }] }] }),
    recordBody(2, 'model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'ls', input: { path: '.' } }] }, usage: { input_tokens: 10, output_tokens: 5 } }),
    recordBody(3, 'tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: 'c1', name: 'ls', plan: 'dispatch' }] }),
    recordBody(4, 'tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c1', args: { path: '.' } }),
    recordBody(5, 'tool_result', { batch_id: 'b1', tool_call_id: 'c1', outcome: 'completed', output: 'a.txt\nb.txt', is_error: false }),
    recordBody(6, 'run_cancel_requested', { run_id: 'r1', at: 'now' }, ['run-cancel-at/v1']),
  ];
}

/** A raw frame around an arbitrary body, with a correct digest: intact on disk, whatever it says. */
export function rawFrame(body: Uint8Array, algorithm: DigestAlgorithmName = 'sha256'): Buffer {
  const header = Buffer.from([0x42, 0x57, 0x41, 0x4c, 1, algorithm === 'sha256' ? 1 : 2, 0, 0, 0, 0, 0, 0]);
  header.writeUInt32LE(body.length, 8);
  const covered = Buffer.concat([header, body]);
  return Buffer.concat([covered, frameDigest(algorithm, covered)]);
}

/** The size of the intact frame at `offset` in `bytes`, or null (wal-format §2, §5 step 1). Checked here from the
 *  spec, not by the engine's codec, so tests can judge the engine with it. */
export function intactFrameSize(bytes: Buffer, offset: number): number | null {
  if (bytes.length - offset < 12) return null;
  if (bytes.readUInt32BE(offset) !== 0x4257414c || bytes[offset + 4] !== 1 || bytes.readUInt16LE(offset + 6) !== 0) return null;
  const algorithm: DigestAlgorithmName | null = bytes[offset + 5] === 1 ? 'sha256' : bytes[offset + 5] === 2 ? 'blake3' : null;
  const bodyLength = bytes.readUInt32LE(offset + 8);
  if (algorithm === null || bodyLength < 1 || bodyLength > 16 * 1_048_576 || offset + 44 + bodyLength > bytes.length) return null;
  const covered = bytes.subarray(offset, offset + 12 + bodyLength);
  const digest = bytes.subarray(offset + 12 + bodyLength, offset + 44 + bodyLength);
  return Buffer.compare(Buffer.from(frameDigest(algorithm, covered)), digest) === 0 ? 44 + bodyLength : null;
}

/** The refusal of a WAL whose byte `at` was flipped, when frames follow the damaged one: a flip among the file's
 *  first four bytes makes them neither the magic nor zeros, so the file is not a WAL at all (wal-format §5 rule 0);
 *  anywhere else, non-tail corruption at the damaged frame. */
export function flippedRefusal(at: number, frame_offset: number): { kind: 'not_a_wal' | 'non_tail_corruption'; offset: number } {
  return at < 4 ? { kind: 'not_a_wal', offset: 0 } : { kind: 'non_tail_corruption', offset: frame_offset };
}

// Issue 13: no recovery action (resume, cancel, seal, through recovery/actions.ts) ever truncates a digest-valid
// frame. A real session is damaged (cut or a bit flipped in its records) and followed by hostile digest-valid
// frames; after the action the disk is re-read: every intact frame is still there byte for byte, except lineage
// frames of the WAL's own identity after the damage, which §5 step 2 lets a writer discard with the torn tail.
// A refused action leaves the WAL exactly as it was.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { readWal } from '../../src-main/engine/reader.js';
import { cancelSession, resumeSession, sealSession, type RecoveryOutcome } from '../../src-main/recovery/actions.js';
import { hostileFrame, type HostileFrame } from '../helpers/hostile-frames.js';
import { useTempDirs } from '../helpers/temp.js';
import { intactFrameSize } from '../helpers/wal-bytes.js';
import { SESSION, SessionScript, walBytes, walOf } from '../replay/session-script.js';

const tempDir = useTempDirs('walscope-no-truncation-');
const A = { id: 'a', name: 'read_file' };
const B = { id: 'b', name: 'write_file' };

/** A session whose two tool calls were dispatched and never answered: with its last record lost, call a is still
 *  indeterminate, so every action — resume included — has records to write. */
let session: { bytes: Buffer; wal_id: Uint8Array; frame_offsets: number[]; last_seq: number };
beforeAll(() => {
  const root = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'walscope-no-truncation-base-'));
  SessionScript.write(root, (s) => {
    s.start('r1');
    s.step(1, [A, B]);
    s.batch('b1', 1, [A, B]);
    s.intent('b1', 'a');
    s.intent('b1', 'b');
  });
  const frame_offsets: number[] = [];
  let wal_id: Uint8Array | null = null;
  const read = readWal(walOf(root), {
    on_frame: (frame) => {
      frame_offsets.push(frame.offset);
      if (frame.seq === 0) wal_id = frame.payload!['wal_id'] as Uint8Array;
    },
  });
  session = { bytes: walBytes(root), wal_id: wal_id!, frame_offsets, last_seq: read.last_seq };
  fs.rmSync(root, { recursive: true });
});

const ACTIONS: Record<string, (root: string) => RecoveryOutcome> = {
  resume: (root) => resumeSession(root, SESSION, { writer_name: 'test-operator' }),
  cancel: (root) => cancelSession(root, SESSION, { writer_name: 'test-operator' }),
  seal: (root) => sealSession(root, SESSION, { writer_name: 'test-operator' }),
};

interface Scenario {
  damage: { cut_into_last: number } | { flip: number; bit: number };
  after: HostileFrame[];
}

const scenario = (): fc.Arbitrary<Scenario> =>
  fc.record({
    damage: fc.oneof(
      fc.record({ cut_into_last: fc.nat() }),
      fc.record({ flip: fc.nat(), bit: fc.nat(7) }),
    ),
    // Half the runs end in lineage of the WAL's own identity only (a torn tail a writer repairs), half in any mix.
    after: fc.oneof(
      fc.array(hostileFrame(session.last_seq + 1, session.wal_id).filter((frame) => frame.kind === 'agreeing_lineage'), { maxLength: 2 }),
      fc.array(hostileFrame(session.last_seq + 1, session.wal_id), { minLength: 1, maxLength: 3 }),
    ),
  });

/** The damaged WAL, and the offsets of the frames after the damage that a writer may discard (agreeing lineage). */
function build({ damage, after }: Scenario): { bytes: Buffer; discardable: Set<number> } {
  const { bytes: clean, frame_offsets } = session;
  let damaged: Buffer;
  if ('cut_into_last' in damage) {
    const last = frame_offsets.at(-1)!;
    damaged = Buffer.from(clean.subarray(0, last + 1 + (damage.cut_into_last % (clean.length - last - 1))));
  } else {
    // Anywhere after the first lineage frame: the identity the damage is judged against is proven.
    const records_from = frame_offsets[1]!;
    damaged = Buffer.from(clean);
    damaged[records_from + (damage.flip % (clean.length - records_from))]! ^= 1 << damage.bit;
  }
  const discardable = new Set<number>();
  let offset = damaged.length;
  for (const frame of after) {
    if (frame.kind === 'agreeing_lineage') discardable.add(offset);
    offset += frame.bytes.length;
  }
  return { bytes: Buffer.concat([damaged, ...after.map((frame) => frame.bytes)]), discardable };
}

describe('no recovery action truncates a digest-valid frame', () => {
  for (const [name, action] of Object.entries(ACTIONS)) {
    it(`${name}: every intact frame but agreeing trailing lineage survives byte for byte (disk re-read)`, () => {
      const outcomes = { wrote: 0, refused: 0 };
      fc.assert(
        fc.property(scenario(), (input) => {
          const { bytes, discardable } = build(input);
          const root = tempDir();
          fs.mkdirSync(path.join(root, 'sessions', SESSION), { recursive: true });
          fs.writeFileSync(walOf(root), bytes);
          const outcome = action(root);
          const after = walBytes(root);
          if (outcome.kind !== 'done') {
            outcomes.refused += 1;
            expect(after.equals(bytes), `refused (${outcome.message}) yet the WAL changed`).toBe(true);
            return;
          }
          if (outcome.appended.length > 0) outcomes.wrote += 1;
          for (let offset = 0; offset < bytes.length; offset++) {
            const size = intactFrameSize(bytes, offset);
            if (size === null || discardable.has(offset)) continue;
            expect(after.subarray(offset, offset + size).equals(bytes.subarray(offset, offset + size)), `${name}: the intact frame at ${offset} was cut or overwritten`).toBe(true);
          }
        }),
        // A fixed seed: the counts below are a property of these 40 cases, not of chance.
        { numRuns: 40, seed: 20_261_130 },
      );
      // Not vacuous: in many runs the action wrote (and so repaired a torn tail), in many it refused.
      expect(outcomes.wrote).toBeGreaterThan(5);
      expect(outcomes.refused).toBeGreaterThan(5);
    });
  }
});

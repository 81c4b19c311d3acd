// The two reader deviations of issue 13 as golden WALs (bytes committed in test/fixtures/wal, made by
// generate-golden.ts there). D1: after a damaged frame, a digest-valid frame the main read path refuses must
// make the damage non-tail corruption, never a torn tail with "trailing lineage". D2: ver, seq and fence written
// as CBOR floats make a malformed frame — a float ver of 4.0 included, which is not a newer writer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer, Type } from 'cborg';
import { describe, expect, it } from 'vitest';
import { readWal } from '../../src-main/engine/reader.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/wal');
const fixture = (name: string) => path.join(FIXTURES, name);
/** Offset of the hostile frame in every golden WAL: after the lineage frame and record 1. */
const HOSTILE_OFFSET = 187;

/** The CBOR types of ver, seq and fence of the frame at `offset`, read by cborg, not by the engine. */
function headTypes(bytes: Buffer, offset: number): string[] {
  const bodyLength = bytes.readUInt32LE(offset + 8);
  const tokens = new Tokenizer(bytes.subarray(offset + 12, offset + 12 + bodyLength), {});
  expect(tokens.next().type).toBe(Type.array);
  return [tokens.next().type.name, tokens.next().type.name, tokens.next().type.name];
}

describe('D1: a frame the main path refuses after damage makes the damage non-tail corruption', () => {
  const damagedAt = HOSTILE_OFFSET;
  const hostileAt = (bytes: Buffer) => damagedAt + 44 + bytes.readUInt32LE(damagedAt + 8);

  it.each([
    ['d1-newer-lineage-after-damage.wal', /requires teleport\/v1/],
    ['d1-gated-lineage-after-damage.wal', /seq 0 and type "lineage" go together in a ver 2 frame/],
    ['d1-float-lineage-after-damage.wal', /ver is not an unsigned integer/],
  ])('%s', (name, why) => {
    const bytes = fs.readFileSync(fixture(name));
    const result = readWal(fixture(name));
    expect(result.torn_tail).toBeNull();
    expect(result.error).toMatchObject({ kind: 'non_tail_corruption', offset: damagedAt });
    expect(result.error!.message).toContain(`follows at offset ${hostileAt(bytes)}`);
    expect(result.error!.message).toMatch(why);
    expect(result.valid_bytes).toBe(damagedAt);
  });

  it('the same hostile frames are refused by the main path where nothing is damaged', () => {
    for (const name of ['d1-newer-lineage-after-damage.wal', 'd1-gated-lineage-after-damage.wal', 'd1-float-lineage-after-damage.wal']) {
      const bytes = fs.readFileSync(fixture(name));
      const undamaged = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'golden-')), 'wal');
      fs.writeFileSync(undamaged, Buffer.concat([bytes.subarray(0, damagedAt), bytes.subarray(hostileAt(bytes))]));
      expect(readWal(undamaged).error?.kind, name).toMatch(/^(newer_writer|malformed_frame)$/);
      fs.rmSync(path.dirname(undamaged), { recursive: true });
    }
  });
});

describe('D2: ver, seq and fence as CBOR floats are a malformed frame', () => {
  it.each([
    ['d2-float-ver-half.wal', ['float', 'uint', 'uint'], 'ver is not an unsigned integer'],
    ['d2-float-seq-single.wal', ['uint', 'float', 'uint'], 'seq is not an unsigned integer'],
    ['d2-float-fence-double.wal', ['uint', 'uint', 'float'], 'fence is not an unsigned integer'],
    ['d2-all-heads-double.wal', ['float', 'float', 'float'], 'ver is not an unsigned integer'],
    ['d2-float-ver-4.wal', ['float', 'uint', 'uint'], 'ver is not an unsigned integer'],
  ])('%s', (name, types, why) => {
    const bytes = fs.readFileSync(fixture(name));
    expect(headTypes(bytes, HOSTILE_OFFSET)).toEqual(types);
    const result = readWal(fixture(name));
    expect(result.error).toMatchObject({ kind: 'malformed_frame', offset: HOSTILE_OFFSET });
    expect(result.error!.message).toContain(why);
    expect(result.records).toBe(1);
    expect(result.valid_bytes).toBe(HOSTILE_OFFSET);
  });
});

// A small deterministic PRNG (sfc32, seeded through splitmix32): the same seed gives the same crash points, the
// same torn writes and the same garbage on every machine, so every violation replays exactly.
import assert from 'node:assert/strict';

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = 0) {
    assert.ok(Number.isSafeInteger(seed) && seed >= 0, `seed ${seed}`);
    let state = (seed ^ Math.imul(stream + 1, 0x9e3779b9)) >>> 0;
    const next = () => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    // Mix in the high bits too: seeds above 2^32 must not collide with their low halves.
    state = (state ^ Math.floor(seed / 0x1_0000_0000)) >>> 0;
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let round = 0; round < 12; round++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, bound). */
  int(bound: number): number {
    assert.ok(Number.isSafeInteger(bound) && bound >= 1 && bound <= 0x1_0000_0000, `bound ${bound}`);
    return Math.floor((this.u32() / 0x1_0000_0000) * bound);
  }

  chance(probability: number): boolean {
    return this.u32() / 0x1_0000_0000 < probability;
  }

  pick<T>(items: readonly T[]): T {
    assert.ok(items.length > 0, 'pick from nothing');
    return items[this.int(items.length)]!;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let index = 0; index < length; index++) out[index] = this.u32() & 0xff;
    return out;
  }
}

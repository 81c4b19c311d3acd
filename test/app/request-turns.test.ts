// The transcript's provider-validity check made from per-episode parts (replay/provider-validity.ts) answers as
// the check over the whole joined transcript does, however the messages fall into parts: an append re-checks
// the open episode's turns and the seams, not the whole session.
import { describe, expect, it } from 'vitest';
import type { JsonPayload, RenderedMessage } from '../../src-shared/replay.js';
import { checkProviderValid, requestTurns, turnsValid } from '../../src-main/replay/provider-validity.js';

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomMessage(random: () => number): JsonPayload {
  const id = `t${Math.floor(random() * 4)}`;
  const pick = random();
  if (pick < 0.3) return { role: 'assistant', content: random() < 0.6 ? [{ type: 'tool_use', id, name: 'x', input: {} }] : [{ type: 'text', text: 'a' }] };
  if (pick < 0.7) return { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'r' }] };
  return { role: 'user', content: [{ type: 'text', text: 'u' }] };
}

const rendered = (message: JsonPayload): RenderedMessage => ({ origin: { kind: 'input', episode: 1 }, message });

describe('provider validity from per-episode parts', () => {
  it('equals the check over the joined transcript on random transcripts and random cuts', () => {
    const random = prng(7);
    let valid_seen = 0;
    for (let round = 0; round < 3_000; round++) {
      const messages = Array.from({ length: Math.floor(random() * 14) }, () => randomMessage(random));
      const parts: JsonPayload[][] = [[]];
      for (const message of messages) {
        if (random() < 0.25) parts.push([]);
        parts.at(-1)!.push(message);
      }
      const expected = checkProviderValid(messages).valid;
      valid_seen += expected ? 1 : 0;
      const turns = parts.map((part) => requestTurns(part.map(rendered)));
      expect(turnsValid(turns), JSON.stringify(parts)).toBe(expected);
      // Again with the seams checked before, and after the last part changed (a live append).
      expect(turnsValid(turns), JSON.stringify(parts)).toBe(expected);
      const appended = [...parts.at(-1)!, randomMessage(random)];
      turns[turns.length - 1] = requestTurns(appended.map(rendered));
      expect(turnsValid(turns)).toBe(checkProviderValid([...parts.slice(0, -1).flat(), ...appended]).valid);
    }
    expect(valid_seen).toBeGreaterThan(100);
  });
});

// How file events become refreshes (services/watcher.ts): a live tail's one append is read at its event, a
// writer's burst is coalesced, and nothing is left unread when a burst ends.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEBOUNCE_MS, DEBOUNCE_WAIT_MS_MAX, Debouncer } from '../../src-main/services/watcher.js';

describe('Debouncer', () => {
  let fired: string[];
  beforeEach(() => {
    vi.useFakeTimers();
    fired = [];
  });
  afterEach(() => vi.useRealTimers());

  const leading = () => new Debouncer((key) => fired.push(key), DEBOUNCE_MS, DEBOUNCE_WAIT_MS_MAX, true);

  it('leading: fires a lone event at once, and not again when its quiet time ends', () => {
    const debouncer = leading();
    debouncer.schedule('s1');
    expect(fired).toEqual(['s1']);
    vi.advanceTimersByTime(DEBOUNCE_MS * 3);
    expect(fired).toEqual(['s1']);
    // The burst is over: the next event fires at once again.
    debouncer.schedule('s1');
    expect(fired).toEqual(['s1', 's1']);
  });

  it('leading: fires a burst at its first event and once more when it ends, never later than the longest wait', () => {
    const debouncer = leading();
    debouncer.schedule('s1');
    for (let event = 0; event < 4; event++) {
      vi.advanceTimersByTime(DEBOUNCE_MS / 2);
      debouncer.schedule('s1');
    }
    expect(fired).toEqual(['s1']);
    vi.advanceTimersByTime(DEBOUNCE_MS);
    expect(fired).toEqual(['s1', 's1']);
    // A burst that never goes quiet still fires within the longest wait of its first event.
    debouncer.schedule('s2');
    for (let elapsed = 0; elapsed < DEBOUNCE_WAIT_MS_MAX; elapsed += DEBOUNCE_MS / 2) {
      vi.advanceTimersByTime(DEBOUNCE_MS / 2);
      debouncer.schedule('s2');
    }
    expect(fired.filter((key) => key === 's2').length).toBeGreaterThanOrEqual(2);
  });

  it('leading: a writer who never pauses gets a refresh per longest wait, never two within the quiet time', () => {
    const fired_at: number[] = [];
    const timed = new Debouncer(() => fired_at.push(Date.now()), DEBOUNCE_MS, DEBOUNCE_WAIT_MS_MAX, true);
    const started = Date.now();
    for (let elapsed = 0; elapsed <= 20 * DEBOUNCE_WAIT_MS_MAX; elapsed += DEBOUNCE_MS / 3) {
      timed.schedule('s1');
      vi.advanceTimersByTime(DEBOUNCE_MS / 3);
    }
    vi.advanceTimersByTime(DEBOUNCE_WAIT_MS_MAX);
    expect(fired_at[0]).toBe(started);
    for (let at = 1; at < fired_at.length; at++) {
      expect(fired_at[at]! - fired_at[at - 1]!).toBeGreaterThanOrEqual(DEBOUNCE_MS);
      expect(fired_at[at]! - fired_at[at - 1]!).toBeLessThanOrEqual(DEBOUNCE_MS + DEBOUNCE_WAIT_MS_MAX);
    }
    expect(fired_at.length).toBeGreaterThanOrEqual(11);
  });

  it('leading: keys are separate bursts', () => {
    const debouncer = leading();
    debouncer.schedule('s1');
    debouncer.schedule('s2');
    debouncer.schedule('s1');
    expect(fired).toEqual(['s1', 's2']);
    vi.advanceTimersByTime(DEBOUNCE_MS);
    expect(fired).toEqual(['s1', 's2', 's1']);
  });

  it('trailing only: fires once, when the burst goes quiet', () => {
    const debouncer = new Debouncer((key) => fired.push(key), DEBOUNCE_MS, DEBOUNCE_WAIT_MS_MAX);
    debouncer.schedule('s1');
    vi.advanceTimersByTime(DEBOUNCE_MS / 2);
    debouncer.schedule('s1');
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(DEBOUNCE_MS);
    expect(fired).toEqual(['s1']);
  });

  it('clear drops what was due', () => {
    const debouncer = leading();
    debouncer.schedule('s1');
    debouncer.schedule('s1');
    debouncer.clear();
    vi.advanceTimersByTime(DEBOUNCE_WAIT_MS_MAX);
    expect(fired).toEqual(['s1']);
  });
});

// Time as the runtime sees it. The crash simulator needs every timestamp a function of the seed, so the
// runtime never reads Date.now() itself: it asks its clock.

export interface Clock {
  now_ms(): number;
}

export const systemClock: Clock = { now_ms: () => Date.now() };

/** A clock that starts at `start_ms` and moves `step_ms` forward on every reading: deterministic and strictly
 *  increasing, so tool-times observations and deadlines keep their order. */
export function steppedClock(start_ms: number, step_ms = 7): Clock {
  let now = start_ms;
  return {
    now_ms() {
      now += step_ms;
      return now;
    },
  };
}

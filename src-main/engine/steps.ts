// Long reads written as generators that yield between steps (a member header walked, a sealed member read), so
// that a caller serving other requests on the same thread (the session worker) can give them turns in between,
// and every other caller runs them to their end at once, here.

/** Runs `steps` to its end and returns its value. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

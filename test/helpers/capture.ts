/** The error `run` throws; fails the test when it throws nothing. For assertions on typed errors' fields. */
export function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

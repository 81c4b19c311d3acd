// Every bound of the reference runtime in one place: a scripted session that tries to go past one is refused
// loudly rather than allowed to run away (a step loop, a queue or a batch without an end).

/** Tool calls one model step may ask for. */
export const CALLS_PER_BATCH_MAX = 64;
/** Model steps one run may take; a run's own max_steps must be at or under it. */
export const STEPS_PER_RUN_MAX = 10_000;
/** Provider attempts for one model step (failed and retried ones included). */
export const MODEL_ATTEMPTS_MAX = 8;
/** Runs (episodes) one session script may hold. */
export const RUNS_PER_SESSION_MAX = 256;
/** Pending queued sends a session holds before a send is refused. */
export const QUEUE_LENGTH_MAX = 64;
/** Owner events (steers, sends, cancels) at one trigger point. */
export const EVENTS_PER_TRIGGER_MAX = 16;
/** Units of progress one drive of a session may make: bounds the driver loop itself. */
export const DRIVE_ADVANCES_MAX = 100_000;
/** Context-ceiling waits are bounded by the contract (Setup wait_ms, at most 300,000 ms). */
export const CEILING_WAIT_MS_MAX = 300_000;

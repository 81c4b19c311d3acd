// Typed errors of the reference runtime. Each says what went wrong and where, so the demo, the simulator and
// the tests branch on the class, never on message text.

/** A script asked for something it does not define (a step past its end, an unknown call). */
export class ScriptError extends Error {
  override name = 'ScriptError';
  readonly code = 'script_error';
}

/** The runtime was asked to do something its state does not allow (a send to a finished run, a full queue). */
export class RuntimeStateError extends Error {
  override name = 'RuntimeStateError';
  readonly code = 'runtime_state';
}

/** A request the runtime rendered pairs a tool_use with nothing (or answers nothing): never sent. */
export class ProviderInvalidRequestError extends Error {
  override name = 'ProviderInvalidRequestError';
  readonly code = 'provider_invalid_request';
  constructor(
    readonly run_id: string,
    readonly step_id: number,
    detail: string,
  ) {
    super(`run ${run_id} step ${step_id}: the rendered request is not provider-valid (${detail}); it was not sent`);
  }
}

// Drives a scripted session to the end of its script: recover the last episode, then run, drain the queue
// after each run, and start the owner's next direct run, until nothing is left or the session waits on a
// provider that holds a call. Every process of a simulated session (the first and each recovery) runs this
// same function; it is idempotent because starts are keyed by run_id and owner actions by their identities.
import type { ResumeAction } from '../../src-shared/replay.js';
import { DRIVE_ADVANCES_MAX } from './limits.js';
import type { RunLoop } from './run-loop.js';
import type { AgentRuntime } from './runtime.js';
import type { SessionScript } from './script.js';

export type DriveEnd = 'done' | 'paused';

export interface Drive {
  end: DriveEnd;
  /** What the replay library planned for the episode found open when the process started. */
  recovery: ResumeAction;
}

/** `on_recovery` hears the plan's action as soon as it is chosen: a process that dies while recovering has
 *  still chosen it. */
export function driveSession(runtime: AgentRuntime, script: SessionScript, on_recovery?: (action: ResumeAction) => void): Drive {
  const recovered = runtime.recover(on_recovery);
  const recovery = recovered.plan.action;
  let loop: RunLoop | null = recovered.loop;
  let paused_before = false;
  for (let advances = 0; advances < DRIVE_ADVANCES_MAX; advances++) {
    if (loop === null) {
      loop = runtime.drainQueue() ?? startNextDirect(runtime, script);
      if (loop === null) return { end: 'done', recovery };
      continue;
    }
    const advance = loop.advance();
    // A run that just paused gets one more advance: a late result the provider already has is delivered.
    if (advance === 'paused' && paused_before) return { end: 'paused', recovery };
    paused_before = advance === 'paused';
    if (advance === 'finished') loop = null;
  }
  throw new Error(`session ${script.session_id} made ${DRIVE_ADVANCES_MAX} advances without ending: a script without an end`);
}

function startNextDirect(runtime: AgentRuntime, script: SessionScript): RunLoop | null {
  for (const run of script.runs) {
    if (run.origin !== 'direct') continue;
    const loop = runtime.startRun(run.run_id, run.input, run.config);
    if (loop !== null) return loop;
  }
  return null;
}

// Every planted bug is caught, with a case whose text replays the violation exactly. A plant is a test-only
// switch in the runtime's config (runtime/plants.ts); these tests are why it exists.
import { describe, expect, it } from 'vitest';
import { parseCase } from '../../src-main/crashsim/case.js';
import { simulate } from '../../src-main/crashsim/simulate.js';
import { exhaustiveSuite } from '../../src-main/crashsim/suite.js';
import type { PlantName } from '../../src-main/runtime/plants.js';

const EXPECTED: Record<PlantName, string> = {
  dispatch_before_intent_barrier: 'at_most_once',
  skip_directory_sync: 'no_loss',
  redispatch_indeterminate: 'at_most_once',
  visible_before_barrier: 'no_loss',
  ignore_unknown_stop: 'indeterminate_interrupts',
  reask_recorded_view: 'provider_valid',
};

/** Plants that only a session with that machinery can show: searched there alone, to keep the test short. */
const SESSION_OF: Partial<Record<PlantName, string>> = { reask_recorded_view: 'sim-compaction' };

describe('planted bugs', () => {
  it.each(Object.entries(EXPECTED) as [PlantName, string][])('%s is caught (%s) with a replayable case', (plant, invariant) => {
    const session = SESSION_OF[plant];
    const report = exhaustiveSuite({ plants: [plant], stop_at_first: true, ...(session === undefined ? {} : { sessions: [session] }) });
    expect(report.failures).toHaveLength(1);
    const failure = report.failures[0]!;
    expect(failure.violations.map((violation) => violation.invariant)).toContain(invariant);
    const replayed = simulate(parseCase(failure.replay));
    expect(replayed.violations).toEqual(failure.violations);
  });
});

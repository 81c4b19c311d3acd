// The §3 barrier protocol, checked at the moment it matters on the simulated disk: whenever the tool plane
// receives a dispatch, a power loss at that instant must keep the call's intent; whenever the caller sees a
// unit, a power loss must keep its record; and in a sequential batch a call behind a held one is sent only
// once the held call's terminal is durable. The planted bugs break exactly these moments.
import { describe, expect, it } from 'vitest';
import { SimDisk } from '../../src-main/crashsim/disk.js';
import { Prng } from '../../src-main/crashsim/prng.js';
import { SimProcess } from '../../src-main/crashsim/sim-io.js';
import { SIM_ROOT, viewDisk } from '../../src-main/crashsim/view.js';
import { CRASH_SESSIONS } from '../../src-main/runtime/catalog.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { driveSession } from '../../src-main/runtime/driver.js';
import { MemoryLedger } from '../../src-main/runtime/ledger.js';
import type { Plants } from '../../src-main/runtime/plants.js';
import type { CallKey, ToolPlane } from '../../src-main/runtime/ports.js';
import { AgentRuntime } from '../../src-main/runtime/runtime.js';
import { scriptedWorld } from '../../src-main/runtime/scripted.js';
import type { SessionScript } from '../../src-main/runtime/script.js';

/** Runs `script` on a simulated disk and returns every protocol moment a power loss would break. */
function protocolBreaks(script: SessionScript, plants: Plants = {}): string[] {
  const disk = SimDisk.withFolder(SIM_ROOT);
  const durableView = () => viewDisk(disk.crashImage('synced', new Prng(0)), script.session_id);
  const durable = () => durableView().fold;
  const breaks: string[] = [];
  const clock = steppedClock(1_750_000_000_000);
  const world = scriptedWorld(script, new MemoryLedger(), clock);
  const plane: ToolPlane = {
    dispatch(key: CallKey, name, args) {
      const batch = durable().episodes.flatMap((episode) => [...episode.batches]).find((candidate) => candidate.batch_id === key.batch_id);
      const call = batch?.calls.find((candidate) => candidate.tool_call_id === key.tool_call_id);
      if (call?.intent == null) breaks.push(`dispatch of ${key.tool_call_id} before its intent was durable`);
      if (batch?.sequential === true) {
        const earlier = batch.calls.slice(0, call?.index ?? 0);
        if (earlier.some((other) => other.held !== null && other.terminals.length === 0)) breaks.push(`dispatch of ${key.tool_call_id} behind a held call without a durable terminal`);
      }
      return world.plane.dispatch(key, name, args);
    },
    deliverable: () => world.plane.deliverable(),
    release: (call_key) => world.plane.release(call_key),
  };
  const process = new SimProcess(disk, null);
  const runtime = AgentRuntime.open({
    root: process.at(SIM_ROOT),
    session_id: script.session_id,
    io: process.io,
    clock,
    ports: { ...world, plane },
    plants,
    observer: {
      visible: (unit) => {
        if (durableView().types.get(unit.seq) !== unit.type) breaks.push(`the caller saw ${unit.type} seq ${unit.seq} before it was durable`);
      },
    },
  });
  try {
    driveSession(runtime, script);
  } finally {
    runtime.close();
  }
  return breaks;
}

describe('the barrier protocol at the moments a crash would break it', () => {
  it.each(CRASH_SESSIONS.map((script) => [script.session_id, script] as const))('%s: intents durable before dispatch, results durable before shown', (_id, script) => {
    expect(protocolBreaks(script)).toEqual([]);
  });

  it('the planted dispatch-before-intent-barrier bug breaks it', () => {
    expect(protocolBreaks(CRASH_SESSIONS[0]!, { dispatch_before_intent_barrier: true })).toContain('dispatch of c1 before its intent was durable');
  });

  it('the planted visible-before-barrier bug breaks it', () => {
    expect(protocolBreaks(CRASH_SESSIONS[0]!, { visible_before_barrier: true }).some((entry) => entry.startsWith('the caller saw tool_result'))).toBe(true);
  });
});

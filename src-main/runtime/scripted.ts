// The scripted world: a model, a tool policy with its approver, a tool plane and an owner, all answering from
// one SessionScript. The model, policy and owner are pure functions of the script (a recovered process asks
// them again and gets the same answers); the tool plane is the world's state — its ledger and the late
// results providers still owe — and must outlive every process of a simulated session.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';
import type { Clock } from './clock.js';
import { ScriptError } from './errors.js';
import type { SideEffectLedger } from './ledger.js';
import { CALLS_PER_BATCH_MAX, MODEL_ATTEMPTS_MAX, RUNS_PER_SESSION_MAX } from './limits.js';
import {
  callKeyText,
  type CallKey,
  type CallPlan,
  type Compactor,
  type DispatchOutcome,
  type LateDelivery,
  type Model,
  type ModelAnswer,
  type Owner,
  type OwnerAction,
  type PublishedView,
  type ToolPlane,
  type ToolPolicy,
  type ToolUse,
} from './ports.js';
import { queuedRunId, type CallScript, type EventTrigger, type OwnerEvent, type RunScript, type SessionScript, type StepScript } from './script.js';

export interface ScriptedWorld {
  model: Model;
  policy: ToolPolicy;
  plane: ScriptedToolPlane;
  owner: Owner;
  compactor: ScriptedCompactor;
}

/** The world of one script. Build it once per simulated session: its plane carries state across crashes. */
export function scriptedWorld(script: SessionScript, ledger: SideEffectLedger, clock: Clock): ScriptedWorld {
  const index = new ScriptIndex(script);
  return {
    model: new ScriptedModel(index),
    policy: new ScriptedPolicy(index),
    plane: new ScriptedToolPlane(index, ledger, clock),
    owner: new ScriptedOwner(index),
    compactor: new ScriptedCompactor(index),
  };
}

/** Lookups into a script, validated once: unique run ids and call ids, bounded sizes. */
class ScriptIndex {
  private readonly runs = new Map<string, RunScript>();
  private readonly calls = new Map<string, { run: RunScript; step: StepScript; call: CallScript }>();

  constructor(readonly script: SessionScript) {
    assert.ok(script.runs.length <= RUNS_PER_SESSION_MAX, `a script holds at most ${RUNS_PER_SESSION_MAX} runs`);
    for (const run of script.runs) {
      assert.ok(!this.runs.has(run.run_id), `run ${run.run_id} is scripted twice`);
      this.runs.set(run.run_id, run);
      const boundaries = (run.views ?? []).map((view) => view.before_step);
      assert.ok(new Set(boundaries).size === boundaries.length && boundaries.every((step) => step >= 1), `run ${run.run_id}: one view per step boundary`);
      for (const step of run.steps) {
        assert.ok((step.failed_attempts ?? 0) < MODEL_ATTEMPTS_MAX, `at most ${MODEL_ATTEMPTS_MAX - 1} failed attempts a step`);
        assert.ok(step.text !== undefined || step.calls !== undefined, 'a step answers with text, calls or both');
        assert.ok((step.calls?.length ?? 1) >= 1 && (step.calls?.length ?? 1) <= CALLS_PER_BATCH_MAX, 'calls per step');
        for (const call of step.calls ?? []) {
          assert.ok(!this.calls.has(call.id), `call ${call.id} is scripted twice: call ids are unique in a session script`);
          this.calls.set(call.id, { run, step, call });
        }
      }
    }
  }

  run(run_id: string): RunScript {
    const run = this.runs.get(run_id);
    if (run === undefined) throw new ScriptError(`no run ${run_id} in the script of ${this.script.session_id}`);
    return run;
  }

  step(run_id: string, step_id: number): StepScript {
    const step = this.run(run_id).steps[step_id - 1];
    if (step === undefined) throw new ScriptError(`run ${run_id} has no scripted answer for step ${step_id}`);
    return step;
  }

  call(tool_call_id: string): CallScript {
    return this.found(tool_call_id).call;
  }

  stepOf(tool_call_id: string): StepScript {
    return this.found(tool_call_id).step;
  }

  private found(tool_call_id: string): { run: RunScript; step: StepScript; call: CallScript } {
    const found = this.calls.get(tool_call_id);
    if (found === undefined) throw new ScriptError(`no call ${tool_call_id} in the script of ${this.script.session_id}`);
    return found;
  }
}

/** The answer's blocks in the order a provider sends them: thinking, words, tool calls. */
function assistantMessage(step: StepScript): JsonPayload {
  const thinking = (step.thinking ?? []).map((block): JsonPayload => ('redacted' in block ? { type: 'redacted_reasoning', data: block.redacted } : { type: 'reasoning', text: block.text, signature: block.signature }));
  const words: JsonPayload[] = step.text === undefined ? [] : [{ type: 'text', text: step.text }];
  const uses = (step.calls ?? []).map((call): JsonPayload => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args }));
  return { role: 'assistant', content: [...thinking, ...words, ...uses] };
}

class ScriptedModel implements Model {
  constructor(private readonly index: ScriptIndex) {}

  answer(run_id: string, step_id: number): ModelAnswer {
    const step = this.index.step(run_id, step_id);
    return { failed_attempts: step.failed_attempts ?? 0, assistant_message: assistantMessage(step) };
  }
}

class ScriptedPolicy implements ToolPolicy {
  constructor(private readonly index: ScriptIndex) {}

  plan(_run_id: string, use: ToolUse): CallPlan {
    const call = this.index.call(use.id);
    return {
      plan: call.no_dispatch === undefined ? 'dispatch' : 'no_dispatch',
      reason: call.no_dispatch ?? null,
      needs_approval: call.approval !== undefined,
      safe: call.safe === true,
    };
  }

  decide(_run_id: string, tool_call_id: string): 'approved' | 'denied' {
    const decision = this.index.call(tool_call_id).approval;
    if (decision === undefined) throw new ScriptError(`call ${tool_call_id} has no scripted approval decision`);
    return decision;
  }

  sequential(_run_id: string, calls: readonly ToolUse[]): boolean {
    const first = calls[0];
    if (first === undefined) return false;
    return this.index.stepOf(first.id).sequential === true;
  }
}

class ScriptedOwner implements Owner {
  constructor(private readonly index: ScriptIndex) {}

  actions(run_id: string, trigger: EventTrigger): OwnerAction[] {
    return this.index
      .run(run_id)
      .events.filter((entry) => sameTrigger(entry.trigger, trigger))
      .map((entry) => this.action(entry.event));
  }

  private action(event: OwnerEvent): OwnerAction {
    if (event.kind !== 'queue') return event;
    // The queued send's run is scripted under its derived run id; its config travels in the queued record.
    return { ...event, config: this.index.run(queuedRunId(event.submission_id)).config };
  }
}

/** The compaction provider of a script. It keeps the boundaries it was asked about: the simulator checks that
 *  no recovery asks again for a view the WAL already holds. */
export class ScriptedCompactor implements Compactor {
  readonly asked: { run_id: string; step_id: number }[] = [];

  constructor(private readonly index: ScriptIndex) {}

  view(run_id: string, step_id: number): PublishedView | null {
    this.asked.push({ run_id, step_id });
    const view = this.index.run(run_id).views?.find((candidate) => candidate.before_step === step_id);
    if (view === undefined) return null;
    const replacement: JsonPayload[] = [{ role: 'user', content: [{ type: 'text', text: view.summary }] }];
    return { view_id: `${run_id}.compact`, version: view.version, through_step: view.through_step, replacement, applied: 'as_published' };
  }
}

function sameTrigger(left: EventTrigger, right: EventTrigger): boolean {
  if ('before_step' in left) return 'before_step' in right && left.before_step === right.before_step;
  return 'after_result' in right && left.after_result === right.after_result;
}

/** Every dispatch the plane received, applied or not: the simulator checks none targets an indeterminate call. */
export interface DispatchRecord {
  key: string;
  tool_call_id: string;
  outcome: DispatchOutcome['kind'];
  /** The call may have applied and no result came back (SentButOutcomeUnknown, or drained after sending). */
  unknown: boolean;
}

export class ScriptedToolPlane implements ToolPlane {
  readonly dispatch_log: DispatchRecord[] = [];
  /** call_key → the late result its provider owes; removed only when the runtime releases it. */
  private readonly owed = new Map<string, LateDelivery>();

  constructor(
    private readonly index: ScriptIndex,
    readonly ledger: SideEffectLedger,
    private readonly clock: Clock,
  ) {}

  dispatch(key: CallKey, name: string, _args: JsonValue): DispatchOutcome {
    const script = this.index.call(key.tool_call_id);
    const outcome = this.outcomeOf(key, name, script);
    const unknown = outcome.kind === 'unknown' || (outcome.kind === 'scope_drained' && outcome.sent);
    this.dispatch_log.push({ key: callKeyText(key), tool_call_id: key.tool_call_id, outcome: outcome.kind, unknown });
    return outcome;
  }

  deliverable(): LateDelivery[] {
    return [...this.owed.values()];
  }

  release(call_key: string): void {
    this.owed.delete(call_key);
  }

  private outcomeOf(key: CallKey, name: string, script: CallScript): DispatchOutcome {
    const outcome = script.outcome;
    switch (outcome.kind) {
      case 'completed':
        this.ledger.apply(key, name, this.clock.now_ms());
        return { kind: 'completed', output: outcome.output };
      case 'not_sent':
        return { kind: 'not_sent', output: `the tool plane could not send ${name}: nothing was done` };
      case 'unknown':
        // The worst case of SentButOutcomeUnknown: the side effect did apply.
        this.ledger.apply(key, name, this.clock.now_ms());
        return { kind: 'unknown' };
      case 'scope_drained':
        if (outcome.sent) this.ledger.apply(key, name, this.clock.now_ms());
        return { kind: 'scope_drained', sent: outcome.sent, reason: outcome.reason };
      case 'held': {
        this.ledger.apply(key, name, this.clock.now_ms());
        const call_key = `${callKeyText(key)}#held`;
        if (outcome.late_output !== null) this.owed.set(call_key, { call_key, output: outcome.late_output });
        const detail = JSON.stringify({ call: key.tool_call_id, state: 'awaiting_review' });
        return { kind: 'held', call_key, module: 'scripted-provider', reason: 'awaiting_review', detail_digest: createHash('sha256').update(detail).digest('hex') };
      }
    }
  }
}

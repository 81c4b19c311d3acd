// Planted bugs: TEST-ONLY switches that make the runtime break the contract in one precise way, so the tests
// can prove the crash simulator catches each with a replayable seed. Production callers never set them; the
// demo and the CLI have no way to.

export interface Plants {
  /** Dispatch the batch's first call before the barrier of tool_batch_started + intents returns (§3 step 2). */
  dispatch_before_intent_barrier?: boolean;
  /** Make every directory sync a no-op, as a build that forgot them would (§3, wal-format §9). */
  skip_directory_sync?: boolean;
  /** The naive rule of §1: on resume, re-send a call whose intent has no terminal instead of closing it out. */
  redispatch_indeterminate?: boolean;
  /** Show a tool result to the caller before the barrier that makes it durable (§3 step 6). */
  visible_before_barrier?: boolean;
  /** Keep sending a parallel batch's side-effecting calls after one came back unknown (§3 step 5). */
  ignore_unknown_stop?: boolean;
  /** On resume, ask the compaction provider again for a boundary whose view and notice the WAL holds (§2
   *  "Asynchronous compaction": a resumed run renders the view from the record alone). */
  reask_recorded_view?: boolean;
}

export type PlantName = keyof Plants;

export const PLANT_NAMES: readonly PlantName[] = [
  'dispatch_before_intent_barrier',
  'skip_directory_sync',
  'redispatch_indeterminate',
  'visible_before_barrier',
  'ignore_unknown_stop',
  'reask_recorded_view',
];

// The reference runtime for one session: it takes the session's lease (a new tenure with a higher epoch),
// reads the WAL under it into the replay library's fold, recovers the last episode, starts runs (a retried
// start with the same run_id appends nothing), and drains queued sends (interrupts first). Closing drains,
// syncs and closes the writer before the lease is released.
import assert from 'node:assert/strict';
import type { EpisodeFold, JsonPayload, ResumeAction } from '../../src-shared/replay.js';
import { WalReadError, nodeFileIO, type FileIO, leaseSession, type FrameSink } from '../engine/index.js';
import { pendingInDrainOrder, SessionFolder } from '../replay/fold.js';
import { IncrementalSums } from '../views/incremental-sums.js';
import { isMap } from '../replay/values.js';
import type { Clock } from './clock.js';
import { configPayload, parseConfig } from './config.js';
import { taggedEach, userMessage, type Ports, type RunContext } from './context.js';
import { RuntimeStateError } from './errors.js';
import { emptyMemory, Journal, remember, type RuntimeObserver, type SessionMemory } from './journal.js';
import type { Plants } from './plants.js';
import { recoverSession, type Recovery } from './recover.js';
import { RunLoop } from './run-loop.js';
import { queuedRunId, type RunConfig } from './script.js';

export interface RuntimeOptions {
  root: string;
  session_id: string;
  io?: FileIO;
  writer_name?: string;
  clock: Clock;
  ports: Ports;
  observer?: RuntimeObserver;
  /** TEST-ONLY planted bugs (plants.ts). */
  plants?: Plants;
}

export const RUNTIME_WRITER_NAME = 'walscope-reference-runtime';

export class AgentRuntime {
  private constructor(
    readonly journal: Journal,
    private readonly options: RuntimeOptions,
    private readonly plants: Plants,
  ) {}

  /** Takes the lease (LeaseHeldError when a live writer has it) and reads the WAL under it. */
  static open(options: RuntimeOptions): AgentRuntime {
    const plants = options.plants ?? {};
    const base = options.io ?? nodeFileIO;
    const io = plants.skip_directory_sync === true ? withoutDirectorySync(base) : base;
    // The one read under the lease builds the fold and the memory; the writer's own lineage frame joins them.
    const leased = leaseSession(options.root, options.session_id, { io, writer_name: options.writer_name ?? RUNTIME_WRITER_NAME, sink: runtimeSink });
    const { folder, memory } = leased.sink;
    if (folder.refusal !== null) {
      leased.release();
      throw new WalReadError(folder.refusal);
    }
    const session = leased.openWriter();
    const lineage = session.writer.lineage_frame;
    folder.push(lineage);
    remember(memory, lineage.type, lineage.seq, lineage.payload);
    return new AgentRuntime(new Journal(session, folder, memory, options.observer ?? {}, plants), options, plants);
  }

  get epoch(): number {
    return this.journal.epoch;
  }

  /** Resumes the last episode as the replay library plans it; `on_plan` hears the action before it is acted on. */
  recover(on_plan?: (action: ResumeAction) => void): Recovery {
    return recoverSession(this.journal, (episode) => this.contextFor(episode.run_id ?? '', parseConfig(episode.config), episode), on_plan);
  }

  /** Starts a run; null (having appended nothing) when run_id already started in this session. */
  startRun(run_id: string, input: string, config: RunConfig): RunLoop | null {
    const fold = this.journal.fold();
    if (fold.episodes.some((episode) => episode.run_id === run_id)) return null;
    this.assertIdle(fold.episodes.at(-1));
    const ctx = this.contextFor(run_id, config, null);
    this.journal.append('run_started', taggedEach(ctx, { run_id, session: this.journal.session_id, config: configPayload(config), input: [userMessage(input)] }, 1, true));
    this.journal.barrier();
    return RunLoop.started(ctx);
  }

  /** Starts the run of the next pending queued send (interrupts first); null when the queue is empty. */
  drainQueue(): RunLoop | null {
    const fold = this.journal.fold();
    this.assertIdle(fold.episodes.at(-1));
    for (const { submission_id, request } of pendingInDrainOrder(fold)) {
      const run_id = queuedRunId(submission_id);
      assert.ok(isMap(request), `queued ${submission_id} carries its request`);
      const ran = fold.episodes.some((episode) => episode.run_id === run_id);
      const ctx = this.contextFor(run_id, parseConfig(request['config'] ?? null), null);
      // run_started first: a crash between the two leaves a started run, which the next drain only marks.
      if (!ran) {
        this.journal.append('run_started', taggedEach(ctx, { run_id, session: this.journal.session_id, config: request['config'] ?? null, input: request['input'] ?? [] }, 1, true));
      }
      this.journal.append('send_delivered', { submission_id, run_id });
      this.journal.barrier();
      if (!ran) return RunLoop.started(ctx);
    }
    return null;
  }

  /** Drains, syncs and closes the writer, then releases the lease. */
  close(): void {
    this.journal.session.close();
  }

  private assertIdle(last: EpisodeFold | undefined): void {
    if (last !== undefined && last.finished === null) throw new RuntimeStateError(`run ${last.run_id} is still open: finish, cancel or recover it first`);
  }

  private contextFor(run_id: string, config: RunConfig, episode: EpisodeFold | null): RunContext {
    const cancels = episode?.cancel_requests ?? [];
    const at = cancels.some((entry) => entry.at === 'now') ? 'now' : cancels.length > 0 ? 'step_boundary' : null;
    return { journal: this.journal, run_id, config, clock: this.options.clock, ports: this.options.ports, plants: this.plants, cancel: { at } };
  }
}


/** What the runtime builds from the WAL as it is read under the lease: the fold and the session's memory. */
function runtimeSink(): FrameSink & { folder: SessionFolder; memory: SessionMemory } {
  // The runtime snapshots its fold at every step: its store takes each snapshot's sums on from the last one's.
  const folder = new SessionFolder(new IncrementalSums());
  const memory = emptyMemory();
  return {
    folder,
    memory,
    decode_payload: folder.decodePayload,
    on_frame: (frame, payload_cbor, kept) => {
      folder.push(frame, payload_cbor, kept);
      // What the fold's decoder built; past the fold's bounds (the fold refuses the session) nothing was.
      remember(memory, frame.type, frame.seq, folder.refusal === null ? (kept as JsonPayload) : null);
    },
  };
}

/** The planted bug of a build that forgot its directory syncs: every one becomes a no-op. */
function withoutDirectorySync(io: FileIO): FileIO {
  return { ...io, fsyncDirectory: () => undefined };
}

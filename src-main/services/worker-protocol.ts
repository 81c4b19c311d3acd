// Messages between the main thread and the session worker: requests by API method name, replies by id, and
// the service's events pushed as they happen.
import type { ApiError, ApiMethod, WalscopeEvent } from '../../src-shared/ipc.js';
import type { ActionApprover } from './actions.js';
import type { WorkspacePaths } from './session-service.js';

export interface WorkerInit {
  workspace: WorkspacePaths;
}

/** A call; `approver` when the caller acts for an operator elsewhere (the fleet agent). */
export type ToWorker = { id: number; method: ApiMethod; args: unknown[]; approver?: ActionApprover };

export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'reply'; id: number; ok: true; value: unknown }
  | { kind: 'reply'; id: number; ok: false; error: ApiError }
  | { kind: 'event'; event: WalscopeEvent };

// Messages between the main thread and the session worker: requests by API method name, replies by id, and
// the service's events pushed as they happen.
import { dispatchApi, toApiError, type ApiError, type ApiMethod, type WalscopeEvent } from '../../src-shared/ipc.js';
import type { ActionApprover } from './actions.js';
import type { SessionService, WorkspacePaths } from './session-service.js';

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

/** The worker's reply to `request`, made by `service`. */
export async function answerRequest(service: SessionService, request: ToWorker): Promise<FromWorker> {
  try {
    const api = request.approver === undefined ? service : service.approvedBy(request.approver);
    return { kind: 'reply', id: request.id, ok: true, value: await dispatchApi(api, request.method, request.args) };
  } catch (error) {
    return { kind: 'reply', id: request.id, ok: false, error: toApiError(error) };
  }
}

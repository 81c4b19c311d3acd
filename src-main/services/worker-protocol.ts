// Messages between the main thread and the session worker: requests by API method name, replies by id, and
// the service's events pushed as they happen.
import { callApi, toApiError, type ApiError, type ApiRequest, type WalscopeEvent } from '../../src-shared/ipc.js';
import type { AlertThresholds } from '../../src-shared/alerts.js';
import type { ActionApprover } from './actions.js';
import type { SessionService, WorkspacePaths } from './session-service.js';

export interface WorkerInit {
  workspace: WorkspacePaths;
  /** The thresholds of the workspace's alerts, watched for its windows; null: not watched. */
  alerts: AlertThresholds | null;
}

/** A call, its arguments checked by the transport that received it (or typed by the caller in this process): the
 *  worker does not check them again. `approver` when the caller acts for an operator elsewhere (the fleet agent). */
export type ToWorker = ApiRequest & { id: number; approver?: ActionApprover };

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
    return { kind: 'reply', id: request.id, ok: true, value: await callApi(api, request) };
  } catch (error) {
    return { kind: 'reply', id: request.id, ok: false, error: toApiError(error) };
  }
}

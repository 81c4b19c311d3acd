// What the API writes, and in whose name: each write (an action, an acknowledgement, a retire) runs on the
// session it names as the service holds it, recorded as approved by one approver (its operator_action names
// them), and the session's update follows it. The app's window writes as the operator it names; the fleet agent
// as the operator the server authenticated on another machine (`approvedApi`), whatever name the caller gives.
import assert from 'node:assert/strict';
import { apiClient, callApi, isWriteMethod, type ApiRequest, type ApiRequests, type WalscopeApi, type WriteMethod } from '../../src-shared/ipc.js';
import { runAcknowledge, runAction, type ActionApprover } from './actions.js';
import { checkRetireReason, runRetireOf } from './history.js';
import type { SessionModel } from './session-model.js';

/** The API's write methods with their arguments but the operator's name, which the approver gives. */
type DropLast<T extends unknown[]> = T extends [...infer Head, unknown] ? Head : never;
export type ApprovedWrites = { [M in WriteMethod]: (...args: DropLast<Parameters<WalscopeApi[M]>>) => ReturnType<WalscopeApi[M]> };

/** What a write needs of the service: the session (`complete`: read to its end, as an action must), and its
 *  read again and its update sent once the write is done. */
export interface WriteHost {
  model(key: string, complete?: boolean): SessionModel;
  refreshModel(model: SessionModel): void;
  emitSession(model: SessionModel): void;
}

export function approvedWrites(host: WriteHost, approver: ActionApprover): ApprovedWrites {
  return {
    runAction: async (key, kind, based_on_seq, reason) => {
      const model = host.model(key, true);
      const outcome = runAction(model, kind, based_on_seq, reason, approver);
      host.emitSession(model);
      return outcome;
    },
    runRetire: async (key, reason, plan, audit_reason) => {
      const model = host.model(key);
      const result = runRetireOf(model.target, checkRetireReason(reason), plan, audit_reason, approver);
      host.refreshModel(model);
      host.emitSession(model);
      return result;
    },
    runAcknowledge: async (key, call, finding, based_on_seq, reason) => {
      const model = host.model(key, true);
      const result = runAcknowledge(model, call, finding, based_on_seq, reason, approver);
      host.emitSession(model);
      return result;
    },
  };
}

/** `api` with its writes made by `writes`: every other method is `api`'s own. */
export function approvedApi(api: WalscopeApi, writes: ApprovedWrites): ApiRequests {
  return apiClient((method, args) => {
    switch (method) {
      case 'runAction': {
        const [key, kind, based_on_seq, reason] = args as Parameters<WalscopeApi['runAction']>;
        return writes.runAction(key, kind, based_on_seq, reason);
      }
      case 'runRetire': {
        const [key, reason, plan, audit_reason] = args as Parameters<WalscopeApi['runRetire']>;
        return writes.runRetire(key, reason, plan, audit_reason);
      }
      case 'runAcknowledge': {
        const [key, call, finding, based_on_seq, reason] = args as Parameters<WalscopeApi['runAcknowledge']>;
        return writes.runAcknowledge(key, call, finding, based_on_seq, reason);
      }
      default:
        // A write method not routed above would run unapproved: ApprovedWrites (keyed by WriteMethod) names it.
        assert.ok(!isWriteMethod(method), `${method} is a write: route it to its approver`);
        // Checked by the transport that received it, typed by a caller here: not checked again.
        return callApi(api, { method, args } as ApiRequest);
    }
  });
}

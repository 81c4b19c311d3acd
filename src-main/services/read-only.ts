// A workspace shown read-only whatever it is: what a walscope:// link opens (docs/share.md, "Links"). A state root
// opened from a link offers no action, no acknowledgement and no retire, and refuses each if asked anyway; every
// read answers as it would. Wrapped around the API, so the service under it is the one File › Open makes.
import { apiClient, ApiFailure, callApi, isWriteMethod, type ApiRequest, type SessionDetail, type WalscopeApi, type WalscopeEvent, type Workspace } from '../../src-shared/ipc.js';

export const LINK_READ_ONLY = 'opened from a walscope:// link: read-only, nothing is written (File › Open opens it to act on)';

/** `api` with every write refused (`why` says so) and every answer saying read-only. A write method added to the
 *  API is refused here without being named (isWriteMethod), never passed through. */
export function readOnlyApi<T extends WalscopeApi>(api: T, why = LINK_READ_ONLY): WalscopeApi & { close: () => Promise<void> } {
  const refusal = { reason: 'read_only' as const, message: why };
  const passed = apiClient((method, args) => (isWriteMethod(method) ? Promise.reject(new ApiFailure('bad_request', why)) : callApi(api, { method, args } as ApiRequest)));
  const closable = api as T & { close?: () => Promise<void> };
  return {
    ...passed,
    getWorkspace: async () => readOnlyWorkspace(await api.getWorkspace()),
    getSession: async (key) => readOnlyDetail(await api.getSession(key), why),
    previewAction: async (key, kind) => ({ ...(await api.previewAction(key, kind)), refusal, tail_repair: null }),
    runAction: async (_key, kind) => ({ ok: false, kind, refusal }),
    previewAcknowledge: async (key, call, finding) => ({ ...(await api.previewAcknowledge(key, call, finding)), refusal, tail_repair: null }),
    runAcknowledge: async () => ({ ok: false, refusal }),
    previewRetire: async (_key, reason) => ({ reason, plan: null, refusal: { code: 'read_only', message: why } }),
    runRetire: async () => ({ ok: false, refusal: { code: 'read_only', message: why } }),
    subscribe: (listener) => api.subscribe((event) => listener(readOnlyEvent(event))),
    close: () => closable.close?.() ?? Promise.resolve(),
  };
}

function readOnlyWorkspace(workspace: Workspace): Workspace {
  return { ...workspace, read_only: true };
}

function readOnlyEvent(event: WalscopeEvent): WalscopeEvent {
  return event.type === 'workspace' ? { ...event, workspace: readOnlyWorkspace(event.workspace) } : event;
}

/** The detail with nothing offered: each action's choice says why not. */
export function readOnlyDetail(detail: SessionDetail, why: string): SessionDetail {
  return {
    ...detail,
    read_only: true,
    actions: detail.actions.map((choice) => ({ ...choice, applies: false, why })),
    retire: { applies: false, why },
    acknowledge: { applies: false, why },
  };
}

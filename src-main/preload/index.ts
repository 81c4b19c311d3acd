// The preload: the shared API as plain functions on window.walscope, each one an IPC invoke. ipcRenderer
// itself never crosses the bridge, and neither does anything else.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { IPC_EVENT_CHANNEL, IPC_OPEN_PATH_CHANNEL, IPC_REQUEST_CHANNEL, type ApiMethod, type WalscopeApi, type WalscopeEvent, type Workspace } from '../../src-shared/ipc.js';

const invoke = <T>(method: ApiMethod, ...args: unknown[]): Promise<T> => ipcRenderer.invoke(IPC_REQUEST_CHANNEL, method, args) as Promise<T>;

export const preloadApi: WalscopeApi = {
  getWorkspace: () => invoke('getWorkspace'),
  listSessions: () => invoke('listSessions'),
  getSession: (key) => invoke('getSession', key),
  getRows: (key, list, start, count) => invoke('getRows', key, list, start, count),
  getRecord: (key, index) => invoke('getRecord', key, index),
  locateSeq: (key, seq) => invoke('locateSeq', key, seq),
  search: (key, list, query) => invoke('search', key, list, query),
  previewAction: (key, kind) => invoke('previewAction', key, kind),
  runAction: (key, kind, based_on_seq, reason) => invoke('runAction', key, kind, based_on_seq, reason),
  getReport: (key) => invoke('getReport', key),
  getHistory: (key) => invoke('getHistory', key),
  previewRetire: (key, reason) => invoke('previewRetire', key, reason),
  runRetire: (key, reason, plan) => invoke('runRetire', key, reason, plan),
  getContext: (key, episode, step_id) => invoke('getContext', key, episode, step_id),
  subscribe(listener: (event: WalscopeEvent) => void) {
    const handler = (_event: IpcRendererEvent, event: WalscopeEvent) => listener(event);
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
    };
  },
  openDropped: (file: File) => ipcRenderer.invoke(IPC_OPEN_PATH_CHANNEL, webUtils.getPathForFile(file)) as Promise<Workspace>,
};

contextBridge.exposeInMainWorld('walscope', preloadApi);

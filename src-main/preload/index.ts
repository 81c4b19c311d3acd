// The preload: the shared API as plain functions on window.walscope, each one an IPC invoke. ipcRenderer
// itself never crosses the bridge, and neither does anything else.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { RedactClass, SavedBundle } from '../../src-shared/bundle.js';
import { apiClient, IPC_EVENT_CHANNEL, IPC_OPEN_PATH_CHANNEL, IPC_REQUEST_CHANNEL, IPC_SAVE_BUNDLE_CHANNEL, type DroppedFile, type WalscopeApi, type WalscopeEvent, type Workspace } from '../../src-shared/ipc.js';

export const preloadApi: WalscopeApi = {
  ...apiClient((method, args) => ipcRenderer.invoke(IPC_REQUEST_CHANNEL, method, args) as Promise<unknown>),
  subscribe(listener: (event: WalscopeEvent) => void) {
    const handler = (_event: IpcRendererEvent, event: WalscopeEvent) => listener(event);
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
    };
  },
  // What the renderer drops is a DOM File, and it crosses the context bridge as one.
  openDropped: (file: DroppedFile) => ipcRenderer.invoke(IPC_OPEN_PATH_CHANNEL, webUtils.getPathForFile(file as File)) as Promise<Workspace>,
  saveBundle: (key: string, redact: RedactClass[]) => ipcRenderer.invoke(IPC_SAVE_BUNDLE_CHANNEL, key, redact) as Promise<SavedBundle>,
};

contextBridge.exposeInMainWorld('walscope', preloadApi);

// The application menu: File › Open State Root…, Open WAL Export…, Connect to a Fleet…, Open Recent, Quit.
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  openRoot(): void;
  openExport(): void;
  /** Picks a fleet profile (docs/fleet.md) and shows every host's sessions. */
  connectFleet(): void;
  openRecent(path: string): void;
}

export function menuTemplate(actions: MenuActions, recent: readonly string[]): MenuItemConstructorOptions[] {
  return [
    {
      label: 'File',
      submenu: [
        { label: 'Open State Root…', accelerator: 'CmdOrCtrl+O', click: () => actions.openRoot() },
        { label: 'Open WAL Export…', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.openExport() },
        { label: 'Connect to a Fleet…', click: () => actions.connectFleet() },
        {
          label: 'Open Recent',
          submenu: recent.length === 0 ? [{ label: 'Nothing yet', enabled: false }] : recent.map((entry) => ({ label: entry, click: () => actions.openRecent(entry) })),
        },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
  ];
}

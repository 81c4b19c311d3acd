// The packaged app's Electron fuses (flipped in the binary at packaging time, `npm run package:fuses`), so that
// the shipped executable cannot be turned into something else: no `ELECTRON_RUN_AS_NODE` (a plain Node with
// our signature), no `NODE_OPTIONS` (code injected at start), no `--inspect` (a debugger attached to the main
// process that reads untrusted WALs), the app loaded only from its asar archive and that archive checked
// against the integrity hash the packager embeds; file:// gets no extra privileges (the renderer is served by
// app-protocol.ts). Never flipped on node_modules/electron: `npm start` runs the unpacked out/ folder.
import { flipFuses, FuseV1Options, FuseVersion, getCurrentFuseWire, type FuseV1Config } from '@electron/fuses';

export const APP_FUSES = {
  version: FuseVersion.V1,
  [FuseV1Options.RunAsNode]: false,
  [FuseV1Options.EnableCookieEncryption]: true,
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
} satisfies FuseV1Config;

/** '0' disabled, '1' enabled, as the fuse wire stores them. */
const FUSE_BYTE = { false: 0x30, true: 0x31 } as const;

/** Flips the fuses of a packaged Electron executable, then reads them back and fails unless each one holds. */
export async function flipAppFuses(electron_binary: string): Promise<void> {
  await flipFuses(electron_binary, APP_FUSES);
  const wire = (await getCurrentFuseWire(electron_binary)) as unknown as Record<string, number>;
  for (const option of Object.values(FuseV1Options).filter((value): value is FuseV1Options => typeof value === 'number')) {
    const expected = FUSE_BYTE[`${APP_FUSES[option]}`];
    if (wire[option] !== expected) throw new Error(`fuse ${FuseV1Options[option]} of ${electron_binary} reads ${wire[option]}, not ${expected}`);
  }
}

// walscope:// links in the desktop app (docs/share.md, "Links"): the app is the scheme's handler
// (setAsDefaultProtocolClient), one instance holds the lock, and a link reaches it on its command line (the first
// start, or a second instance's argv on Windows and Linux) or as macOS's open-url. What a link does is decided here,
// as a pure function, and main.ts only carries it out: open the link's path read-only (services/read-only.ts) unless
// it is the workspace shown already, then show what it names through the renderer's fragment. A link that does not
// parse is refused and said; no link ever runs an action.
import path from 'node:path';
import { LINK_SCHEME, linkFragment, parseLink } from '../../src-shared/links.js';
import { RENDERER_URL } from './app-protocol.js';

export { LINK_SCHEME };

export type LinkOpening =
  | { kind: 'refused'; message: string }
  /** Open `path` read-only first (`reopen`), or keep the workspace shown; then load `renderer_url`. */
  | { kind: 'open'; path: string; reopen: boolean; renderer_url: string };

/** The first walscope:// link among command-line arguments, or null (the scheme in any case, as a shell passes it). */
export function linkInArgv(argv: readonly string[]): string | null {
  return argv.find((arg) => arg.toLowerCase().startsWith(`${LINK_SCHEME}:`)) ?? null;
}

/** What the app opens at its start: a link's path (and the link), else the first path given, else the most recent. */
export function startTarget(args: readonly string[], recent: readonly string[]): { target: string | undefined; link: string | null } {
  const link = linkInArgv(args);
  if (link !== null) return { target: undefined, link };
  return { target: args.find((arg) => !arg.startsWith('-')) ?? recent[0], link: null };
}

/** What following `link` does while the workspace at `shown` (its path; null: none yet) is shown. */
export function linkOpening(link: string, shown: string | null): LinkOpening {
  const parsed = parseLink(link);
  if (!parsed.ok) return { kind: 'refused', message: `This ${LINK_SCHEME}:// link was not opened: ${parsed.error.message}.` };
  const { target } = parsed;
  const fragment = linkFragment(target);
  const wanted = path.resolve(target.path);
  return {
    kind: 'open',
    path: wanted,
    // The workspace shown is kept when it is the link's: a link grants nothing it has not, and takes nothing away.
    reopen: shown === null || path.resolve(shown) !== wanted,
    renderer_url: fragment === '' ? RENDERER_URL : `${RENDERER_URL}#${fragment}`,
  };
}

/** setAsDefaultProtocolClient's program and arguments beside the scheme: none for a packaged app (it is its own
 *  handler); `electron ENTRY` in development hands its entry file on, or the link would start Electron's default
 *  app. */
export function protocolClient(is_packaged: boolean, exec_path: string, argv: readonly string[]): { path: string; args: string[] } | null {
  if (is_packaged || argv[1] === undefined) return null;
  return { path: exec_path, args: [path.resolve(argv[1])] };
}

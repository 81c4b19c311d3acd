// Sharing a session from the window (docs/share.md): its walscope:// link (src-shared/links.ts) shown and copied —
// to the session, or to the step or record selected — and Export bundle, with the redaction dialog. The link only
// opens: it carries no token and no action. The bundle is getBundle's page, saved as a new file: through the
// desktop's save dialog (saveBundle), or as the browser's download.
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { REDACT_CLASSES, REDACT_CLASS_WORDS, type RedactClass } from '../../src-shared/bundle.js';
import { formatBytes } from '../../src-shared/format.js';
import { sessionLink, type LinkTarget } from '../../src-shared/links.js';
import { queries, saveBundle } from '../queries.js';
import { Modal } from './modal.js';

/** What in the session a link names besides it: a tab, a step or a record (all null: the session). */
export type LinkPlace = Omit<LinkTarget, 'path' | 'session'>;

export const SESSION_PLACE: LinkPlace = { tab: null, step: null, record: null };

/** The desktop app opens links itself; a browser only shows them. */
const ON_DESKTOP = saveBundle !== null;

/** The link to the session (at `place`) in the workspace at `path`, its copy button and where it opens. */
export function SessionLinkLine({ path, sessionKey, place }: { path: string; sessionKey: string; place: LinkPlace }) {
  const link = sessionLink(path, sessionKey, place) ?? sessionLink(path, sessionKey);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => setCopied(null), [link]);
  if (link === null) return <span className="muted head-text" data-testid="link-note">No walscope:// link: this workspace is not a path on this machine.</span>;
  const named = place.record !== null ? `record seq ${place.record}` : place.step !== null ? `step ${place.step.step_id} of episode ${place.step.episode}` : 'session';
  const copy = () => {
    navigator.clipboard.writeText(link).then(() => setCopied(`copied the link to this ${named}`), () => setCopied('the clipboard refused: select the link and copy it'));
  };
  return (
    <>
      <input className="mono link-field head-text" readOnly value={link} aria-label={`walscope:// link to this ${named}`} data-testid="session-link" onFocus={(event) => event.currentTarget.select()} />
      <button type="button" onClick={copy} data-testid="copy-link" title={`Copy the walscope:// link to this ${named}`}>Copy link</button>
      <span className="muted head-meta" data-testid="link-note">
        {copied ?? (ON_DESKTOP ? 'opens read-only in walscope' : <>opens in the desktop app, or after <code>walscope serve PATH</code></>)}
      </span>
    </>
  );
}

/** Export bundle…: the redaction dialog, then the page saved (desktop) or downloaded (browser). */
export function ExportBundle({ sessionKey }: { sessionKey: string }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [state, setState] = useState<{ kind: 'idle' | 'busy' } | { kind: 'done' | 'failed'; message: string }>({ kind: 'idle' });
  const run = async (classes: RedactClass[]) => {
    setOpen(false);
    setState({ kind: 'busy' });
    try {
      setState(await exportBundle(client, sessionKey, classes));
    } catch (error) {
      setState({ kind: 'failed', message: `bundle failed: ${(error as Error).message}` });
    }
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} disabled={state.kind === 'busy'} data-testid="export-bundle">{state.kind === 'busy' ? 'Making bundle…' : 'Export bundle…'}</button>
      {(state.kind === 'done' || state.kind === 'failed') && <span className={state.kind === 'failed' ? 'error' : 'muted'} role="status" data-testid="bundle-result">{state.message}</span>}
      {open && <RedactDialog onExport={(classes) => void run(classes)} onClose={() => setOpen(false)} />}
    </>
  );
}

async function exportBundle(client: QueryClient, key: string, classes: RedactClass[]): Promise<{ kind: 'idle' } | { kind: 'done' | 'failed'; message: string }> {
  const redacted = (markers: number) => (classes.length === 0 ? 'nothing redacted' : `${markers} marker(s) for ${classes.join(', ')}`);
  if (saveBundle !== null) {
    const saved = await saveBundle(key, classes);
    if (saved.saved) return { kind: 'done', message: `bundle saved to ${saved.path}: ${formatBytes(saved.size_bytes)}, ${redacted(saved.markers)}` };
    return saved.canceled ? { kind: 'idle' } : { kind: 'failed', message: saved.message };
  }
  const bundle = await client.fetchQuery(queries.bundle(key, classes));
  const url = URL.createObjectURL(new Blob([bundle.html], { type: 'text/html' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = bundle.file_name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { kind: 'done', message: `bundle downloaded as ${bundle.file_name}: ${formatBytes(bundle.size_bytes)}, ${redacted(bundle.markers)}` };
}

/** What to redact before the page is made (`--redact`'s classes); secrets are chosen to begin with. */
function RedactDialog({ onExport, onClose }: { onExport: (classes: RedactClass[]) => void; onClose: () => void }) {
  const [chosen, setChosen] = useState<ReadonlySet<RedactClass>>(() => new Set(['secrets']));
  const toggle = (name: RedactClass, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(name);
    else next.delete(name);
    setChosen(next);
  };
  return (
    <Modal titleId="redact-title" testId="redact-dialog" focusFirst onClose={onClose}>
      <h3 id="redact-title">Export bundle</h3>
      <p className="muted">One HTML page of the whole session that opens anywhere, offline. Redact before it is made: each value is replaced by a marker with its size and SHA-256, which whoever holds the WAL can check.</p>
      <fieldset className="redact-classes">
        <legend>Redact</legend>
        {REDACT_CLASSES.map((name) => (
          <label key={name} className="redact-class">
            <input type="checkbox" checked={chosen.has(name)} onChange={(event) => toggle(name, event.target.checked)} data-testid={`redact-${name}`} /> {REDACT_CLASS_WORDS[name]}
          </label>
        ))}
      </fieldset>
      <div className="modal-buttons">
        <button type="button" onClick={() => onExport(REDACT_CLASSES.filter((name) => chosen.has(name)))} data-testid="bundle-export">{ON_DESKTOP ? 'Save…' : 'Download'}</button>
        <button type="button" onClick={onClose} data-testid="bundle-cancel">Cancel</button>
      </div>
    </Modal>
  );
}

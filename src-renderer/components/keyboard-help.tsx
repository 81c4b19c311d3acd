// The keyboard help (`?`): a modal dialog that takes the focus, lists every key, and gives the focus back
// where it was when Escape or Close shuts it; Tab stays inside.
import { useEffect, useRef } from 'react';

const KEYS: [string, string][] = [
  ['?', 'this help'],
  ['↑ / ↓', 'in the session list: previous / next session (Home / End: first / last)'],
  ['← / →', 'on the tabs: previous / next tab'],
  ['j / k', 'next / previous row'],
  ['Home / End', 'first / last row'],
  ['Enter', 'open the selected row'],
  ['/', 'search in the session'],
  ['Enter / Shift+Enter', 'in the search: first or next / previous match'],
  ['f', 'filter the timeline (errors only, call class, tool, record type)'],
  ['n / p', 'in a comparison: next / previous difference'],
  ['Escape', 'close the detail, the confirmation or this help'],
  ['Tab', 'move between controls; in a confirmation: its reason, Write and Close'],
];

export function KeyboardHelp({ onClose }: { onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    box.current?.focus();
    return () => before?.focus();
  }, []);
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="keyboard-help-title" tabIndex={-1} ref={box} data-testid="keyboard-help"
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation();
            onClose();
          } else if (event.key === 'Tab') {
            // Modal: the focus stays inside (its one control).
            event.preventDefault();
            close.current?.focus();
          }
        }}>
        <h3 id="keyboard-help-title">Keyboard</h3>
        <table className="keys">
          <tbody>{KEYS.map(([key, what]) => <tr key={key}><th scope="row"><kbd>{key}</kbd></th><td>{what}</td></tr>)}</tbody>
        </table>
        <div className="actions"><button type="button" ref={close} onClick={onClose} data-testid="help-close">Close</button></div>
      </div>
    </div>
  );
}

// The keyboard help (`?`): a modal dialog that takes the focus, lists every key, and gives the focus back
// where it was when Escape or Close shuts it; Tab stays inside.
import { Modal } from './modal.js';

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
  return (
    <Modal titleId="keyboard-help-title" testId="keyboard-help" onClose={onClose}>
      <h3 id="keyboard-help-title">Keyboard</h3>
      <table className="keys">
        <tbody>{KEYS.map(([key, what]) => <tr key={key}><th scope="row"><kbd>{key}</kbd></th><td>{what}</td></tr>)}</tbody>
      </table>
      <div className="actions"><button type="button" onClick={onClose} data-testid="help-close">Close</button></div>
    </Modal>
  );
}

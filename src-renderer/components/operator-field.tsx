// The operator's name in a confirmation: asked for once (then kept, operator.ts), shown after that with a way to
// change it. Every write the app makes records it, with the OS user walscope runs as beside it; through a fleet
// the WAL names the NATS user the view logs in as, and the name given here goes into the fleet's audit beside it.
import { useState } from 'react';
import { isOperatorName, OPERATOR_NAME_CHARS_MAX } from '../../src-shared/ipc.js';
import { useIsFleet } from '../operator.js';

export function OperatorField({ name, onChange }: { name: string; onChange: (name: string) => void }) {
  const [editing, setEditing] = useState(!isOperatorName(name));
  const fleet = useIsFleet();
  if (!editing) {
    return (
      <p className="muted" data-testid="operator-name">
        {fleet ? <>Recorded in the fleet&apos;s audit as <strong>{name}</strong>; the WAL names the NATS user this view logs in as.</> : <>Recorded as <strong>{name}</strong>, with the OS user walscope runs as beside it.</>}{' '}
        <button type="button" className="link-button" onClick={() => setEditing(true)} data-testid="operator-change">Not you?</button>
      </p>
    );
  }
  return (
    <label className="reason">
      Your name (asked once and kept in this profile; recorded with {fleet ? 'the NATS user this view logs in as' : 'the OS user walscope runs as'} beside it):
      <input type="text" value={name} onChange={(event) => onChange(event.target.value)} maxLength={OPERATOR_NAME_CHARS_MAX} required autoComplete="name" data-testid="operator-input" />
    </label>
  );
}

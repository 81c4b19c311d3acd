// Who is at the keyboard: the name an operator gives once, recorded in every operator_action the app writes (with
// the OS user walscope runs as beside it, and through a fleet the server's authenticated user). Kept in this
// profile's storage: the desktop app's profile, or the browser's for this origin (`walscope serve --port N` keeps
// the origin, and so the name, across runs).
import { useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { isOperatorName } from '../src-shared/ipc.js';
import { queries } from './queries.js';

const OPERATOR_STORAGE_KEY = 'walscope_operator';

function storedName(): string {
  try {
    return window.localStorage.getItem(OPERATOR_STORAGE_KEY) ?? '';
  } catch {
    return ''; // storage refused (a private window): the name is asked for each time
  }
}

/** The operator's name as given (empty until given), and how to change it; kept once it is a valid name. */
export function useOperatorName(): [string, (name: string) => void] {
  const [name, setName] = useState(storedName);
  const change = useCallback((next: string) => {
    setName(next);
    if (!isOperatorName(next)) return;
    try {
      window.localStorage.setItem(OPERATOR_STORAGE_KEY, next.trim());
    } catch {
      // kept for this page only
    }
  }, []);
  return [name, change];
}

/** Who an operator_action names and from where, as a confirmation says it: through a fleet, the NATS user the view
 *  logs in as (the name given goes into the fleet's audit). */
export function useRecordedWho(): string {
  return useIsFleet() ? 'the NATS user this view logs in as and your reason, via fleet' : 'your name and reason, via app';
}

/** The workspace is a fleet: its writes are recorded under the server's authenticated user. */
export function useIsFleet(): boolean {
  return useQuery(queries.workspace()).data?.kind === 'fleet';
}

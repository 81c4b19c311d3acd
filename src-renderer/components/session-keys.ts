// The session view's keys, anywhere but in a text field: j / k move, Home / End go to the first / last row (a
// million rows are too many to walk), Enter opens the row's detail, Escape closes it (or leaves a text field),
// / goes to the search box, f to the Timeline's filter bar (showing the Timeline first).
import { useEffect, type Dispatch, type RefObject } from 'react';
import type { SessionViewAction } from './session-state.js';

export function useSessionKeys(total: number, current: number | null, dispatch: Dispatch<SessionViewAction>, search_box: RefObject<HTMLInputElement | null>, filter_box: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target !== null && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) {
        if (event.key === 'Escape') target.blur();
        return;
      }
      const action = actionOf(event.key, total, current);
      if (action === undefined) return;
      event.preventDefault();
      if (action === 'search') search_box.current?.focus();
      else if (action === 'filter') focusFilter(dispatch, filter_box);
      else if (action !== null) dispatch(action);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [total, current, dispatch, search_box, filter_box]);
}

/** The filter bar is on the Timeline only: on another tab, `f` shows the Timeline and focuses the bar once it is
 *  drawn. */
function focusFilter(dispatch: Dispatch<SessionViewAction>, filter_box: RefObject<HTMLInputElement | null>): void {
  if (filter_box.current !== null) {
    filter_box.current.focus();
    return;
  }
  dispatch({ type: 'show', tab: 'timeline' });
  requestAnimationFrame(() => filter_box.current?.focus());
}

/** What a key does: an action, 'search' or 'filter', null (taken, but nothing to do: an empty list), or undefined
 *  (not ours). */
function actionOf(key: string, total: number, current: number | null): SessionViewAction | 'search' | 'filter' | null | undefined {
  switch (key) {
    case 'j':
    case 'k': {
      const step = key === 'j' ? 1 : -1;
      if (total === 0) return { type: 'follow', on: false };
      return { type: 'move', index: Math.min(total - 1, Math.max(0, (current ?? (step > 0 ? -1 : total)) + step)) };
    }
    case 'Home':
    case 'End':
      return total === 0 ? { type: 'follow', on: false } : { type: 'move', index: key === 'Home' ? 0 : total - 1 };
    case 'Enter':
      return current === null ? null : { type: 'detail', open: true };
    case 'Escape':
      return { type: 'detail', open: false };
    case '/':
      return 'search';
    case 'f':
      return 'filter';
    default:
      return undefined;
  }
}

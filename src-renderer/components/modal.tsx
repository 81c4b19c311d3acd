// A modal dialog: it takes the focus (its box, or the first control `focusFirst` names), keeps Tab inside, shuts
// on Escape or a click beside it, and gives the focus back where it was. The one way the window shows a dialog.
import { useEffect, useRef, type ReactNode } from 'react';

interface ModalProps {
  /** The id of the heading that names the dialog (aria-labelledby). */
  titleId: string;
  className?: string;
  testId: string;
  /** Focus the first input inside rather than the box (a form's first choice). */
  focusFirst?: boolean;
  onClose: () => void;
  children: ReactNode;
}

export function Modal({ titleId, className, testId, focusFirst = false, onClose, children }: ModalProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const first = focusFirst ? box.current?.querySelector<HTMLElement>('input, button') : null;
    (first ?? box.current)?.focus();
    return () => before?.focus();
  }, [focusFirst]);
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div className={className === undefined ? 'modal' : `modal ${className}`} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} ref={box} data-testid={testId}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation();
            onClose();
          } else if (event.key === 'Tab') {
            keepFocusInside(box.current, event);
          }
        }}>
        {children}
      </div>
    </div>
  );
}

function keepFocusInside(box: HTMLElement | null, event: React.KeyboardEvent): void {
  const focusable = [...(box?.querySelectorAll<HTMLElement>('button, [href], input, select, textarea') ?? [])];
  if (focusable.length === 0) return;
  const first = focusable[0]!;
  const last = focusable[focusable.length - 1]!;
  if (event.shiftKey && (document.activeElement === first || document.activeElement === box)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (document.activeElement === last || document.activeElement === box)) {
    event.preventDefault();
    first.focus();
  }
}

// A modal dialog: over the page, focus moves into it (the first field, or the element marked
// data-autofocus), Tab stays inside, Escape closes it, and focus goes back where it was.
import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Dialog({
  title,
  onClose,
  children,
  role = 'dialog',
  className,
  testId,
}: {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  /** `alertdialog` for a question that needs an answer (a confirm). */
  role?: 'dialog' | 'alertdialog';
  className?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const box = ref.current;
    const first = box?.querySelector<HTMLElement>('[data-autofocus]') ?? box?.querySelector<HTMLElement>('input, select, textarea');
    (first ?? box)?.focus();
    return () => {
      if (opener && opener.isConnected) opener.focus();
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      close.current();
      return;
    }
    if (e.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div className="int-overlay" onMouseDown={(e) => e.target === e.currentTarget && close.current()}>
      <div
        ref={ref}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        className={className ? `card int-dialog ${className}` : 'card int-dialog'}
        data-testid={testId}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="int-dialog-title">
          {title}
        </h2>
        {children}
      </div>
    </div>,
    document.body,
  );
}

/** "Disconnect GitHub?" with what it means, and two buttons. */
export function ConfirmDialog({
  title,
  children,
  confirm,
  busy,
  onConfirm,
  onCancel,
  error,
}: {
  title: string;
  children: ReactNode;
  confirm: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  error?: ReactNode;
}) {
  return (
    <Dialog title={title} onClose={onCancel} role="alertdialog" testId="confirm">
      <div className="int-dialog-body">{children}</div>
      {error}
      <div className="int-dialog-actions">
        <button type="button" className="btn btn-quiet" onClick={onCancel} data-autofocus>
          Cancel
        </button>
        <button type="button" className="btn btn-stop" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </Dialog>
  );
}

// A Copy button that says "Copied" for a moment after it worked (and "Couldn't copy" if not).
import { useEffect, useState } from 'react';
import { copyText } from './clipboard';

export function CopyButton({ text, label, className = 'btn btn-quiet chat-mini-btn' }: { text: () => string; label: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    copyText(text()).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <button type="button" className={className} aria-label={state === 'idle' ? label : undefined} onClick={copy} data-state={state}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? "Couldn't copy" : 'Copy'}</span>
    </button>
  );
}

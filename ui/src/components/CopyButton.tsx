// Copies a value to the clipboard and says so for a moment.
import { useEffect, useState } from 'react';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      className="btn btn-quiet"
      aria-label={label}
      onClick={() => {
        const clipboard = globalThis.navigator?.clipboard;
        if (!clipboard) {
          setState('failed');
          return;
        }
        clipboard.writeText(value).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy it' : 'Copy'}
    </button>
  );
}

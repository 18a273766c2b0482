// The window's colours follow the `ui.theme` setting: dark (default), light, or this computer's.
import { useEffect, useState } from 'react';

function systemPrefersLight(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: light)').matches;
}

export function useApplyTheme(theme: string | undefined): void {
  const [systemLight, setSystemLight] = useState(systemPrefersLight);

  useEffect(() => {
    if (theme !== 'system' || typeof window.matchMedia !== 'function') return;
    const query = window.matchMedia('(prefers-color-scheme: light)');
    const onChange = () => setSystemLight(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, [theme]);

  const resolved = theme === 'light' || (theme === 'system' && systemLight) ? 'light' : 'dark';
  useEffect(() => {
    document.documentElement.dataset.theme = resolved;
  }, [resolved]);
}

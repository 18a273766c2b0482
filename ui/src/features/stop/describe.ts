// Plain words for where and when Sentient was stopped.

const SOURCES: Record<string, string> = {
  desktop: 'from the app',
  tray: 'from the tray menu',
  hotkey: 'with the keyboard shortcut',
  telegram: 'from Telegram',
  discord: 'from Discord',
  device: 'from a connected device',
};

export function describeSource(source: string | null | undefined): string | null {
  if (!source) return null;
  return SOURCES[source] ?? `from ${source}`;
}

export function formatWhen(iso: string | null | undefined, now: Date = new Date()): string | null {
  if (!iso) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  const time = at.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  const sameDay = at.toDateString() === now.toDateString();
  if (sameDay) return `at ${time}`;
  const date = at.toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    year: at.getFullYear() === now.getFullYear() ? undefined : 'numeric',
  });
  return `on ${date} at ${time}`;
}

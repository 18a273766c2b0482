// Which part of Settings shows lives in the hash after the page (`#/settings/models`), so a
// reload keeps it and the sidebar still marks Settings. A tab made from a settings section
// (`section`) is shown only when the settings' schema has that section and doesn't hide it.
import { useEffect, useState } from 'react';

export const SETTINGS_TABS = [
  { id: 'general', label: 'General', href: '#/settings' },
  { id: 'models', label: 'Models', href: '#/settings/models' },
  { id: 'chats', label: 'Chats', href: '#/settings/chats', section: 'chat' },
  { id: 'tasks', label: 'Tasks', href: '#/settings/tasks', section: 'tasks' },
  { id: 'safety', label: 'Approvals & safety', href: '#/settings/safety', section: 'tools' },
  { id: 'scripts', label: 'Scripts', href: '#/settings/scripts', section: 'sandbox' },
  { id: 'terminal', label: 'Terminal', href: '#/settings/terminal', section: 'terminal' },
  { id: 'browser', label: 'Browser', href: '#/settings/browser', section: 'browser' },
  { id: 'webhooks', label: 'Webhooks', href: '#/settings/webhooks' },
  { id: 'devices', label: 'Devices', href: '#/settings/devices', section: 'nodes' },
] as const;

export type SettingsTab = (typeof SETTINGS_TABS)[number]['id'];

export function settingsTabFromHash(hash: string): SettingsTab {
  const parts = hash.replace(/^#\/?/, '').split(/[?&]/)[0].split('/');
  if (parts[0] !== 'settings') return 'general';
  return SETTINGS_TABS.find((t) => t.id === parts[1])?.id ?? 'general';
}

export function useSettingsTab(): SettingsTab {
  const [tab, setTab] = useState<SettingsTab>(() => settingsTabFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setTab(settingsTabFromHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    onChange();
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return tab;
}

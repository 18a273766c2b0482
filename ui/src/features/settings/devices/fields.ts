// Settings > Devices: the `nodes` settings the tab changes, worded as the engine's schema words
// them (src-tauri/engine/src/config/schema.rs, NodesConfig), with the schema's ranges for the
// numbers and a plain sentence when a number is out of them.
import type { LanStatus } from '../../../api';

export type NodesSettings = {
  enabled: boolean;
  lan_enabled: boolean;
  lan_port: number;
  mdns_enabled: boolean;
  camera_requires_approval: boolean;
  allow_desktop_screen: boolean;
  invoke_timeout_s: number;
  idle_timeout_s: number;
};

/** The engine's defaults, for a settings object that leaves something out. */
export const NODES_DEFAULTS: NodesSettings = {
  enabled: true,
  lan_enabled: false,
  lan_port: 7778,
  mdns_enabled: true,
  camera_requires_approval: true,
  allow_desktop_screen: true,
  invoke_timeout_s: 20,
  idle_timeout_s: 180,
};

export type ToggleKey = 'enabled' | 'lan_enabled' | 'mdns_enabled' | 'camera_requires_approval' | 'allow_desktop_screen';
export type NumberKey = 'lan_port' | 'invoke_timeout_s' | 'idle_timeout_s';

export const TOGGLES: ReadonlyArray<{ key: ToggleKey; label: string; help: string }> = [
  {
    key: 'enabled',
    label: 'Allow phones, glasses and other devices to connect',
    help: 'Turned off, every device is disconnected and none can pair.',
  },
  {
    key: 'lan_enabled',
    label: 'Accept devices on your local network',
    help: 'Encrypted, and each device needs a pairing code. Off, only this computer can reach Sentient.',
  },
  {
    key: 'mdns_enabled',
    label: 'Announce Sentient on your network',
    help: 'So devices find it without typing an address.',
  },
  {
    key: 'camera_requires_approval',
    label: 'Ask before taking a photo or capturing a screen',
    help: 'The assistant asks you before it takes a photo or captures a screen with one of your devices.',
  },
  {
    key: 'allow_desktop_screen',
    label: "Let the assistant capture this computer's screen",
    help: 'Through the desktop app, when you ask it to.',
  },
];

export const NUMBERS: ReadonlyArray<{ key: NumberKey; label: string; help: string; min: number; max: number; error: string }> = [
  {
    key: 'lan_port',
    label: 'Port for devices on your network',
    help: 'The port devices on your network connect to.',
    min: 1024,
    max: 65535,
    error: 'The port must be a whole number from 1024 to 65535.',
  },
  {
    key: 'invoke_timeout_s',
    label: 'Seconds to wait for a device',
    help: 'How long to wait for a device to answer a request.',
    min: 2,
    max: 120,
    error: 'Wait between 2 and 120 seconds for a device.',
  },
  {
    key: 'idle_timeout_s',
    label: 'Seconds before a quiet device counts as gone',
    help: 'A device that sends nothing for this many seconds is treated as disconnected.',
    min: 30,
    max: 3600,
    error: 'A device can stay quiet for 30 to 3600 seconds.',
  },
];

/** The `nodes` section of the settings, with the defaults for anything it leaves out. */
export function nodesFrom(config: unknown): NodesSettings {
  const nodes = (config as { nodes?: Partial<NodesSettings> } | undefined)?.nodes;
  return { ...NODES_DEFAULTS, ...(nodes ?? {}) };
}

/** The typed text as a number in `min..max`, or null when it isn't one. */
export function parseWhole(text: string, min: number, max: number): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return n >= min && n <= max ? n : null;
}

/** Whether the listener already does what the settings ask (so there is nothing to wait for). */
export function lanSettled(lan: LanStatus, nodes: NodesSettings): boolean {
  const on = nodes.enabled && nodes.lan_enabled;
  if (!on) return !lan.running && !lan.mdns;
  return lan.running && lan.port === nodes.lan_port && lan.mdns === nodes.mdns_enabled;
}

/** The listener's state in a few words: running, its error, starting or off. */
export function lanStateWords(lan: LanStatus, nodes: NodesSettings): string {
  if (lan.running) return `Running on port ${lan.port}`;
  if (lan.error) return lan.error;
  if (nodes.enabled && nodes.lan_enabled) return 'Starting…';
  return 'Off';
}

// Settings > Devices: which `nodes` settings the tab shows. Their descriptions, ranges and units
// come from the settings' schema (GET /api/config/schema) through the generic form (../form/);
// nothing here copies a limit.
import type { LanStatus } from '../../../api';
import type { FieldSpec } from '../form/schema';

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

/** The switches of the tab; their words are the schema's descriptions. */
export const TOGGLE_FIELDS: ReadonlyArray<FieldSpec> = [
  { key: 'enabled' },
  { key: 'lan_enabled' },
  { key: 'mdns_enabled' },
  { key: 'camera_requires_approval' },
  { key: 'allow_desktop_screen' },
];

/** The numbers of the tab: a short title each; the description, range and unit come from the schema. */
export const NUMBER_FIELDS: ReadonlyArray<FieldSpec> = [
  { key: 'lan_port', title: 'Port for devices on your network' },
  { key: 'invoke_timeout_s', title: 'Seconds to wait for a device' },
  { key: 'idle_timeout_s', title: 'Seconds before a quiet device counts as gone' },
];

/** The `nodes` section of the settings, with the defaults for anything it leaves out. */
export function nodesFrom(config: unknown): NodesSettings {
  const nodes = (config as { nodes?: Partial<NodesSettings> } | undefined)?.nodes;
  return { ...NODES_DEFAULTS, ...(nodes ?? {}) };
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

// Settings > Devices against the fake engine: the tab in the address and the tab bar; each switch
// saves its `nodes` setting at once; a number out of the schema's range (the engine's schema, read
// through the generic form) is explained and never sent, a good one is saved on Enter or on leaving the field, and the engine's 422 is shown; the
// listener's card says running (addresses, fingerprint, announced), off or why it can't run, and
// asks again after a save and when the settings change elsewhere.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../App';
import { ApiError } from '../../../api/errors';
import type { Config, LanStatus } from '../../../api';
import { fakeApi, LAN_OFF, LAN_ON, makeBootstrap } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { settingsTabFromHash } from '../tabs';
import { NODES_DEFAULTS, lanSettled, lanStateWords, type NodesSettings } from './fields';
import { NETWORK_NOTE } from './DevicesSettings';

function setup({ nodes = {}, lan = LAN_OFF }: { nodes?: Partial<NodesSettings>; lan?: LanStatus } = {}) {
  window.location.hash = '#/settings/devices';
  const engine = fakeApi(makeBootstrap());
  let current: NodesSettings = { ...NODES_DEFAULTS, ...nodes };
  engine.setLan(lan);
  engine.api.getConfig.mockImplementation(async () => ({ nodes: current }) as unknown as Config);
  engine.api.patchConfig.mockImplementation(async (...args: unknown[]) => {
    const partial = args[0] as Record<string, unknown>;
    current = { ...current, ...(partial.nodes as Partial<NodesSettings>) };
    return { saved: true, config: { nodes: current } as unknown as Config };
  });
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

afterEach(() => {
  window.location.hash = '';
});

const state = () => screen.findByTestId('lan-state');

describe('Settings > Devices words', () => {
  it('says what the listener is doing and knows when it matches the settings', () => {
    const on = { ...NODES_DEFAULTS, lan_enabled: true };
    expect(lanStateWords(LAN_ON, on)).toBe('Running on port 7778');
    expect(lanStateWords(LAN_OFF, NODES_DEFAULTS)).toBe('Off');
    expect(lanStateWords(LAN_OFF, on)).toBe('Starting…');
    expect(lanStateWords({ ...LAN_OFF, enabled: true, error: 'Port 7778 is busy.' }, on)).toBe('Port 7778 is busy.');
    expect(lanSettled(LAN_ON, on)).toBe(true);
    expect(lanSettled(LAN_OFF, on)).toBe(false);
    expect(lanSettled(LAN_ON, { ...on, lan_port: 9000 })).toBe(false);
    expect(lanSettled(LAN_OFF, NODES_DEFAULTS)).toBe(true);
    expect(lanSettled(LAN_ON, NODES_DEFAULTS)).toBe(false);
  });
});

describe('Settings > Devices', () => {
  it('has its own tab in the address and in the tab bar', async () => {
    expect(settingsTabFromHash('#/settings/devices')).toBe('devices');
    window.location.hash = '#/settings';
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    const tabs = await screen.findByRole('navigation', { name: 'Settings' });
    const tab = within(tabs).getByRole('link', { name: 'Devices' });
    expect(tab).toHaveAttribute('href', '#/settings/devices');
    expect(tab).not.toHaveAttribute('aria-current');
    act(() => {
      window.location.hash = '#/settings/devices';
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    await waitFor(() => expect(within(tabs).getByRole('link', { name: 'Devices' })).toHaveAttribute('aria-current', 'page'));
    expect(await screen.findByRole('switch', { name: /Accept devices on your local network/ })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Network listener' })).toBeInTheDocument();
  });

  it('shows each switch as the settings have it and saves a change at once', async () => {
    const { engine } = setup({ nodes: { camera_requires_approval: false } });
    const sw = (name: RegExp) => screen.getByRole('switch', { name });
    await screen.findByRole('switch', { name: /Allow phones, glasses and other devices to connect/ });
    expect(sw(/Allow phones, glasses/)).toBeChecked();
    expect(sw(/Accept devices on your local network/)).not.toBeChecked();
    expect(sw(/Announce Sentient on your network/)).toBeChecked();
    expect(sw(/Ask before the assistant takes a photo or captures a screen/)).not.toBeChecked();
    expect(sw(/Let the assistant capture this computer's screen/)).toBeChecked();

    const cases: Array<[RegExp, Partial<NodesSettings>]> = [
      [/Accept devices on your local network/, { lan_enabled: true }],
      [/Announce Sentient on your network/, { mdns_enabled: false }],
      [/Ask before the assistant takes a photo/, { camera_requires_approval: true }],
      [/Let the assistant capture/, { allow_desktop_screen: false }],
      [/Allow phones, glasses/, { enabled: false }],
    ];
    for (const [name, patch] of cases) {
      await waitFor(() => expect(sw(name)).toBeEnabled());
      await userEvent.click(sw(name));
      expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ nodes: patch });
      const [, value] = Object.entries(patch)[0];
      await waitFor(() => expect((sw(name) as HTMLInputElement).checked).toBe(value));
    }
    expect(engine.api.patchConfig).toHaveBeenCalledTimes(cases.length);
  });

  it('says "Saving…" while a switch is saved, and why it could not be', async () => {
    const { engine } = setup();
    let finish: () => void = () => {};
    engine.api.patchConfig.mockImplementationOnce(
      () =>
        new Promise((_resolve, reject) => {
          finish = () => reject(new ApiError(500, 'The settings file could not be written.'));
        }),
    );
    await userEvent.click(await screen.findByRole('switch', { name: /Accept devices on your local network/ }));
    expect(await screen.findByText('Saving…')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: /Accept devices on your local network/ })).toBeDisabled();
    await act(async () => finish());
    expect(await screen.findByText("Couldn't save that. The settings file could not be written.")).toBeInTheDocument();
    expect(screen.queryByText('Saving…')).toBeNull();
    expect(screen.getByRole('switch', { name: /Accept devices on your local network/ })).not.toBeChecked();
  });

  it('explains a port out of range and sends nothing; a good one is saved once on Enter', async () => {
    const { engine } = setup();
    const port = await screen.findByRole('spinbutton', { name: /Port for devices on your network/ });
    expect(port).toHaveValue(7778);
    await userEvent.clear(port);
    await userEvent.type(port, '80');
    await userEvent.tab();
    expect(await screen.findByText('Use a whole number from 1024 to 65535.')).toBeInTheDocument();
    expect(port).toHaveAttribute('aria-invalid', 'true');
    await userEvent.clear(port);
    await userEvent.type(port, 'abc{Enter}');
    expect(screen.getByText('Use a whole number from 1024 to 65535.')).toBeInTheDocument();
    expect(engine.api.patchConfig).not.toHaveBeenCalled();

    await userEvent.clear(port);
    await userEvent.type(port, '8443{Enter}');
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ nodes: { lan_port: 8443 } });
    expect(screen.queryByText('Use a whole number from 1024 to 65535.')).toBeNull();
    await userEvent.tab();
    await waitFor(() => expect(port).toHaveValue(8443));
    expect(engine.api.patchConfig).toHaveBeenCalledTimes(1);
  });

  it('checks the seconds with their ranges and saves them when leaving the field', async () => {
    const { engine } = setup();
    const wait = await screen.findByRole('spinbutton', { name: /Seconds to wait for a device/ });
    expect(wait).toHaveValue(20);
    await userEvent.clear(wait);
    await userEvent.type(wait, '121');
    await userEvent.tab();
    expect(await screen.findByText('Use a whole number of seconds from 2 to 120.')).toBeInTheDocument();
    const idle = screen.getByRole('spinbutton', { name: /Seconds before a quiet device counts as gone/ });
    await userEvent.clear(idle);
    await userEvent.type(idle, '29');
    await userEvent.tab();
    expect(await screen.findByText('Use a whole number of seconds from 30 to 3600.')).toBeInTheDocument();
    expect(engine.api.patchConfig).not.toHaveBeenCalled();

    await userEvent.clear(idle);
    await userEvent.type(idle, '600');
    await userEvent.tab();
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ nodes: { idle_timeout_s: 600 } });
    expect(engine.api.patchConfig).toHaveBeenCalledTimes(1);
  });

  it("shows the engine's reason when it refuses a number", async () => {
    const { engine } = setup();
    engine.api.patchConfig.mockRejectedValueOnce({
      status: 422,
      detail: [{ loc: ['body', 'nodes', 'lan_port'], msg: "Port 7777 is the gateway's own port.", type: 'value_error' }],
    });
    const port = await screen.findByRole('spinbutton', { name: /Port for devices on your network/ });
    await userEvent.clear(port);
    await userEvent.type(port, '7777{Enter}');
    expect(await screen.findByText("Couldn't save that. Port 7777 is the gateway's own port.")).toBeInTheDocument();
  });

  it('shows the listener running: its port, addresses, fingerprint to copy and the announcement', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(window.navigator, 'clipboard', { value: { writeText }, configurable: true });
    setup({ nodes: { lan_enabled: true, lan_port: 7778 }, lan: LAN_ON });
    expect(await state()).toHaveTextContent('Running on port 7778');
    const card = screen.getByRole('region', { name: 'Network listener' });
    expect(within(card).getByTestId('lan-web-urls')).toHaveTextContent('https://192.168.1.20:7778/node/');
    expect(within(card).getByTestId('lan-urls')).toHaveTextContent('wss://192.168.1.20:7778/ws/node');
    expect(within(card).getByTestId('lan-fingerprint')).toHaveTextContent('AB:CD:EF:01');
    expect(within(card).getByTestId('lan-mdns')).toHaveTextContent('Yes');
    await userEvent.click(within(card).getByRole('button', { name: 'Copy the fingerprint' }));
    expect(writeText).toHaveBeenCalledWith('AB:CD:EF:01');
  });

  it('shows the listener off, and not announced', async () => {
    setup();
    expect(await state()).toHaveTextContent(/^Off$/);
    const card = screen.getByRole('region', { name: 'Network listener' });
    expect(within(card).queryByTestId('lan-fingerprint')).toBeNull();
    expect(within(card).getByTestId('lan-mdns')).toHaveTextContent('No');
  });

  it("says why the listener can't run", async () => {
    const busy = 'Port 7778 is busy, so devices on the network cannot connect. Choose another nodes.lan_port in Settings.';
    setup({ nodes: { lan_enabled: true }, lan: { ...LAN_OFF, enabled: true, error: busy } });
    expect(await state()).toHaveTextContent(busy);
    expect(screen.getByTestId('lan-state')).toHaveAttribute('role', 'alert');
  });

  it('asks the listener again after a save until it runs', async () => {
    const { engine } = setup();
    expect(await state()).toHaveTextContent('Off');
    const asked = engine.api.lanStatus.mock.calls.length;
    // The engine starts the listener a moment after it answers the save.
    engine.api.patchConfig.mockImplementationOnce(async () => {
      setTimeout(() => engine.setLan({ ...LAN_ON, port: 7778 }), 300);
      return { saved: true, config: { nodes: { ...NODES_DEFAULTS, lan_enabled: true } } as unknown as Config };
    });
    await userEvent.click(screen.getByRole('switch', { name: /Accept devices on your local network/ }));
    await waitFor(() => expect(engine.api.lanStatus.mock.calls.length).toBeGreaterThan(asked));
    await waitFor(() => expect(screen.getByTestId('lan-state')).toHaveTextContent('Running on port 7778'), { timeout: 3000 });
  });

  it('asks the listener again when the device settings change elsewhere', async () => {
    const { engine } = setup();
    expect(await state()).toHaveTextContent('Off');
    engine.setLan(LAN_ON);
    act(() => engine.emit('config.updated', { sections: ['nodes'] }));
    await waitFor(() => expect(screen.getByTestId('lan-state')).toHaveTextContent('Running on port 7778'));
  });

  it('says what the network sees', async () => {
    setup();
    expect(await screen.findByTestId('network-note')).toHaveTextContent(NETWORK_NOTE);
    expect(NETWORK_NOTE).toMatch(/TLS/);
    expect(NETWORK_NOTE).toMatch(/stays on this computer/);
  });
});

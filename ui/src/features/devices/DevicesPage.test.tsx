// The Devices page against the fake engine: empty, loading and error states; pairing shows the
// code, the QR code, the link and a countdown; the list puts online devices first and follows
// node events; rename in place; remove after a confirm (never the desktop app); tests of what a
// device offers, with its refusal as one sentence.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import { ApiError } from '../../api/errors';
import type { Node } from '../../api';
import { fakeApi, LAN_OFF, LAN_ON, makeBootstrap, makeNode, makePairing } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { EMPTY_WORDS, LAN_OFF_WORDS } from './DevicesPage';
import { ASK_WORDS, STARTING_WORDS, TURN_ON_LABEL, UNREACHABLE_WORDS } from './PairingCard';
import { batteryWords, connectionWords, countdown, isLoopbackUrl, lanErrorWords, relativeTime, replyError, shortFingerprint, svgImageSrc } from './words';

function setup(list: Node[] = []) {
  window.location.hash = '#/devices';
  const engine = fakeApi(makeBootstrap());
  engine.setNodes(list);
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

afterEach(() => {
  window.location.hash = '';
});

const names = () => screen.getAllByTestId('device').map((d) => within(d).getByTestId('device-name').textContent);
const card = (name: string) => screen.getByText(name, { selector: '[data-testid="device-name"]' }).closest('li') as HTMLElement;

describe('device words', () => {
  it('counts down as m:ss and stops at 0:00', () => {
    const now = Date.parse('2030-05-04T10:00:00Z');
    expect(countdown('2030-05-04T10:09:41Z', now).words).toBe('9:41');
    expect(countdown('2030-05-04T10:00:05Z', now).words).toBe('0:05');
    expect(countdown('2030-05-04T09:59:00Z', now)).toEqual({ left: 0, words: '0:00' });
  });

  it('says when a device was seen, how it is connected and its battery', () => {
    const now = new Date('2030-05-04T10:00:00Z');
    expect(relativeTime('2030-05-04T09:59:30Z', now)).toBe('just now');
    expect(relativeTime('2030-05-04T09:55:00Z', now)).toBe('5 minutes ago');
    expect(relativeTime('2030-05-04T07:00:00Z', now)).toBe('3 hours ago');
    expect(relativeTime('2030-05-03T09:00:00Z', now)).toBe('yesterday');
    expect(connectionWords({ online: true, connection: 'lan' })).toBe('On your network');
    expect(connectionWords({ online: true, connection: 'local' })).toBe('On this computer');
    expect(connectionWords({ online: false, connection: null })).toBe('Offline');
    expect(batteryWords({ battery: 80, charging: true })).toBe('80%, charging');
    expect(batteryWords({ battery: null, charging: null })).toBeNull();
  });

  it("reads a device's refusal as one sentence, string or {code, message}", () => {
    expect(replyError({ ok: false, error: 'It took too long', code: 'timeout' })).toBe('It took too long.');
    expect(replyError({ ok: false, error: { code: 'permission_denied', message: 'Camera permission was denied.' } })).toBe(
      'Camera permission was denied.',
    );
    expect(replyError({ ok: false, code: 'offline' })).toBe('The device is offline.');
    expect(replyError({ ok: false })).toBe("The device couldn't do it.");
  });

  it('tells an address only this computer can open from one a phone can reach', () => {
    for (const url of [
      'http://127.0.0.1:7777/node/#code=1',
      'https://127.4.5.6:7778/node/',
      'http://localhost:7777/node/',
      'http://app.localhost/node/',
      'http://[::1]:7777/node/',
      'http://0.0.0.0:7777/node/',
      'not a url',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of ['https://192.168.1.20:7778/node/#code=1', 'https://10.0.0.5:7778/node/', 'https://sentient.lan:7778/node/']) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });

  it("reads the listener's refusal as a sentence, with the setting's name in words", () => {
    expect(lanErrorWords('Port 7778 is busy, so devices on the network cannot connect. Choose another nodes.lan_port in Settings.')).toBe(
      'Port 7778 is busy, so devices on the network cannot connect. Choose another port in Settings > Devices.',
    );
    expect(lanErrorWords('address already in use')).toBe('Address already in use.');
  });

  it('shows only SVG markup as the QR image, never as HTML', () => {
    expect(svgImageSrc('<svg xmlns="http://www.w3.org/2000/svg"></svg>')).toMatch(/^data:image\/svg\+xml;utf8,%3Csvg/);
    expect(svgImageSrc('<img src=x onerror=alert(1)>')).toBeNull();
  });
});

describe('Devices page', () => {
  it('is in the sidebar', async () => {
    setup();
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    const link = within(nav).getByRole('link', { name: 'Devices' });
    expect(link).toHaveAttribute('href', '#/devices');
    expect(link).toHaveAttribute('aria-current', 'page');
  });

  it('shows the empty words when nothing is paired', async () => {
    setup();
    expect(await screen.findByText(EMPTY_WORDS)).toBeInTheDocument();
    expect(screen.queryByTestId('device')).toBeNull();
  });

  it('shows loading while the list is on its way', async () => {
    window.location.hash = '#/devices';
    const engine = fakeApi(makeBootstrap());
    engine.api.listNodes.mockImplementation(() => new Promise(() => {}));
    renderWithApi(<App />, engine.api);
    expect(await screen.findByText('Loading devices…')).toBeInTheDocument();
  });

  it('says so when the list cannot be read, and tries again', async () => {
    window.location.hash = '#/devices';
    const engine = fakeApi(makeBootstrap());
    engine.api.listNodes.mockRejectedValueOnce(new ApiError(503, 'Devices are turned off.'));
    renderWithApi(<App />, engine.api);
    expect(await screen.findByText("Couldn't load your devices. Devices are turned off.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText(EMPTY_WORDS)).toBeInTheDocument();
  });

  it('pairs: the code large, the QR code, the link, the fingerprint and the countdown', async () => {
    const { engine } = setup();
    engine.setPairing(makePairing({ code: '482913', expires_at: new Date(Date.now() + 581_500).toISOString() }));
    await userEvent.click(await screen.findByRole('button', { name: 'Pair a device' }));
    expect(engine.api.createPairing).toHaveBeenCalledTimes(1);
    const pairing = await screen.findByTestId('pairing');
    expect(await within(pairing).findByTestId('pairing-code')).toHaveTextContent('482913');
    const qr = within(pairing).getByRole('img', { name: 'QR code to pair a device' });
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;utf8,%3Csvg/);
    // The engine's markup never becomes the page's own.
    expect(pairing.querySelector('svg path[d="M0 0h7v7H0z"]')).toBeNull();
    expect(within(pairing).getByTestId('pairing-url')).toHaveAttribute('href', 'https://192.168.1.20:7778/node/#code=123456');
    expect(within(pairing).getByRole('button', { name: 'Copy the link' })).toBeInTheDocument();
    // Too short to be a real fingerprint: no short code, the whole one under Details.
    expect(within(pairing).queryByTestId('pairing-short-code')).toBeNull();
    expect(within(pairing).getByTestId('pairing-fingerprint')).toHaveTextContent('AB:CD:EF:01');
    expect(within(pairing).getByTestId('pairing-expiry')).toHaveTextContent('Expires in 9:41');
    await userEvent.click(within(pairing).getByRole('button', { name: 'Done' }));
    expect(screen.queryByTestId('pairing')).toBeNull();
  });

  it('shows a short code to compare, with the whole fingerprint under Details', async () => {
    const fp = '3fa90c17b2447d1e9a0b2c3d4e5f60718293a4b5c6d7e8f90112233445566778';
    const { engine } = setup();
    engine.setPairing(makePairing({ fingerprint: fp, expires_at: new Date(Date.now() + 300_000).toISOString() }));
    await userEvent.click(await screen.findByRole('button', { name: 'Pair a device' }));
    const pairing = await screen.findByTestId('pairing');
    expect(await within(pairing).findByTestId('pairing-short-code')).toHaveTextContent('3F A9 0C 17 B2 44');
    expect(shortFingerprint(fp)).toBe('3F A9 0C 17 B2 44');
    // The colon-separated spelling gives the same code; anything else gives none.
    expect(shortFingerprint(fp.match(/../g)?.join(':').toUpperCase())).toBe('3F A9 0C 17 B2 44');
    expect(shortFingerprint('zz:zz:zz:zz:zz:zz')).toBeNull();
    // The 64 characters are not in view until Details is opened.
    const details = within(pairing).getByText('Details').closest('details') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(within(details).getByTestId('pairing-fingerprint')).toHaveTextContent(fp);
    await userEvent.click(within(pairing).getByText('Details'));
    expect(details.open).toBe(true);
    expect(within(details).getByRole('button', { name: 'Copy the fingerprint' })).toBeInTheDocument();
  });

  it('says so when a device pairs while the code shows', async () => {
    const { engine } = setup([makeNode({ node_id: 'desktop', name: 'This computer', kind: 'desktop', connection: 'local' })]);
    await screen.findByTestId('device');
    await userEvent.click(screen.getByRole('button', { name: 'Pair a device' }));
    await screen.findByTestId('pairing');
    // An update of a device that was already there is not a pairing.
    act(() => engine.emit('node.updated', makeNode({ node_id: 'desktop', name: 'This computer', kind: 'desktop', battery: 50 })));
    act(() => engine.emit('node.updated', makeNode({ node_id: 'p9', name: "Ada's phone" })));
    expect(await screen.findByTestId('pairing-done')).toHaveTextContent("Paired with Ada's phone. You can try it below.");
    expect(screen.queryByTestId('pairing')).toBeNull();
    await userEvent.click(within(screen.getByTestId('pairing-done')).getByRole('button', { name: 'Done' }));
    expect(screen.queryByTestId('pairing-done')).toBeNull();
  });

  it('leaves the fingerprint out without the LAN listener, and offers a new code once expired', async () => {
    const { engine } = setup();
    engine.setPairing(makePairing({ fingerprint: null, expires_at: new Date(Date.now() - 1000).toISOString() }));
    await userEvent.click(await screen.findByRole('button', { name: 'Pair a device' }));
    const pairing = await screen.findByTestId('pairing');
    expect(await within(pairing).findByText('This code has expired. Make a new one to pair a device.')).toBeInTheDocument();
    expect(within(pairing).queryByTestId('pairing-fingerprint')).toBeNull();
    engine.setPairing(makePairing({ code: '777777' }));
    await userEvent.click(within(pairing).getByRole('button', { name: 'Make a new code' }));
    expect(await within(screen.getByTestId('pairing')).findByTestId('pairing-code')).toHaveTextContent('777777');
  });

  it('says why a pairing code could not be made, and tries again', async () => {
    const { engine } = setup();
    engine.api.createPairing.mockRejectedValueOnce(new ApiError(409, 'Devices are turned off in Settings.'));
    await userEvent.click(await screen.findByRole('button', { name: 'Pair a device' }));
    expect(await screen.findByText("Couldn't make a pairing code. Devices are turned off in Settings.")).toBeInTheDocument();
    await userEvent.click(within(screen.getByTestId('pairing')).getByRole('button', { name: 'Try again' }));
    expect(await within(screen.getByTestId('pairing')).findByTestId('pairing-code')).toHaveTextContent('123456');
    expect(engine.api.createPairing).toHaveBeenCalledTimes(2);
  });

  it('with the network listener off, asks to turn it on before any code; Starting… until it runs, then the LAN code and QR', async () => {
    const { engine } = setup();
    engine.setLan(LAN_OFF);
    await userEvent.click(await screen.findByRole('button', { name: 'Pair a device' }));
    const card = await screen.findByTestId('pairing');
    expect(await within(card).findByText(ASK_WORDS)).toBeInTheDocument();
    // No code, no QR code and no link yet: there is nowhere a phone could go.
    expect(within(card).queryByRole('img')).toBeNull();
    expect(within(card).queryByRole('link', { name: /node/ })).toBeNull();
    expect(engine.api.createPairing).not.toHaveBeenCalled();
    // The page's own note makes way for the card: one button, not two.
    expect(screen.queryByTestId('lan-note')).toBeNull();
    expect(screen.getAllByRole('button', { name: TURN_ON_LABEL })).toHaveLength(1);

    // The setting is saved; the listener takes a moment to start.
    engine.api.patchConfig.mockImplementationOnce(async () => {
      engine.setLan({ ...LAN_OFF, enabled: true });
      return { saved: true, config: {} as never };
    });
    await userEvent.click(within(card).getByRole('button', { name: TURN_ON_LABEL }));
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ nodes: { lan_enabled: true } });
    expect(await within(card).findByText(STARTING_WORDS)).toBeInTheDocument();
    expect(within(card).getByRole('status')).toHaveTextContent(STARTING_WORDS);
    expect(engine.api.createPairing).not.toHaveBeenCalled();

    // It runs: the card asks again by itself and shows the code for the LAN address.
    engine.setLan(LAN_ON);
    expect(await within(card).findByTestId('pairing-code', {}, { timeout: 4000 })).toHaveTextContent('123456');
    expect(within(card).getByTestId('pairing-url')).toHaveAttribute('href', 'https://192.168.1.20:7778/node/#code=123456');
    expect(within(card).getByRole('img', { name: 'QR code to pair a device' })).toBeInTheDocument();
    expect(within(card).queryByText(STARTING_WORDS)).toBeNull();
    expect(engine.api.createPairing).toHaveBeenCalledTimes(1);
  });

  it("says why the listener couldn't start, and Try again turns it off and on", async () => {
    const { engine } = setup();
    engine.setLan({ ...LAN_OFF, enabled: true, error: 'address already in use (os error 98)' });
    await userEvent.click(await screen.findByRole('button', { name: 'Pair a device' }));
    const failed = await screen.findByTestId('pairing-failed');
    expect(failed).toHaveTextContent(
      "Sentient couldn't start listening for devices on your network. Address already in use (os error 98).",
    );
    expect(within(failed).getByRole('link', { name: 'Open Settings > Devices' })).toHaveAttribute('href', '#/settings/devices');
    expect(screen.queryByTestId('pairing-code')).toBeNull();

    // Off first (the listener drops its old error), then on again.
    let patches = 0;
    engine.api.patchConfig.mockImplementation(async () => {
      patches += 1;
      engine.setLan(patches === 1 ? LAN_OFF : LAN_ON);
      return { saved: true, config: {} as never };
    });
    await userEvent.click(within(failed).getByRole('button', { name: 'Try again' }));
    expect((engine.api.patchConfig.mock.calls as unknown[][]).map((c) => c[0])).toEqual([{ nodes: { lan_enabled: false } }, { nodes: { lan_enabled: true } }]);
    expect(await within(screen.getByTestId('pairing')).findByTestId('pairing-code', {}, { timeout: 4000 })).toBeInTheDocument();
  });

  it('never shows an address only this computer can open', async () => {
    const { engine } = setup();
    engine.setPairing(makePairing({ web_url: 'https://127.0.0.1:7778/node/#code=123456', qr: 'sentient://pair?url=wss://127.0.0.1:7778/ws/node' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Pair a device' }));
    const card = await screen.findByTestId('pairing');
    expect(await within(card).findByText(UNREACHABLE_WORDS)).toBeInTheDocument();
    expect(within(card).queryByRole('img')).toBeNull();
    expect(within(card).queryByTestId('pairing-url')).toBeNull();
    expect(card.textContent).not.toMatch(/127\.0\.0\.1|localhost/);

    engine.setPairing(makePairing({ code: '654321' }));
    await userEvent.click(within(card).getByRole('button', { name: 'Try again' }));
    expect(await within(card).findByTestId('pairing-code')).toHaveTextContent('654321');
  });

  it('notes when phones on the network cannot reach Sentient, and turns it on', async () => {
    window.location.hash = '#/devices';
    const engine = fakeApi(makeBootstrap());
    engine.setLan(LAN_OFF);
    renderWithApi(<App />, engine.api);
    const note = await screen.findByTestId('lan-note');
    expect(note).toHaveTextContent(LAN_OFF_WORDS);
    expect(within(note).getByRole('link', { name: 'Settings > Devices' })).toHaveAttribute('href', '#/settings/devices');
    await userEvent.click(within(note).getByRole('button', { name: 'Turn it on' }));
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ nodes: { lan_enabled: true } });
  });

  it('has no note while the LAN listener runs', async () => {
    const { engine } = setup([makeNode({ node_id: 'p1' })]);
    await screen.findByTestId('device');
    await waitFor(() => expect(engine.api.lanStatus).toHaveBeenCalled());
    expect(screen.queryByTestId('lan-note')).toBeNull();
    expect(LAN_ON.running).toBe(true);
  });

  it('lists online devices first, with what they are, how they connect, battery and capabilities', async () => {
    setup([
      makeNode({ node_id: 'w1', name: 'Old watch', kind: 'watch', online: false, connection: null, last_seen_at: new Date(Date.now() - 5 * 60_000).toISOString() }),
      makeNode({ node_id: 'p1', name: "Ada's phone", platform: 'android', battery: 80, charging: true, capabilities: ['notify.show', 'camera.photo'] }),
      makeNode({ node_id: 'desktop', name: 'This computer', kind: 'desktop', platform: 'linux', connection: 'local', capabilities: ['screen.capture'] }),
    ]);
    await screen.findAllByTestId('device');
    expect(names()).toEqual(["Ada's phone", 'This computer', 'Old watch']);

    const phone = card("Ada's phone");
    expect(phone).toHaveAttribute('data-online', 'true');
    expect(within(phone).getByTestId('device-status')).toHaveAccessibleName('Online');
    expect(within(phone).getByTestId('device-facts')).toHaveTextContent('Phone · android · On your network · Battery 80%, charging · Online now');
    expect(within(within(phone).getByRole('list', { name: 'What it can do' })).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Notifications',
      'Camera',
    ]);
    expect(within(card('This computer')).getByTestId('device-facts')).toHaveTextContent('On this computer');

    const watch = card('Old watch');
    expect(within(watch).getByTestId('device-status')).toHaveAccessibleName('Offline');
    expect(within(watch).getByTestId('device-facts')).toHaveTextContent('Watch · android · Offline · Last seen 5 minutes ago');
    // An offline device can't be tried.
    expect(within(watch).getByRole('button', { name: 'Send a test notification' })).toBeDisabled();
    expect(screen.queryByText(EMPTY_WORDS)).toBeNull();
  });

  it('follows node events: a device comes online, a new one pairs, one is removed', async () => {
    const { engine } = setup([
      makeNode({ node_id: 'p1', name: 'Phone', online: true }),
      makeNode({ node_id: 'g1', name: 'Glasses', kind: 'glasses', online: false, connection: null }),
    ]);
    await screen.findAllByTestId('device');
    expect(names()).toEqual(['Phone', 'Glasses']);
    act(() => engine.emit('node.updated', makeNode({ node_id: 'p1', name: 'Phone', online: false, connection: null })));
    await waitFor(() => expect(names()).toEqual(['Phone', 'Glasses']));
    act(() => engine.emit('node.updated', makeNode({ node_id: 'g1', name: 'Glasses', kind: 'glasses', online: true })));
    await waitFor(() => expect(names()).toEqual(['Glasses', 'Phone']));
    act(() => engine.emit('node.updated', makeNode({ node_id: 'n2', name: 'New tablet', online: true })));
    await waitFor(() => expect(names()).toEqual(['New tablet', 'Glasses', 'Phone']));
    act(() => engine.emit('node.deleted', { node_id: 'g1' }));
    await waitFor(() => expect(names()).toEqual(['New tablet', 'Phone']));
  });

  it('renames a device in place', async () => {
    const { engine } = setup([makeNode({ node_id: 'p1', name: 'Pixel' })]);
    await userEvent.click(await screen.findByRole('button', { name: 'Rename Pixel' }));
    const input = screen.getByRole('textbox', { name: 'Device name' });
    await userEvent.clear(input);
    await userEvent.type(input, "Ada's phone");
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(engine.api.renameNode).toHaveBeenCalledWith('p1', "Ada's phone");
    expect(await screen.findByText("Ada's phone", { selector: '[data-testid="device-name"]' })).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Device name' })).toBeNull();
  });

  it('shows why a rename failed and keeps the form', async () => {
    const { engine } = setup([makeNode({ node_id: 'p1', name: 'Pixel' })]);
    engine.api.renameNode.mockRejectedValueOnce(new ApiError(400, 'A name can be at most 80 characters.'));
    await userEvent.click(await screen.findByRole('button', { name: 'Rename Pixel' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Device name' }), '!');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText("Couldn't rename it. A name can be at most 80 characters.")).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Device name' })).toBeInTheDocument();
  });

  it('removes a device after a confirm; the desktop app has no Remove', async () => {
    const { engine } = setup([
      makeNode({ node_id: 'p1', name: 'Pixel' }),
      makeNode({ node_id: 'desktop', name: 'This computer', kind: 'desktop', connection: 'local' }),
    ]);
    await screen.findAllByTestId('device');
    expect(within(card('This computer')).queryByRole('button', { name: /Remove/ })).toBeNull();
    expect(within(card('This computer')).getByRole('button', { name: 'Rename This computer' })).toBeInTheDocument();

    await userEvent.click(within(card('Pixel')).getByRole('button', { name: 'Remove Pixel' }));
    expect(engine.api.deleteNode).not.toHaveBeenCalled();
    const confirm = screen.getByRole('group', { name: 'Remove Pixel?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Keep it' }));
    expect(screen.queryByRole('group', { name: 'Remove Pixel?' })).toBeNull();

    await userEvent.click(within(card('Pixel')).getByRole('button', { name: 'Remove Pixel' }));
    await userEvent.click(within(screen.getByRole('group', { name: 'Remove Pixel?' })).getByRole('button', { name: 'Yes, remove it' }));
    expect(engine.api.deleteNode).toHaveBeenCalledWith('p1');
    await waitFor(() => expect(names()).toEqual(['This computer']));
    // The desktop app alone doesn't count as a paired device.
    expect(screen.getByText(EMPTY_WORDS)).toBeInTheDocument();
  });

  it('tries what a device offers: a notification, a message, its location and a photo', async () => {
    const { engine } = setup([
      makeNode({ node_id: 'p1', name: 'Pixel', capabilities: ['notify.show', 'display.text', 'location.get', 'camera.photo', 'battery'] }),
    ]);
    const phone = (await screen.findAllByTestId('device'))[0];
    const tries = within(phone).getByRole('group', { name: 'Try Pixel' });
    expect(within(tries).getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Send a test notification',
      'Show a test message',
      'Get its location',
      'Take a photo',
    ]);

    await userEvent.click(within(tries).getByRole('button', { name: 'Send a test notification' }));
    expect(engine.api.invokeNode).toHaveBeenCalledWith('p1', {
      capability: 'notify.show',
      params: { title: 'Sentient', text: 'This is a test from Sentient.' },
    });
    expect(await within(tries).findByText('Sent. Check the device.')).toBeInTheDocument();

    await userEvent.click(within(tries).getByRole('button', { name: 'Show a test message' }));
    expect(engine.api.invokeNode).toHaveBeenLastCalledWith('p1', { capability: 'display.text', params: { text: 'This is a test from Sentient.' } });

    engine.api.invokeNode.mockResolvedValueOnce({ ok: true, data: { lat: 38.7223, lon: -9.1393, accuracy_m: 12 } });
    await userEvent.click(within(tries).getByRole('button', { name: 'Get its location' }));
    expect(await within(tries).findByTestId('device-location')).toHaveTextContent('38.72230, -9.13930 (within 12 m)');

    engine.api.invokeNode.mockResolvedValueOnce({ ok: true, data: { mime: 'image/png', base64: 'iVBORw0KGgo=' } });
    await userEvent.click(within(tries).getByRole('button', { name: 'Take a photo' }));
    expect(await within(tries).findByRole('img', { name: 'Photo from Pixel' })).toHaveAttribute('src', 'data:image/png;base64,iVBORw0KGgo=');
  });

  it("shows a device's refusal as one plain sentence", async () => {
    const { engine } = setup([makeNode({ node_id: 'p1', name: 'Pixel', capabilities: ['camera.photo', 'notify.show'] })]);
    engine.api.invokeNode.mockResolvedValueOnce({
      ok: false,
      error: { code: 'permission_denied', message: 'Camera permission was denied' },
      code: 'permission_denied',
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Take a photo' }));
    const test = screen.getAllByTestId('device-test').find((t) => t.dataset.capability === 'camera.photo') as HTMLElement;
    expect(await within(test).findByRole('alert')).toHaveTextContent(/^Camera permission was denied\.$/);

    engine.api.invokeNode.mockResolvedValueOnce({ ok: false, error: "The device didn't answer in time.", code: 'timeout' });
    await userEvent.click(screen.getByRole('button', { name: 'Send a test notification' }));
    const notify = screen.getAllByTestId('device-test').find((t) => t.dataset.capability === 'notify.show') as HTMLElement;
    expect(await within(notify).findByRole('alert')).toHaveTextContent(/^The device didn't answer in time\.$/);
  });
});

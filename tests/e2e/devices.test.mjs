// End to end: the web device app (`/node/`) in a phone-sized Chromium, paired with `sentient serve`
// over the loopback gateway (see ./support.mjs; no model is needed, so the script is empty).
//
// 1. A pairing code from POST /api/nodes/pairing opens the app at its web_url; it pairs, says
//    "Connected as …", drops the code from the address bar and keeps the token out of every URL.
//    GET /api/nodes lists it online on the "local" connection with its capabilities.
// 2. The window's side asks it for things over POST /api/nodes/{id}/invoke: a notification (shown
//    on the page), a display card, a photo (Chromium's fake camera), its location (granted and set
//    in the browser context), and something it can't do.
// 3. Stop everything pressed on the device stops Sentient (GET /api/stop says so, source device),
//    the page shows the banner, Resume resumes; a stop from the desktop shows on the device too.
// 4. A reload reconnects with the stored token as the same node.
// 5. Removed in the app, the device forgets its token and asks for a code; a wrong code shows the
//    engine's message; a new code typed in pairs it again; Forget this computer drops the token.
// 6. With devices on the network allowed, the app served by the LAN listener (https, self-signed
//    certificate) pairs over wss and is listed on the "lan" connection.
// 7. The real window (the built UI at `/`, signed in with `#token=`, in a desktop-sized browser),
//    with devices on the network allowed (a phone can't open the loopback gateway, so the window
//    never shows it: tests/e2e/pairing.test.mjs covers the listener being off):
//    Devices > Pair a device shows a code and the LAN link; the link, read off the page, opened in
//    a second phone page pairs; the window says so and lists the device online on the network;
//    its "Send a test notification" button shows the notification on the phone.
// 8. Settings > Devices in the window: the switch "Accept devices on your local network" turns the
//    LAN listener on (on a free port set first over HTTP) and the card says it is running.
//
// Screenshots go to test-output/screenshots/device-app-*.png, devices-page-*.png and
// settings-devices.png at the repo root.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { eventually, launchPhone, ScriptedWorld, STEP_TIMEOUT_MS, screenshots, freePort } from './support.mjs';

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// An Android phone's Chrome, so the app names itself the way it does on a phone.
const PHONE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';
const LISBON = { latitude: 38.7223, longitude: -9.1393, accuracy: 12 };
const STORE_KEY = 'sentient.node';

const world = new ScriptedWorld('devices', []);
let ready;
let page;
/** Console errors the page printed (a Content-Security-Policy refusal shows up here). */
const consoleErrors = [];
const api = (method, path, body) => world.api(method, path, body);

const stored = () => page.evaluate((key) => JSON.parse(localStorage.getItem(key) || 'null'), STORE_KEY);
const status = () => page.getByRole('status');
const phones = async () => (await api('GET', '/api/nodes')).filter((n) => n.node_id !== 'desktop');
const invoke = (nodeId, capability, params = {}, timeout_ms) =>
  api('POST', `/api/nodes/${nodeId}/invoke`, { capability, params, ...(timeout_ms ? { timeout_ms } : {}) });

before(async () => {
  await world.start();
  ready = world.ready;
  // The world's browser has no camera; this one has Chromium's fake camera, a phone's screen and
  // user agent, and notifications, camera and location granted for the engine's address.
  await world.context.close();
  world.context = await launchPhone(world, {
    options: { userAgent: PHONE_UA, timezoneId: 'Europe/Lisbon', locale: 'en-GB', geolocation: LISBON },
    args: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  });
  await world.context.grantPermissions(['notifications', 'camera', 'geolocation'], { origin: ready.url });
  page = world.context.pages()[0] ?? (await world.context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.on('pageerror', (err) => world.pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  world.page = page;
});

after(() =>
  world.stop(async () => {
    console.error(`--- nodes ---\n${JSON.stringify(await api('GET', '/api/nodes'), null, 2)}`);
    console.error(`--- stop ---\n${JSON.stringify(await api('GET', '/api/stop'))}`);
    console.error(`--- page status ---\n${await page.getByRole('status').innerText().catch((e) => String(e))}`);
  }),
);

describe('The web device app', () => {
  let nodeId;
  let token;

  test('pairs with the code from the link and shows up online', async () => {
    const pairing = await api('POST', '/api/nodes/pairing');
    assert.match(pairing.code, /^\d{6}$/);
    assert.equal(pairing.web_url, `${ready.url}/node/#code=${pairing.code}`);

    await page.goto(pairing.web_url);
    await status().getByText('Connected as Phone (Chrome)').waitFor();
    await page.getByRole('button', { name: 'Stop everything' }).waitFor();
    assert.equal(page.url(), `${ready.url}/node/`, 'the used code left the address bar');

    const saved = await stored();
    assert.ok(saved && saved.token && saved.node_id, 'the token is stored');
    ({ node_id: nodeId, token } = saved);
    assert.ok(!page.url().includes(token), 'the token is never in a URL');

    const [node] = await phones();
    assert.equal(node.node_id, nodeId);
    assert.equal(node.name, 'Phone (Chrome)');
    assert.equal(node.kind, 'phone');
    assert.equal(node.online, true);
    assert.equal(node.connection, 'local');
    assert.equal(node.app_version, 'web-1');
    assert.match(node.platform, /Android 14/);
    for (const cap of ['notify.show', 'display.text', 'display.card', 'button.events', 'camera.photo', 'location.get', 'speak']) {
      assert.ok(node.capabilities.includes(cap), `it offers ${cap} (has ${node.capabilities})`);
    }
  });

  test('shows a notification and a card, takes a photo and reads its location', async () => {
    const shown = await invoke(nodeId, 'notify.show', { title: 'Sentient', text: 'Milk is on the list' });
    assert.equal(shown.ok, true, JSON.stringify(shown));
    assert.deepEqual(shown.data, { shown: true });
    await page.getByTestId('device-notification').filter({ hasText: 'Milk is on the list' }).waitFor();

    const card = await invoke(nodeId, 'display.card', { title: 'Next turn', text: 'Turn left in 50 m', duration_ms: 60_000 });
    assert.equal(card.ok, true, JSON.stringify(card));
    await page.getByText('Turn left in 50 m').waitFor();
    await page.getByText('Next turn').waitFor();
    await page.screenshot({ path: join(screenshots, 'device-app-paired.png') });

    // Two at once: invokes may overlap.
    const [photo, where] = await Promise.all([
      invoke(nodeId, 'camera.photo', { facing: 'back', max_width: 640 }),
      invoke(nodeId, 'location.get', {}),
    ]);
    assert.equal(photo.ok, true, JSON.stringify(photo).slice(0, 400));
    assert.equal(photo.data.mime, 'image/jpeg');
    const jpeg = Buffer.from(photo.data.base64, 'base64');
    assert.deepEqual([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
    assert.ok(photo.data.width > 0 && photo.data.width <= 640, `width ${photo.data.width}`);
    assert.ok(photo.data.height > 0, `height ${photo.data.height}`);

    assert.equal(where.ok, true, JSON.stringify(where));
    assert.equal(where.data.lat, LISBON.latitude);
    assert.equal(where.data.lon, LISBON.longitude);
    assert.equal(where.data.accuracy_m, LISBON.accuracy);

    const cannot = await invoke(nodeId, 'clipboard.read', {});
    assert.equal(cannot.ok, false);
    assert.equal(cannot.code, 'unsupported', JSON.stringify(cannot));
  });

  test('Stop everything on the device stops Sentient; Resume resumes', async () => {
    const stop = page.getByRole('button', { name: 'Stop everything' });
    await stop.click();
    const stopped = await eventually('Sentient is stopped from the device', () => api('GET', '/api/stop'), (s) => s.stopped);
    assert.equal(stopped.source, 'device');
    const banner = page.getByRole('alert').filter({ hasText: 'Sentient is stopped' });
    await banner.waitFor();
    assert.equal(await stop.getAttribute('aria-pressed'), 'true', 'the button shows the state');
    await page.screenshot({ path: join(screenshots, 'device-app-stopped.png') });

    await banner.getByRole('button', { name: 'Resume' }).click();
    await banner.waitFor({ state: 'hidden' });
    const resumed = await api('GET', '/api/stop');
    assert.equal(resumed.stopped, false);
    assert.equal(await stop.getAttribute('aria-pressed'), 'false');

    // Stopped from the desktop: every device hears it.
    await api('POST', '/api/stop-all', { source: 'desktop' });
    await banner.waitFor();
    await banner.getByText(/from the desktop/).waitFor();
    await api('POST', '/api/resume', { source: 'desktop' });
    await banner.waitFor({ state: 'hidden' });
  });

  test('a reload reconnects with the stored token as the same device', async () => {
    // Stopped while it reloads: the welcome tells it.
    await api('POST', '/api/stop-all', { source: 'desktop' });
    await page.reload();
    await status().getByText('Connected as Phone (Chrome)').waitFor();
    const banner = page.getByRole('alert').filter({ hasText: 'Sentient is stopped' });
    await banner.waitFor();
    await banner.getByRole('button', { name: 'Resume' }).click();
    await banner.waitFor({ state: 'hidden' });
    assert.equal((await api('GET', '/api/stop')).stopped, false);
    assert.equal((await stored()).node_id, nodeId);
    const list = await eventually('the device is online again', phones, (l) => l.length === 1 && l[0].online);
    assert.equal(list[0].node_id, nodeId, 'the same node, no second pairing');

    const shown = await invoke(nodeId, 'display.text', { text: 'Back again' });
    assert.equal(shown.ok, true, JSON.stringify(shown));
    await page.getByText('Back again').waitFor();
  });

  test('removed in the app, it asks for a new code; a wrong code is explained; a typed code pairs it', async () => {
    assert.deepEqual(await api('DELETE', `/api/nodes/${nodeId}`), { ok: true });
    await status().getByText('Not paired').waitFor();
    await page.getByRole('alert').filter({ hasText: /removed in Sentient|no longer paired/ }).waitFor();
    assert.equal(await stored(), null, 'the revoked token is gone');

    const code = page.getByRole('textbox', { name: 'Pairing code' });
    const { code: fresh } = await api('POST', '/api/nodes/pairing');
    const wrong = fresh === '000000' ? '111111' : '000000';
    await code.fill(wrong);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: /wrong or has expired/ }).waitFor();
    await status().getByText('Not paired').waitFor();
    await page.screenshot({ path: join(screenshots, 'device-app-wrong-code.png') });

    await code.fill(fresh);
    await page.getByRole('textbox', { name: 'Name of this device' }).fill("Ada's phone");
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await status().getByText("Connected as Ada's phone").waitFor();
    const again = await stored();
    assert.notEqual(again.node_id, nodeId, 'a new device');
    assert.notEqual(again.token, token);
    const list = await eventually('the new device is online', phones, (l) => l.some((n) => n.node_id === again.node_id && n.online));
    assert.ok(!list.some((n) => n.node_id === nodeId), 'the removed device is gone');

    // The device's button reaches the engine (node.event); its answer is the absence of an error.
    await page.getByRole('button', { name: 'Press button' }).click();
    await page.getByText('Button press sent.').waitFor();

    // Forget this computer: asks first, then drops the token and asks for a code.
    await page.getByRole('button', { name: 'Forget this computer' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await stored()).node_id, again.node_id, 'Cancel keeps it');
    await page.getByRole('button', { name: 'Forget this computer' }).click();
    await page.getByRole('button', { name: 'Forget', exact: true }).click();
    await status().getByText('Not paired').waitFor();
    await page.getByRole('textbox', { name: 'Pairing code' }).waitFor();
    assert.equal(await stored(), null);
    await eventually('the forgotten device went offline', phones, (l) => !l.some((n) => n.online));
  });

  test('served by the LAN listener, it pairs over wss and is listed on the "lan" connection', async () => {
    const port = await freePort();
    await api('PATCH', '/api/config', { nodes: { lan_enabled: true, lan_port: port, mdns_enabled: false } });
    const lan = await eventually('the LAN listener runs', () => api('GET', '/api/nodes/lan'), (l) => l.running || l.error);
    assert.equal(lan.error, null, `the LAN listener started: ${lan.error}`);
    assert.equal(lan.port, port);
    assert.match(lan.fingerprint, /^[0-9a-f]{64}$/);

    const pairing = await api('POST', '/api/nodes/pairing');
    assert.equal(pairing.lan_enabled, true);
    assert.equal(pairing.fingerprint, lan.fingerprint);
    assert.match(pairing.web_url, new RegExp(`^https://[0-9.]+:${port}/node/#code=${pairing.code}$`));

    await page.goto(pairing.web_url);
    await status().getByText('Connected as Phone (Chrome)').waitFor();
    const saved = await stored();
    assert.ok(saved && saved.node_id, 'paired on the LAN origin');
    const node = await api('GET', `/api/nodes/${saved.node_id}`);
    assert.equal(node.online, true);
    assert.equal(node.connection, 'lan');

    const shown = await invoke(saved.node_id, 'notify.show', { text: 'Hello over the network' });
    assert.equal(shown.ok, true, JSON.stringify(shown));
    await page.getByTestId('device-notification').filter({ hasText: 'Hello over the network' }).waitFor();
    await page.screenshot({ path: join(screenshots, 'device-app-lan.png') });

    await api('PATCH', '/api/config', { nodes: { lan_enabled: false } });
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
    assert.deepEqual(
      consoleErrors.filter((e) => /Content Security Policy|Refused to/i.test(e)),
      [],
      'nothing was refused by the page\'s Content-Security-Policy',
    );
  });
});

describe('The Devices page in the window', () => {
  let win;
  let phoneContext;

  before(async () => {
    // A desktop-sized browser of its own for the window; the phone pages stay in the phone context.
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    world.cleanup.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, timezoneId: 'Europe/Lisbon', locale: 'en-GB' });
    win = await context.newPage();
    // A second, fresh phone: nothing stored from the earlier tests (name, token).
    phoneContext = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      userAgent: PHONE_UA,
      timezoneId: 'Europe/Lisbon',
      locale: 'en-GB',
      // The LAN listener's certificate is self-signed (a phone's browser asks the user once).
      ignoreHTTPSErrors: true,
    });
    await phoneContext.grantPermissions(['notifications'], { origin: ready.url });
    win.setDefaultTimeout(STEP_TIMEOUT_MS);
    win.on('pageerror', (err) => world.pageErrors.push(`window: ${err}`));
    // The earlier phone page leaves the stage, and the devices from the earlier tests go, so the
    // window lists only the one paired here.
    await page.goto('about:blank');
    for (const n of await phones()) await api('DELETE', `/api/nodes/${n.node_id}`);
  });

  test('pairs a phone from the link on the page, lists it online and sends it a test notification', async () => {
    const port = await freePort();
    await api('PATCH', '/api/config', { nodes: { lan_enabled: true, lan_port: port, mdns_enabled: false } });
    const lan = await eventually('the LAN listener runs', () => api('GET', '/api/nodes/lan'), (l) => l.running || l.error);
    assert.equal(lan.error, null, `the LAN listener started: ${lan.error}`);
    await win.goto(ready.web_url);
    await win.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click();
    await win.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
    await win.getByText('No devices yet. Pair your phone to send it notifications and photos.').waitFor();

    await win.getByRole('button', { name: 'Pair a device' }).click();
    const pairing = win.getByTestId('pairing');
    await pairing.waitFor();
    const code = (await pairing.getByTestId('pairing-code').innerText()).trim();
    assert.match(code, /^\d{6}$/);
    const link = pairing.getByTestId('pairing-url');
    const webUrl = await link.getAttribute('href');
    assert.equal((await link.innerText()).trim(), webUrl, 'the link shows where it goes');
    assert.match(webUrl, new RegExp(`^https://[0-9.]+:${port}/node/#code=${code}$`), 'the link is the LAN listener\'s');
    assert.doesNotMatch(webUrl, /127\.\d+\.\d+\.\d+|localhost/, 'never an address only this computer can open');
    await phoneContext.grantPermissions(['notifications'], { origin: new URL(webUrl).origin });
    await pairing.getByText(/^Expires in \d+:\d\d$/).waitFor();
    await win.screenshot({ path: join(screenshots, 'devices-page-pairing.png') });

    // The phone opens the link it was shown.
    const phone = await phoneContext.newPage();
    phone.setDefaultTimeout(STEP_TIMEOUT_MS);
    phone.on('pageerror', (err) => world.pageErrors.push(`phone: ${err}`));
    await phone.goto(webUrl);
    await phone.getByRole('status').getByText('Connected as Phone (Chrome)').waitFor();

    // The window sees it pair and come online, live.
    await win.getByTestId('pairing-done').getByText('Paired with Phone (Chrome). You can try it below.').waitFor();
    assert.equal(await win.getByTestId('pairing').count(), 0, 'the code card made way');
    const card = win.locator('[data-testid="device"][data-online="true"]').filter({ hasText: 'Phone (Chrome)' });
    await card.waitFor();
    assert.equal(await win.getByTestId('device').count(), 1, 'one device listed');
    assert.equal(await card.getByTestId('device-status').getAttribute('aria-label'), 'Online');
    assert.match(await card.getByTestId('device-facts').innerText(), /^Phone · Android 14.* · On your network · (Battery .* · )?Online now$/);

    await card.getByRole('button', { name: 'Send a test notification' }).click();
    await card.getByText('Sent. Check the device.').waitFor();
    await phone.getByTestId('device-notification').filter({ hasText: 'This is a test from Sentient.' }).waitFor();
    await win.screenshot({ path: join(screenshots, 'devices-page-listed.png') });
    await phone.screenshot({ path: join(screenshots, 'device-app-window-test.png') });
    // Off again for the Settings test below, which turns it on from the window.
    await phone.close();
    await api('PATCH', '/api/config', { nodes: { lan_enabled: false } });
    await eventually('the LAN listener stopped', () => api('GET', '/api/nodes/lan'), (l) => !l.running);
  });

  test('Settings > Devices turns the network listener on and shows it running', async () => {
    const port = await freePort();
    await api('PATCH', '/api/config', { nodes: { lan_port: port, mdns_enabled: false } });

    await win.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await win.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Devices' }).click();
    assert.match(win.url(), /#\/settings\/devices$/);
    const lanSwitch = win.getByRole('switch', { name: /Accept devices on your local network/ });
    await lanSwitch.waitFor();
    assert.equal(await lanSwitch.isChecked(), false);
    const state = win.getByTestId('lan-state');
    await state.getByText('Off', { exact: true }).waitFor();
    const portField = win.getByRole('spinbutton', { name: /Port for devices on your network/ });
    await win.waitForFunction(
      (want) => document.querySelector('#setting-nodes-lan_port')?.value === want,
      String(port),
    );
    assert.equal(await portField.inputValue(), String(port), 'the port set over HTTP shows');

    await lanSwitch.click();
    await state.getByText(`Running on port ${port}`).waitFor();
    assert.equal(await lanSwitch.isChecked(), true);
    const lan = await api('GET', '/api/nodes/lan');
    assert.equal(lan.running, true, JSON.stringify(lan));
    assert.equal(lan.port, port);
    const card = win.getByRole('region', { name: 'Network listener' });
    assert.equal((await card.getByTestId('lan-fingerprint').innerText()).trim(), lan.fingerprint);
    assert.match(await card.getByTestId('lan-web-urls').innerText(), new RegExp(`https://[0-9.]+:${port}/node/`));
    assert.equal((await card.getByTestId('lan-mdns').innerText()).trim(), 'No');
    await win.screenshot({ path: join(screenshots, 'settings-devices.png') });

    // And off again from the window.
    await lanSwitch.click();
    await state.getByText('Off', { exact: true }).waitFor();
    assert.equal((await api('GET', '/api/nodes/lan')).running, false);
    assert.deepEqual(world.pageErrors, [], 'no page threw errors');
  });
});

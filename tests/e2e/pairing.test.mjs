// End to end: Devices > Pair a device in the real window never shows an address a phone can't
// reach. With the LAN listener off (the default), the card asks to accept devices on the local
// network before any code; the one button turns the setting on, the card says "Starting…" until
// `GET /api/nodes/lan` reports the listener running, then shows the code, the QR code and the link
// for the LAN address (never 127.0.0.1 or localhost). With the listener already running, the card
// shows the code at once. A listener that can't start (its port taken) says why in one sentence,
// and Try again starts it once the port is free. Screenshots of Devices at 1280x800, 800x600 and
// 390x844 in light and dark.
//
// The listener binds a free port chosen here (set over HTTP first, with mDNS off); the test talks
// to the engine on loopback only and never opens the LAN address.
//
// The processes and the browser are set up by ./support.mjs.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, ScriptedWorld, screenshots, freePort } from './support.mjs';

const world = new ScriptedWorld('pairing', []);
let ready;
let page;
const api = (method, path, body) => world.api(method, path, body);
const LOOPBACK = /127\.\d+\.\d+\.\d+|localhost|\[::1\]/;

before(async () => {
  await world.start();
  ({ ready, page } = world);
});

after(() =>
  world.stop(async () => {
    console.error(`--- lan ---\n${JSON.stringify(await api('GET', '/api/nodes/lan'))}`);
  }),
);

async function openDevices() {
  await page.goto(ready.web_url);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click();
  await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
}

/** Checks the card shows a code, a QR code and a link a phone can open, on the listener's port. */
async function assertReachableCode(card, port) {
  const code = (await card.getByTestId('pairing-code').innerText()).trim();
  assert.match(code, /^\d{6}$/);
  const link = card.getByTestId('pairing-url');
  const href = await link.getAttribute('href');
  assert.equal((await link.innerText()).trim(), href, 'the link shows where it goes');
  assert.match(href, new RegExp(`^https://[0-9.]+:${port}/node/#code=${code}$`));
  assert.doesNotMatch(href, LOOPBACK, 'the link is not loopback-only');
  const lan = await api('GET', '/api/nodes/lan');
  assert.ok(
    lan.web_urls.some((u) => href.startsWith(u)),
    `the link is one of the listener's addresses: ${href} in ${JSON.stringify(lan.web_urls)}`,
  );
  const qr = card.getByRole('img', { name: 'QR code to pair a device' });
  await qr.waitFor();
  const src = await qr.getAttribute('src');
  assert.match(src, /^data:image\/svg\+xml;utf8,%3C/);
  const box = await qr.boundingBox();
  assert.ok(box && box.width >= 100 && box.height >= 100, `the QR code is big enough to scan: ${JSON.stringify(box)}`);
  await card.getByText(/^Expires in \d+:\d\d$/).waitFor();
  assert.doesNotMatch(await card.innerText(), LOOPBACK, 'no loopback address anywhere on the card');
  return { code, href };
}

describe('Pair a device with the network listener off', () => {
  let port;

  test('asks to turn it on, says Starting…, then shows the LAN address and its QR code', async () => {
    port = await freePort();
    await api('PATCH', '/api/config', { nodes: { lan_port: port, mdns_enabled: false } });
    const before = await api('GET', '/api/nodes/lan');
    assert.equal(before.enabled, false, 'the listener is off to begin with');
    assert.equal(before.running, false);

    await page.setViewportSize({ width: 1280, height: 800 });
    await openDevices();
    await page.getByRole('button', { name: 'Pair a device' }).click();
    const card = page.getByTestId('pairing');
    await card.getByText('To pair one, let Sentient accept devices on your local network first.', { exact: false }).waitFor();
    // Nothing a phone could open yet: no code, no QR code, no link.
    assert.equal(await card.getByTestId('pairing-code').count(), 0);
    assert.equal(await card.getByRole('img').count(), 0);
    assert.equal(await card.getByTestId('pairing-url').count(), 0);
    const turnOn = page.getByRole('button', { name: 'Accept devices on your local network' });
    assert.equal(await turnOn.count(), 1, 'one button');
    await page.screenshot({ path: join(screenshots, 'pairing-ask.png') });

    // Hold the listener's state in the browser until "Starting…" has been seen, so the test sees
    // the card wait rather than racing a listener that starts in a few milliseconds.
    let release;
    const released = new Promise((resolve) => {
      release = resolve;
    });
    const held = async (route) => {
      await released;
      // A request the page gave up on meanwhile can't be continued; that is fine.
      await route.continue().catch(() => {});
    };
    await page.route('**/api/nodes/lan', held);

    await turnOn.click();
    const starting = card.getByTestId('pairing-starting');
    await starting.waitFor();
    assert.equal((await starting.innerText()).trim(), 'Starting…');
    assert.equal(await starting.getAttribute('role'), 'status');
    assert.equal(await card.getByTestId('pairing-code').count(), 0, 'no code while it starts');
    await page.screenshot({ path: join(screenshots, 'pairing-starting.png') });
    const saved = await api('GET', '/api/config');
    assert.equal((saved.config ?? saved).nodes.lan_enabled, true, 'the button saved the setting');
    await eventually('the listener runs', () => api('GET', '/api/nodes/lan'), (l) => l.running || l.error);

    release();
    await card.getByTestId('pairing-code').waitFor();
    await page.unroute('**/api/nodes/lan', held);
    assert.equal(await starting.count(), 0, 'Starting… made way for the code');
    const lan = await api('GET', '/api/nodes/lan');
    assert.equal(lan.error, null, `the listener started: ${lan.error}`);
    assert.equal(lan.running, true);
    assert.equal(lan.port, port);
    const { href } = await assertReachableCode(card, port);
    // The short code to compare is the fingerprint's first 6 bytes; the whole one is under Details.
    const short = (await card.getByTestId('pairing-short-code').innerText()).trim();
    assert.equal(short, lan.fingerprint.slice(0, 12).toUpperCase().match(/../g).join(' '));
    const fingerprint = (await card.getByTestId('pairing-fingerprint').textContent()).trim();
    assert.equal(fingerprint, lan.fingerprint);
    assert.ok(href.length > 0);
    await page.screenshot({ path: join(screenshots, 'pairing-lan-code.png') });
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });

  test('with the listener running, the code shows at once; screenshots at every size in both themes', async () => {
    for (const [width, height] of [
      [1280, 800],
      [800, 600],
      [390, 844],
    ]) {
      for (const theme of ['light', 'dark']) {
        await api('PATCH', '/api/config', { ui: { theme } });
        await page.setViewportSize({ width, height });
        await openDevices();
        await page.getByRole('button', { name: 'Pair a device' }).click();
        const card = page.getByTestId('pairing');
        await card.getByTestId('pairing-code').waitFor();
        assert.equal(await card.getByRole('button', { name: 'Accept devices on your local network' }).count(), 0);
        await assertReachableCode(card, port);
        const qr = await card.getByRole('img', { name: 'QR code to pair a device' }).boundingBox();
        assert.ok(qr.x >= 0 && qr.x + qr.width <= width, `the QR code fits across at ${width}x${height}`);
        await page.screenshot({ path: join(screenshots, `devices-pairing-${width}x${height}-${theme}.png`) });
      }
    }
    await api('PATCH', '/api/config', { ui: { theme: 'light' }, nodes: { lan_enabled: false } });
    await eventually('the listener stopped', () => api('GET', '/api/nodes/lan'), (l) => !l.running);
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });

  test("a listener that can't start says why in a sentence; Try again starts it once the port is free", async () => {
    // Something else holds the port the listener wants.
    const blocker = createServer();
    await new Promise((resolve, reject) => {
      blocker.once('error', reject);
      blocker.listen(0, '0.0.0.0', resolve);
    });
    const taken = blocker.address().port;
    world.cleanup.push(() => new Promise((resolve) => blocker.close(() => resolve())));
    await api('PATCH', '/api/config', { nodes: { lan_port: taken, mdns_enabled: false } });

    await page.setViewportSize({ width: 1280, height: 800 });
    await openDevices();
    await page.getByRole('button', { name: 'Pair a device' }).click();
    const card = page.getByTestId('pairing');
    await card.getByRole('button', { name: 'Accept devices on your local network' }).click();
    const failed = card.getByTestId('pairing-failed');
    await failed.waitFor();
    const lan = await api('GET', '/api/nodes/lan');
    assert.equal(lan.running, false);
    assert.ok(lan.error, 'the engine says why');
    const words = (await failed.locator('p').first().innerText()).trim();
    assert.ok(words.startsWith("Sentient couldn't start listening for devices on your network. "), words);
    assert.ok(words.includes(String(taken)) && /busy|in use/i.test(words), `the engine's reason is in the sentence: ${words}`);
    assert.equal(await failed.getByRole('link', { name: 'Open Settings > Devices' }).getAttribute('href'), '#/settings/devices');
    assert.equal(await card.getByTestId('pairing-code').count(), 0, 'no code while phones cannot reach Sentient');
    assert.equal(await card.getByRole('img').count(), 0, 'no QR code either');
    await page.screenshot({ path: join(screenshots, 'pairing-failed.png') });

    // The port is free again: Try again starts the listener and the code follows.
    await new Promise((resolve) => blocker.close(() => resolve()));
    await failed.getByRole('button', { name: 'Try again' }).click();
    await card.getByTestId('pairing-code').waitFor();
    await assertReachableCode(card, taken);
    assert.equal((await api('GET', '/api/nodes/lan')).running, true);
    await api('PATCH', '/api/config', { nodes: { lan_enabled: false } });
    await eventually('the listener stopped', () => api('GET', '/api/nodes/lan'), (l) => !l.running);
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });
});

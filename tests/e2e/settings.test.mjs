// End to end: Settings a non-technical person can live in. Settings > Models in two levels: the
// sentence on what Sentient thinks with, the three setups as cards (Local only's missing model is
// downloaded from its card, from the stand-in Ollama), Cloud's fix instead of a dead switch, and
// Advanced closed until opened (then remembered). A form generated from the settings' schema
// refuses a number out of the schema's range and saves a good one, read back from GET /api/config.
// At phone size every Settings tab is on screen and reachable. Screenshots at 1280x800 and
// 390x844 in both themes.
//
// The processes and the browser are set up by ./support.mjs.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ScriptedWorld, eventually, screenshots } from './support.mjs';

// Nothing here asks the model anything; one line keeps the scripted server happy.
const world = new ScriptedWorld('settings', [{ text: 'Hello.' }], { models: [] });
let ready;
let page;
let api;

before(async () => {
  await world.start();
  ({ ready, page } = world);
  api = world.api.bind(world);
});

after(() =>
  world.stop(async () => {
    console.error('config:', JSON.stringify((await api('GET', '/api/config')).models));
  }),
);

const TABS = ['General', 'Models', 'Chats', 'Tasks', 'Approvals & safety', 'Scripts', 'Terminal', 'Browser', 'Webhooks', 'Devices'];

async function openSettings(path) {
  await page.goto(`${ready.web_url}`);
  await page.evaluate((p) => {
    window.location.hash = p;
  }, path);
  await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor();
}

async function shoot(name, width, height, prepare) {
  for (const theme of ['dark', 'light']) {
    await api('PATCH', '/api/config', { ui: { theme } });
    await page.setViewportSize({ width, height });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor();
    await page.locator(`html[data-theme='${theme}']`).waitFor({ state: 'attached' });
    if (prepare) await prepare();
    await page.screenshot({ path: join(screenshots, `settings-${name}-${width}x${height}-${theme}.png`), fullPage: true });
  }
}

describe('Settings in two levels, and forms from the schema', () => {
  test('Models: one sentence, the setups with their fixes, then Advanced', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openSettings('#/settings/models');

    const sentence = page.getByTestId('in-use-sentence');
    await sentence.waitFor();
    // qwen3:8b isn't downloaded yet, so it is not said to be in use (issue 32).
    await sentence.getByText("Sentient is set to think with qwen3:8b on this computer, but it isn't ready yet.").waitFor();

    const setups = page.getByRole('region', { name: 'Setups' });
    for (const name of ['Local only', 'Cloud', 'Mixed']) {
      await setups.getByRole('heading', { level: 3, name: new RegExp(`^${name}`) }).waitFor();
    }
    // Cloud has no key yet: it says so and offers the fix, not a dead switch.
    const cloud = page.getByTestId('preset-Cloud');
    assert.equal(await cloud.getByRole('button', { name: 'Use Cloud' }).count(), 0);
    await cloud.getByRole('button', { name: 'Add a key' }).click();
    await eventually(
      'the provider picker has focus',
      () => page.evaluate(() => document.activeElement?.id),
      (id) => id === 'add-provider-select',
    );

    // Local only's model isn't downloaded in the stand-in Ollama: its card offers the download.
    const local = page.getByTestId('preset-Local only');
    await local.getByText("qwen3:8b isn't downloaded yet.").waitFor();
    // No expert words on the top level.
    const top = await page.getByTestId('models-settings').innerText();
    assert.doesNotMatch(top, /token|re-?index|context length/i);
    await page.screenshot({ path: join(screenshots, 'settings-models-top-1280x800.png'), fullPage: true });

    await local.getByRole('button', { name: 'Download qwen3:8b' }).click();
    await page.getByTestId('presets-card').getByText("qwen3:8b is downloaded. It's ready to use.").waitFor();
    await local.getByText("qwen3:8b isn't downloaded yet.").waitFor({ state: 'detached' });
    await sentence.getByText('Sentient thinks with qwen3:8b on this computer.', { exact: true }).waitFor();
    const installed = await api('GET', '/api/models/local');
    assert.ok(installed.ollama.models.some((m) => m.name.startsWith('qwen3:8b')), JSON.stringify(installed));

    // Advanced: closed by default, opening it shows each job's model; it stays open after a reload.
    const advanced = page.getByRole('button', { name: 'Advanced', exact: true });
    assert.equal(await advanced.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.getByRole('region', { name: 'Main model' }).count(), 0);
    await advanced.click();
    assert.equal(await advanced.getAttribute('aria-expanded'), 'true');
    for (const job of ['Main model', 'Quick jobs', 'Planning tasks', 'Memory search']) {
      await page.getByRole('region', { name: job }).waitFor();
    }
    await page.getByTestId('checkup-card').waitFor();
    await page.screenshot({ path: join(screenshots, 'settings-models-advanced-1280x800.png'), fullPage: true });
    await page.reload();
    await page.getByRole('region', { name: 'Main model' }).waitFor();
    await page.getByRole('button', { name: 'Advanced', exact: true }).click();
    await page.getByRole('region', { name: 'Main model' }).waitFor({ state: 'detached' });
    assert.deepEqual(world.pageErrors, []);
  });

  test('a field from the schema refuses a number out of range and saves a good one', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openSettings('#/settings/tasks');
    const before = (await api('GET', '/api/config')).tasks.max_concurrent_runs;
    const schema = await api('GET', '/api/config/schema');
    const limits = schema.$defs.TasksConfig.properties.max_concurrent_runs;

    const runs = page.getByRole('spinbutton', { name: 'Tasks working at the same time' });
    assert.equal(await runs.getAttribute('max'), String(limits.maximum));
    await runs.fill(String(limits.maximum + 1));
    await runs.press('Enter');
    await page.getByText(`Use a whole number of runs from ${limits.minimum} to ${limits.maximum}.`).waitFor();
    assert.equal(await runs.getAttribute('aria-invalid'), 'true');
    assert.equal((await api('GET', '/api/config')).tasks.max_concurrent_runs, before);

    const good = before === 3 ? 4 : 3;
    await runs.fill(String(good));
    await runs.press('Enter');
    await page.locator('[data-setting="tasks.max_concurrent_runs"]').getByRole('status').getByText('Saved.').waitFor();
    await eventually(
      'the engine has the new number',
      async () => (await api('GET', '/api/config')).tasks.max_concurrent_runs,
      (n) => n === good,
    );

    // Devices' numbers come from the same schema.
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Devices' }).click();
    const port = page.getByRole('spinbutton', { name: 'Port for devices on your network' });
    assert.equal(await port.getAttribute('min'), String(schema.$defs.NodesConfig.properties.lan_port.minimum));
    await port.fill('80');
    await port.press('Enter');
    await page.getByText('Use a whole number from 1024 to 65535.').waitFor();
    assert.equal((await api('GET', '/api/config')).nodes.lan_port, 7778);
    await page.screenshot({ path: join(screenshots, 'settings-schema-field-1280x800.png'), fullPage: true });
    assert.deepEqual(world.pageErrors, []);
  });

  test('Browser: the status in plain words, profiles added, renamed and deleted, the site lists saved', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openSettings('#/settings/browser');
    const status = page.getByTestId('browser-status');
    await status.getByText(/The assistant uses (Chromium|Google Chrome|Microsoft Edge) when a site has no app of its own\./).waitFor();

    const card = page.getByTestId('browser-profiles');
    await card.locator('[data-profile=default]').waitFor();
    const form = card.getByRole('form', { name: 'Add a profile' });
    await form.getByLabel('Name', { exact: true }).fill('X growth');
    await form.getByLabel('Notes').fill('the second account');
    await form.getByRole('button', { name: 'Add profile' }).click();
    const row = card.locator('[data-profile=x-growth]');
    await row.getByText('the second account').waitFor();
    assert.ok((await api('GET', '/api/browser/profiles')).profiles.some((p) => p.name === 'x-growth'));

    // An address on another computer is refused in the engine's words.
    await form.getByLabel('Kind').selectOption('attach');
    await form.getByLabel('Name', { exact: true }).fill('Elsewhere');
    await form.getByLabel('Debugging address on this computer').fill('192.168.1.5:9222');
    await form.getByRole('button', { name: 'Add profile' }).click();
    await form.getByRole('alert').getByText("192.168.1.5 isn't on this computer.", { exact: false }).waitFor();
    await page.screenshot({ path: join(screenshots, 'settings-browser-1280x800.png'), fullPage: true });

    await row.getByRole('button', { name: 'Rename x-growth' }).click();
    await row.getByLabel('New name').fill('growth');
    await row.getByRole('button', { name: 'Rename', exact: true }).click();
    const renamed = card.locator('[data-profile=growth]');
    await renamed.waitFor();
    await renamed.getByRole('button', { name: 'Delete growth' }).click();
    await renamed.getByRole('button', { name: 'Yes, delete it' }).click();
    await renamed.waitFor({ state: 'detached' });
    assert.deepEqual((await api('GET', '/api/browser/profiles')).profiles.map((p) => p.name), ['default']);

    const sites = page.getByTestId('browser-sites');
    await sites.getByLabel('Never these sites').fill('example.com\nads.example.net');
    await sites.getByRole('button', { name: 'Save the site lists' }).click();
    await sites.getByText('Saved.').waitFor();
    assert.deepEqual((await api('GET', '/api/config')).browser.block_domains, ['example.com', 'ads.example.net']);

    await page.setViewportSize({ width: 390, height: 844 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 390, `the page is ${wide} px wide`);
    await page.screenshot({ path: join(screenshots, 'settings-browser-390x844.png'), fullPage: true });
    assert.deepEqual(world.pageErrors, []);
  });

  test('at phone size every tab is on screen and opens its page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openSettings('#/settings');
    const nav = page.getByRole('navigation', { name: 'Settings' });
    await nav.getByRole('link', { name: 'Devices' }).waitFor();
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), TABS);
    for (const name of TABS) {
      const tab = nav.getByRole('link', { name, exact: true });
      const box = await tab.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390 + 0.5, `${name} fits across the screen: ${JSON.stringify(box)}`);
      await tab.click();
      await eventually(`${name} is the open tab`, () => tab.getAttribute('aria-current'), (v) => v === 'page');
    }
    // Nothing on the page is wider than the screen.
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 390, `the page is ${wide} px wide`);
    assert.deepEqual(world.pageErrors, []);
  });

  test('screenshots in both themes, wide and phone-sized', async () => {
    await openSettings('#/settings/models');
    await page.evaluate(() => window.localStorage.removeItem('sentient.settings.models.advanced'));
    await shoot('models', 1280, 800, () => page.getByTestId('in-use-sentence').waitFor());
    await shoot('models', 390, 844, () => page.getByTestId('in-use-sentence').waitFor());
    await page.evaluate(() => {
      window.location.hash = '#/settings/devices';
    });
    await shoot('devices', 390, 844, () => page.getByRole('spinbutton', { name: 'Port for devices on your network' }).waitFor());
    await page.evaluate(() => {
      window.location.hash = '#/settings/tasks';
    });
    await shoot('tasks', 1280, 800, () => page.getByRole('spinbutton', { name: 'Tasks working at the same time' }).waitFor());
    assert.deepEqual(world.pageErrors, []);
  });
});

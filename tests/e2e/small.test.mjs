// End to end: small windows. At 800x600 the sidebar is icons (each names its page on hover and
// on keyboard focus); at phone width (390x844) the message box is still on screen. Screenshots in
// light and dark go to test-output/screenshots/.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { scriptedWorldForTests, screenshots, openChat } from './support.mjs';

const world = scriptedWorldForTests('small', []);

/** The element's box on screen. */
const box = async (locator) => {
  const found = await locator.boundingBox();
  assert.ok(found, 'the element is on screen');
  return found;
};

describe('Small windows', () => {
  test('below 900 px the sidebar is icons that name their page on hover and focus', async () => {
    const { page, ready } = world;
    await page.setViewportSize({ width: 800, height: 600 });
    await openChat(page, ready.web_url);
    const sidebar = page.getByRole('navigation', { name: 'Main' });
    assert.ok((await box(sidebar)).width <= 80, 'the sidebar is narrow');
    const tasks = sidebar.getByRole('link', { name: /Tasks/ });
    const label = tasks.locator('.nav-label');
    assert.ok((await box(label)).width <= 2, 'the label is hidden until asked for');
    await tasks.hover();
    assert.ok((await box(label)).width > 20, 'hovering names the page');
    await page.mouse.move(600, 500);
    await tasks.focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    assert.ok((await box(label)).width > 20, 'keyboard focus names the page');
    for (const theme of ['dark', 'light']) {
      await world.api('PATCH', '/api/config', { ui: { theme } });
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Chat', exact: true }).waitFor();
      await page.screenshot({ path: join(screenshots, `small-800x600-${theme}.png`) });
    }
  });

  test('at phone width the message box stays on screen', async () => {
    const { page, ready } = world;
    await page.setViewportSize({ width: 390, height: 844 });
    await openChat(page, ready.web_url);
    const message = page.getByRole('textbox', { name: 'Message', exact: true });
    const where = await box(message);
    assert.ok(where.x >= 0 && where.x + where.width <= 390, `the box fits across: ${JSON.stringify(where)}`);
    const send = await box(page.getByRole('button', { name: 'Send', exact: true }));
    assert.ok(send.x + send.width <= 390, `Send is on screen: ${JSON.stringify(send)}`);
    for (const theme of ['dark', 'light']) {
      await world.api('PATCH', '/api/config', { ui: { theme } });
      await page.reload();
      await message.waitFor();
      await page.screenshot({ path: join(screenshots, `small-390x844-${theme}.png`) });
    }
    assert.deepEqual(world.pageErrors, []);
  });
});

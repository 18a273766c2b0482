// End to end: a chart in the chat. The scripted model asks for `charts_create` (a read-only,
// local tool, so no approval), the engine draws the PNG into files/outputs/charts/, and the chat
// shows it as a picture read through the API (not as JSON), then the model's reply.
//
// The processes and the browser are set up by ./support.mjs.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { scriptedWorldForTests, screenshots, openChat, sendMessage } from './support.mjs';

const REPLY = 'Here is your spending by month: March was the highest.';

const SCRIPT = [
  {
    parts: [{ tool_call: {
      name: 'charts_create',
      arguments: {
        kind: 'bar',
        title: 'Spending by month',
        x_label: 'Month',
        y_label: 'EUR',
        series: [{ name: '2026', points: [['Jan', 420], ['Feb', 380.5], ['Mar', 510]] }],
      },
    } }],
  },
  { text: REPLY },
  { text: 'Spending chart' },
];

const world = scriptedWorldForTests('charts', SCRIPT);

describe('Charts in the chat', () => {
  test('a chart the model draws shows as a picture, then the reply', async () => {
    const { page, ready } = world;
    await openChat(page, ready.web_url);
    await sendMessage(page, 'Chart my spending by month');

    const picture = page.getByTestId('tool-picture');
    await picture.waitFor();
    assert.equal(await picture.getAttribute('alt'), 'Spending by month');
    // The browser decoded the PNG the engine drew: its real size, not a broken image.
    const size = await picture.evaluate(async (img) => {
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    });
    assert.deepEqual(size, [1000, 600]);
    assert.equal(await page.getByTestId('tool-card').getByTestId('tool-result').count(), 0, 'the picture replaces the JSON');
    await page.getByText(REPLY).waitFor();

    const files = await world.api('GET', '/api/files');
    const chart = files.find((f) => /^outputs\/charts\/spending-by-month-.*\.png$/.test(f.name));
    assert.ok(chart, JSON.stringify(files));
    assert.equal(chart.mime, 'image/png');
    assert.ok(existsSync(join(ready.home, 'files', chart.name)));
    await page.screenshot({ path: join(screenshots, 'chat-chart.png') });
    assert.deepEqual(world.pageErrors, []);
  });
});

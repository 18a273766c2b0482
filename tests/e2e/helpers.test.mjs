// End to end: helpers (contract section 10). The scripted model hands a look-up to a foreground
// helper: its steps show under the delegate call while it works, its summary comes back and the
// chat's Helpers list shows it done. Then a background helper: the reply answers at once, the
// Helpers list shows it working with Cancel, and Cancel ends it.
//
// The processes and the browser are set up by ./support.mjs. Screenshots go to
// test-output/screenshots/helpers-*.png at the repo root.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openChat, scriptedWorldForTests, screenshots, sendMessage } from './support.mjs';

const SCRIPT = [
  { tool_call: { name: 'delegate_task', arguments: { goal: "Find the museum's opening hours" } } },
  { tool_call: { name: 'time_now', arguments: {} } },
  // Written slowly, so the delegate card is seen live with the helper's steps.
  { text: 'The museum opens at 9 on weekdays.', chunk_delay_ms: 400 },
  { text: 'Your helper found it: the museum opens at 9.' },
  { tool_call: { name: 'delegate_task', arguments: { goal: 'Compare three train times', background: true } } },
  { text: 'A helper is on it in the background.' },
  // The background helper writes slowly, so it is still working when Cancel is pressed.
  { text: 'Looking at the timetables '.repeat(200), chunk_delay_ms: 200 },
];

const world = scriptedWorldForTests('helpers', SCRIPT);

describe('Helpers', () => {
  test('a foreground helper shows its steps and its summary, and the chat lists it', async () => {
    const { page, ready } = world;
    await world.api('PATCH', '/api/config', { chat: { auto_title: false } });
    await openChat(page, ready.web_url);
    await sendMessage(page, 'When does the museum open?');
    // While the helper works, its steps show under the delegate call.
    const card = page.getByTestId('tool-card').first();
    await card.getByLabel('Progress').getByText('Using time_now').waitFor();
    await card.getByLabel('Progress').getByText('time_now finished').waitFor();
    await page.screenshot({ path: join(screenshots, 'helpers-live-card.png') });
    await page.getByText('Your helper found it: the museum opens at 9.').waitFor();
    const helpers = page.getByRole('region', { name: 'Helpers' });
    const row = helpers.getByTestId('helper').first();
    await row.getByText("Find the museum's opening hours").waitFor();
    await row.getByText('Done').waitFor();
    await row.getByText('The museum opens at 9 on weekdays.').waitFor();
    await page.screenshot({ path: join(screenshots, 'helpers-foreground.png') });
  });

  test('a background helper works beside the chat and Cancel ends it', async () => {
    const { page } = world;
    await sendMessage(page, 'And compare the trains, no rush');
    await page.getByText('A helper is on it in the background.').waitFor();
    const helpers = page.getByRole('region', { name: 'Helpers' });
    const running = helpers.getByTestId('helper').filter({ hasText: 'Compare three train times' });
    await running.getByText('Working… · in the background').waitFor();
    await page.screenshot({ path: join(screenshots, 'helpers-background.png') });
    await running.getByRole('button', { name: 'Cancel' }).click();
    await running.getByText('Cancelled').waitFor();
    assert.equal(await running.getByRole('button', { name: 'Cancel' }).count(), 0);
    const sessions = await world.api('GET', '/api/sessions');
    const list = await world.api('GET', `/api/sessions/${sessions[0].id}/subagents`);
    assert.deepEqual(
      list.map((h) => [h.goal, h.status]),
      [
        ['Compare three train times', 'cancelled'],
        ["Find the museum's opening hours", 'completed'],
      ],
    );
    await page.screenshot({ path: join(screenshots, 'helpers-cancelled.png') });
    assert.deepEqual(world.pageErrors, []);
  });
});

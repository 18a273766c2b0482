// End to end: a script job in the real window (contract section 16, issue 36). "Tell me when the
// test page says in stock" is planned (by the scripted model) into a watch whose script reads a
// loopback page with web_fetch; the task shows its Script card with the code, waits for approval,
// and Test runs it once, showing what it found without changing anything. Once the page says in
// stock, Check now (Run now for a watch) checks: the card shows what the check found and the feed has the alert, with no
// run in the task's Runs.
//
// Screenshots go to test-output/screenshots/ at the repo root: script-job-card.png and
// script-job-tested.png.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, ScriptedWorld, screenshots } from './support.mjs';

let stock = 'Out of stock';
const site = createServer((_req, res) => {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(`<html><head><title>Blue kettle</title></head><body><main><h1>Blue kettle</h1><p>${stock}</p></main></body></html>`);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const PAGE = `http://127.0.0.1:${site.address().port}/kettle`;

const CODE = [
  'from sentient_tools import tools, result',
  `text = tools.web_fetch(url="${PAGE}")["content"]`,
  'print(text.splitlines()[-1])',
  'if "in stock" in text.lower() and "out of stock" not in text.lower():',
  '    result({"alert": True, "message": "The blue kettle is in stock."})',
].join('\n');

const SCRIPT = [
  { text: JSON.stringify({ name: 'Kettle back in stock', description: 'Tell me when the kettle page says in stock.', priority: 1, schedule: null }) },
  {
    text: JSON.stringify({
      plan: [{ tool: 'web_fetch', description: 'Read the kettle page and look for "in stock"' }],
      script: { code: CODE, condition: 'alert', then: 'notify' },
      schedule: { type: 'recurring', frequency: 'interval', interval_minutes: 30 },
    }),
  },
];

const world = new ScriptedWorld('script-jobs', SCRIPT);
let ready;
let page;
const api = (method, path, body) => world.api(method, path, body);

before(async () => {
  await world.start();
  ({ ready, page } = world);
});

after(() =>
  world.stop(async () => {
    console.error(`--- tasks ---\n${JSON.stringify(await api('GET', '/api/tasks'), null, 2)}`);
  }).finally(() => site.close()),
);

describe('Script jobs in the browser', () => {
  test("a watch's Script card shows its code, Test runs it, and a check after approval alerts", async () => {
    await page.goto(ready.web_url);
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('textbox', { name: 'Describe a task' }).fill('Tell me when the test page says in stock');
    await page.getByRole('button', { name: 'Create task', exact: true }).click();

    const detail = page.getByTestId('task-detail');
    const card = detail.getByTestId('script-card');
    await card.waitFor();
    assert.equal(await card.getByTestId('script-job-code').innerText(), CODE);
    assert.equal(await card.getByTestId('script-condition').innerText(), 'When the script raises an alert');
    assert.equal(await card.getByTestId('script-then').innerText(), 'Tell me');
    await card.getByTestId('script-not-checked').waitFor();
    await page.screenshot({ path: join(screenshots, 'script-job-card.png') });

    // Test: the script runs once, contained, and what it printed shows; nothing is kept.
    await card.getByRole('button', { name: 'Test' }).click();
    const tested = card.getByTestId('script-test');
    await tested.getByText('Out of stock').first().waitFor({ timeout: 30_000 });
    assert.match(await tested.innerText(), /1 tool use/);
    await page.screenshot({ path: join(screenshots, 'script-job-tested.png') });
    let [task] = await api('GET', '/api/tasks');
    assert.equal(task.script.last_run_at, null, 'a test leaves what checks found alone');

    await detail.getByTestId('plan-card').getByRole('button', { name: 'Approve' }).click();
    await eventually('the watch is live', () => api('GET', `/api/tasks/${task.task_id}`), (t) => t.status === 'active');

    // The page changes; Check now (a watch's Run now) checks it at once, and the card stays in view.
    stock = 'In stock: ships tomorrow';
    await detail.getByRole('button', { name: 'Check now' }).click();
    const found = card.getByTestId('script-last-result');
    await found.getByText('The blue kettle is in stock.').waitFor({ timeout: 30_000 });
    task = await api('GET', `/api/tasks/${task.task_id}`);
    assert.deepEqual(task.runs, [], 'a check is no run');
    // The alert is sent just after the check writes what it found.
    const feed = await eventually('the alert in the feed', () => api('GET', '/api/notifications'), (f) =>
      f.notifications.some((n) => n.payload?.event === 'script_alert'),
    );
    const alert = feed.notifications.find((n) => n.payload?.event === 'script_alert');
    assert.equal(alert.title, 'Kettle back in stock');
    assert.equal(alert.message, 'The blue kettle is in stock.');
  });
});

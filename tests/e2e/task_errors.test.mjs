// End to end: model errors in the new-task form and in a task, and the list's hover card, in the
// real window against `sentient serve` and the scripted model server (see ./support.mjs).
//
// 1. With the model down (Ollama's address points at a port nothing listens on), Preview fails:
//    the form shows the engine's sentence with its buttons (Get Ollama, Try again) and Create task
//    is off. The model comes back (the address points at the scripted server again); Try again
//    previews, Create task is on again, and the task is created and planned.
// 2. A task whose planning fails (the planner answers in the wrong shape) says so in plain words
//    with Open Settings > Models and Try again; Try again plans it afresh with the scripted model,
//    the plan waits for approval, and the failed task is gone.
// 3. The list's hover card never covers the open task, at 1280x800, 800x600 and 390x844.
//
// Screenshots of Tasks at the three sizes in light and dark go to test-output/screenshots/.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, ScriptedWorld, screenshots } from './support.mjs';

// No schedule in the words: without the model, nothing can be read from them.
const FIRST_PROMPT = 'Sum up the news about electric cars for me';
const FIRST = {
  name: 'Electric car news',
  description: 'A short summary of the latest news about electric cars.',
  priority: 1,
  schedule: null,
};
const SECOND_PROMPT = 'Check the time in Lisbon and tell me';
const SECOND = { name: 'Lisbon time', description: 'Tell the time in Lisbon.', priority: 1, schedule: null };
const PLAN = { plan: [{ tool: 'time_now', description: 'Look up the time now' }] };
const WRONG_SHAPE = 'The planner model answered in the wrong shape. Try again, or pick another planner model in Settings > Models.';

/** What the model says, in order. */
const SCRIPT = [
  // 1: the preview after the model is back, then Create: the refinement and the plan.
  { text: JSON.stringify(FIRST) },
  { text: JSON.stringify(FIRST) },
  { text: JSON.stringify({ plan: [{ tool: 'none', description: 'Sum up the news' }] }) },
  // 2: Create: the refinement, then a plan in the wrong shape; Try again: the refinement and a plan.
  { text: JSON.stringify(SECOND) },
  { text: 'Sure! I would love to plan that for you.' },
  { text: JSON.stringify(SECOND) },
  { text: JSON.stringify(PLAN) },
];

const world = new ScriptedWorld('task-errors', SCRIPT);
let ready;
let page;
const api = (method, path, body) => world.api(method, path, body);

/** A port nothing listens on right now. */
function deadPort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Points both Ollama providers at `base`. */
const ollamaAt = (base) =>
  api('PATCH', '/api/config', { models: { providers: { ollama_chat: { api_base: base }, ollama: { api_base: base } } } });

before(async () => {
  await world.start();
  ({ ready, page } = world);
});

after(() =>
  world.stop(async () => {
    console.error(`--- tasks ---\n${JSON.stringify(await api('GET', '/api/tasks'), null, 2)}`);
  }),
);

async function openTasks() {
  await page.goto(ready.web_url);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Tasks', exact: true }).waitFor();
}

describe('Task errors in the browser', () => {
  test('a Preview that failed keeps Create off with the buttons; once the model is back, Try again then Create works', async () => {
    const config = await api('GET', '/api/config');
    const scripted = (config.config ?? config).models.providers.ollama_chat.api_base;
    assert.match(scripted, /^http:\/\/127\.0\.0\.1:\d+$/);
    await ollamaAt(`http://127.0.0.1:${await deadPort()}`);

    await openTasks();
    await page.getByRole('textbox', { name: 'Describe a task' }).fill(FIRST_PROMPT);
    const create = page.getByRole('button', { name: 'Create task', exact: true });
    assert.equal(await create.isEnabled(), true, 'Create is on before a preview');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();

    const failed = page.getByTestId('preview-error');
    await failed.getByText("Ollama isn't answering", { exact: false }).waitFor();
    assert.match(await failed.innerText(), /^Couldn't preview it\. Ollama isn't answering\./);
    assert.equal(await failed.getByRole('link', { name: 'Get Ollama' }).getAttribute('href'), 'https://ollama.com/download');
    const tryAgain = failed.getByRole('button', { name: 'Try again' });
    assert.equal(await tryAgain.count(), 1);
    assert.equal(await create.isDisabled(), true, 'Create is off after a failed preview');
    // Enter in the box can't create it either.
    await page.getByRole('textbox', { name: 'Describe a task' }).press('Enter');
    await page.screenshot({ path: join(screenshots, 'tasks-preview-failed.png') });
    assert.deepEqual(await api('GET', '/api/tasks'), [], 'nothing was created while the model was down');

    // The model is back.
    await ollamaAt(scripted);
    await tryAgain.click();
    const preview = page.getByTestId('task-preview');
    await preview.getByText(FIRST.name).waitFor();
    assert.equal(await failed.count(), 0, 'the error went with a preview that worked');
    assert.equal(await create.isEnabled(), true, 'Create is on again');
    await create.click();
    const detail = page.getByTestId('task-detail');
    await detail.getByTestId('task-status').filter({ hasText: 'Waiting for your approval' }).waitFor();
    await detail.getByRole('heading', { name: FIRST.name }).waitFor();
    const tasks = await api('GET', '/api/tasks');
    assert.equal(tasks.length, 1);
    assert.equal(tasks[0].status, 'approval_pending');
  });

  test('a task whose planning failed says so with its buttons, and Try again plans it afresh', async () => {
    await openTasks();
    await page.getByRole('textbox', { name: 'Describe a task' }).fill(SECOND_PROMPT);
    await page.getByRole('button', { name: 'Create task', exact: true }).click();
    const detail = page.getByTestId('task-detail');
    const failed = detail.getByTestId('task-error');
    await failed.waitFor();
    assert.equal((await failed.locator('p').first().innerText()).trim(), `Sentient couldn't make a plan for this task. ${WRONG_SHAPE}`);
    assert.equal(await failed.getByRole('link', { name: 'Open Settings > Models' }).getAttribute('href'), '#/settings/models');
    await detail.getByTestId('task-status').filter({ hasText: /fail|error|wrong/i }).waitFor();
    const [broken] = (await api('GET', '/api/tasks')).filter((t) => t.status === 'error');
    assert.ok(broken, 'the engine has the task in error');
    assert.equal(broken.error, WRONG_SHAPE);
    await page.screenshot({ path: join(screenshots, 'tasks-plan-failed.png') });

    await failed.getByRole('button', { name: 'Try again' }).click();
    await detail.getByTestId('plan-card').getByText(PLAN.plan[0].description).waitFor();
    await detail.getByTestId('task-status').filter({ hasText: 'Waiting for your approval' }).waitFor();
    await detail.getByRole('heading', { name: SECOND.name }).waitFor();
    assert.equal(await detail.getByTestId('task-error').count(), 0);

    const tasks = await eventually(
      'the failed task made way for the planned one',
      () => api('GET', '/api/tasks'),
      (list) => list.length === 2 && list.every((t) => t.status === 'approval_pending'),
    );
    assert.ok(!tasks.some((t) => t.task_id === broken.task_id), 'the failed task is gone');
    assert.deepEqual(tasks.find((t) => t.name === SECOND.name).plan, PLAN.plan);
    assert.equal(await page.getByTestId('task-row').count(), 2);
  });

  test('the hover card never covers the open task, at every size, in light and dark', async () => {
    const sizes = [
      [1280, 800],
      [800, 600],
      [390, 844],
    ];
    for (const [width, height] of sizes) {
      for (const theme of ['light', 'dark']) {
        await api('PATCH', '/api/config', { ui: { theme } });
        await page.setViewportSize({ width, height });
        await openTasks();
        const rows = page.getByTestId('task-row');
        await rows.nth(1).waitFor();
        // Open the first task, then hover each row in turn.
        await rows.nth(0).getByRole('button').click();
        const detail = page.getByTestId('task-detail');
        await detail.waitFor();
        // The row just opened shows no card (the task is open beside it); the other one does, and
        // moving back to the open one shows its card too.
        assert.equal(await page.getByTestId('task-summary').count(), 0, 'opening a row closes its card');
        for (const i of [1, 0]) {
          await rows.nth(i).getByRole('button').hover();
          const card = page.getByTestId('task-summary');
          await card.waitFor();
          const a = await card.boundingBox();
          const b = await detail.boundingBox();
          assert.ok(a && b, 'both are on the page');
          const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
          assert.ok(!overlap, `at ${width}x${height} the hover card ${JSON.stringify(a)} covers the task ${JSON.stringify(b)}`);
          if (i === 1) await page.screenshot({ path: join(screenshots, `tasks-hover-${width}x${height}-${theme}.png`) });
        }
        await page.mouse.move(1, 1);
      }
    }
    await api('PATCH', '/api/config', { ui: { theme: 'light' } });
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });
});

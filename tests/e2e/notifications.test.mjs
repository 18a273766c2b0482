// End to end: the Notifications page in the real window, against `sentient serve` and the
// scripted model server (see ./support.mjs).
//
// 1. A task's plan waits for approval: its notification arrives live in the feed (and the
//    sidebar badge counts it), Approve in the feed approves the task (checked over HTTP), and
//    the notification shows it approved.
// 2. A run asks a question: its notification arrives, it is answered in the feed with an option
//    button, and the run carries on to its answer (checked over HTTP).
// 3. Webhooks: a hook is made in Settings > Webhooks (its secret shown once), a task is set in
//    its editor to run when that hook is called with status=failed, the test calls the hook with
//    fetch, and the triggered run appears on the task and its notification in the feed.
//
// Screenshots go to test-output/screenshots/notifications-*.png at the repo root.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ScriptedWorld, eventually, screenshots } from './support.mjs';

const WEEKLY = { type: 'recurring', frequency: 'weekly', days: ['Monday'], time: '09:00' };
const refinement = (name) => ({ name, description: `${name}, please.`, priority: 1, schedule: WEEKLY });
const plan = (what) => ({ plan: [{ tool: 'time_now', description: what }] });

const SHOPPING = refinement('Shopping note');
const FLIGHTS = refinement('Flight check');
const BUILDS = refinement('Broken build triage');
const QUESTION = 'Morning or evening flight?';
const FLIGHT_ANSWER = 'Booked a reminder for the evening flight.';
const TRIAGE_ANSWER = 'The build failed on a flaky test; nothing to do.';

/** What the model says, in order. */
const SCRIPT = [
  // 1. Planning the shopping note: the refinement, then the plan (it then waits for approval).
  { text: JSON.stringify(SHOPPING) },
  { text: JSON.stringify(plan('Write the list to a file')) },
  // 2. Planning the flight check, then its run: a question, the brief, the answer.
  { text: JSON.stringify(FLIGHTS) },
  { text: JSON.stringify(plan('Ask which flight, then check it')) },
  { tool_call: { name: 'ask_user', arguments: { question: QUESTION, options: ['Morning', 'Evening'] } } },
  { tool_call: { name: 'task_brief_update', arguments: { done: 'Asked which flight.' } } },
  { text: FLIGHT_ANSWER },
  // 3. Planning the build triage, then its triggered run.
  { text: JSON.stringify(BUILDS) },
  { text: JSON.stringify(plan('Look at the failed build')) },
  { text: TRIAGE_ANSWER },
];

const world = new ScriptedWorld('notifications', SCRIPT);
let ready;
let page;
const api = (method, path, body) => world.api(method, path, body);

/** Creates a task over HTTP and waits until its plan waits for approval. */
async function createPlanned(prompt) {
  const task = await api('POST', '/api/tasks', { prompt });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const now = await api('GET', `/api/tasks/${task.task_id}`);
    if (now.status === 'approval_pending') return now;
    assert.ok(Date.now() < deadline, `the plan of "${prompt}" is waiting for approval (status ${now.status}, error ${now.error})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  await world.start();
  ({ ready, page } = world);
});

after(() =>
  world.stop(async () => {
    console.error(`--- tasks ---\n${JSON.stringify(await api('GET', '/api/tasks'), null, 2)}`);
    console.error(`--- notifications ---\n${JSON.stringify(await api('GET', '/api/notifications'), null, 2)}`);
  }),
);

describe('Notifications in the browser', () => {
  test('a plan waiting for approval arrives live and is approved in the feed', async () => {
    await page.goto(ready.web_url);
    await page.getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('heading', { level: 1, name: 'Notifications', exact: true }).waitFor();
    await page.getByText('Nothing new. Sentient will tell you here when a task needs you or finishes.').waitFor();

    const task = await createPlanned('a shopping note, please');
    const item = page.getByTestId('notification').filter({ hasText: `${SHOPPING.name} needs your approval` });
    await item.waitFor();
    await item.getByText('Write the list to a file').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByLabel('1 unread').waitFor();
    await page.screenshot({ path: join(screenshots, 'notifications-approval.png') });

    await item.getByRole('button', { name: 'Approve', exact: true }).click();
    await item.getByTestId('notification-status').filter({ hasText: 'Approved' }).waitFor();
    const approved = await api('GET', `/api/tasks/${task.task_id}`);
    assert.equal(approved.status, 'active', 'the plan was approved and the task scheduled');
    const feed = await api('GET', '/api/notifications');
    const saved = feed.notifications.find((n) => n.payload.event === 'approval_needed');
    assert.equal(saved.payload.status, 'approved');
    assert.equal(saved.read, true);
    assert.equal(feed.unread, 0);
    await page.getByRole('navigation', { name: 'Main' }).getByLabel(/unread/).waitFor({ state: 'detached' });
  });

  test('a run question arrives in the feed and is answered there', async () => {
    const task = await createPlanned('check my flight');
    await api('POST', `/api/tasks/${task.task_id}/approve`);
    await api('POST', `/api/tasks/${task.task_id}/run-now`);

    const item = page.getByTestId('notification').filter({ hasText: `${FLIGHTS.name} needs your answer` });
    await item.waitFor();
    await item.getByText(QUESTION).first().waitFor();
    assert.equal(await item.getByRole('link', { name: 'Open the run' }).count(), 1);
    await page.screenshot({ path: join(screenshots, 'notifications-question.png') });
    await item.getByRole('button', { name: 'Evening', exact: true }).click();
    await item.getByTestId('notification-status').filter({ hasText: 'Answered' }).waitFor();

    // The run carries on to its answer. Started by Run now, its result shows on the task, not
    // also as a "Task completed" notification (issue 32).
    const done = await eventually(
      'the run finishes',
      () => api('GET', `/api/tasks/${task.task_id}`),
      (t) => t.runs?.[0]?.status === 'completed',
    );
    const feed = await api('GET', '/api/notifications');
    assert.deepEqual(
      feed.notifications.filter((n) => n.payload.task_id === task.task_id && n.payload.event === 'run_completed'),
      [],
    );
    assert.equal(await page.getByTestId('notification').filter({ hasText: `Task completed: ${FLIGHTS.name}` }).count(), 0);
    const [run] = done.runs;
    assert.equal(run.status, 'completed');
    assert.equal(run.result.summary, FLIGHT_ANSWER);
    assert.match(run.progress_updates.map((u) => u.message.content).join('\n'), /You answered: Evening/);
  });

  test('a hook made in Settings starts a triggered task; its run and notification arrive', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText(/No webhooks yet/).waitFor();
    await page.getByRole('textbox', { name: 'Name' }).fill('Build server');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const made = page.getByTestId('hook-secret');
    await made.waitFor();
    const url = await made.getByTestId('hook-url').innerText();
    const secret = await made.getByTestId('hook-secret-value').innerText();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/hooks\/\S+$/);
    assert.ok(secret.length >= 16, 'a real secret');
    assert.match(await made.getByTestId('hook-curl').innerText(), new RegExp(`X-Sentient-Secret: ${secret}`));
    await page.screenshot({ path: join(screenshots, 'notifications-hook.png') });
    await made.getByRole('button', { name: "I've copied it" }).click();
    await page.getByTestId('hook-row').filter({ hasText: 'Not called yet' }).waitFor();
    const [hook] = await api('GET', '/api/hooks');
    assert.equal(hook.name, 'Build server');
    assert.ok(!JSON.stringify(hook).includes(secret), 'the list never shows the secret');

    // The task runs when the hook is called with status=failed (set in its editor).
    const task = await createPlanned('look at broken builds');
    await api('POST', `/api/tasks/${task.task_id}/approve`);
    await page.goto(`${ready.url}/#/tasks/${task.task_id}`);
    const detail = page.getByTestId('task-detail');
    await detail.getByRole('heading', { name: BUILDS.name }).waitFor();
    await detail.getByRole('button', { name: 'Change schedule' }).click();
    await detail.getByRole('combobox', { name: 'How often' }).selectOption('webhook');
    await detail.getByRole('combobox', { name: 'Webhook' }).selectOption({ label: 'Build server' });
    await detail.getByRole('textbox', { name: /Only when/ }).fill('status=failed');
    await detail.getByRole('button', { name: 'Save schedule' }).click();
    await detail.getByTestId('task-trigger').filter({ hasText: 'Webhook: Build server · only when status=failed' }).waitFor();
    const saved = await api('GET', `/api/tasks/${task.task_id}`);
    assert.deepEqual(
      { type: saved.schedule.type, source: saved.schedule.source, event: saved.schedule.event, filter: saved.schedule.filter },
      { type: 'triggered', source: 'webhook', event: hook.id, filter: { status: 'failed' } },
    );

    // Called from outside, with the secret and no token.
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'X-Sentient-Secret': secret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'failed', build: 42 }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const accepted = await res.json();
    assert.equal(accepted.ok, true);
    assert.ok(accepted.item_id);

    await detail.getByRole('tab', { name: /Runs/ }).click();
    const run = detail.getByTestId('run-card').first();
    await run.getByTestId('run-result').getByText(TRIAGE_ANSWER).waitFor();
    await page.screenshot({ path: join(screenshots, 'notifications-triggered-run.png') });

    await page.getByRole('link', { name: 'Notifications' }).click();
    const note = page.getByTestId('notification').filter({ hasText: `Task completed: ${BUILDS.name}` });
    await note.waitFor();
    await page.screenshot({ path: join(screenshots, 'notifications-feed.png') });
    const after = await api('GET', `/api/tasks/${task.task_id}`);
    assert.equal(after.runs.length, 1);
    assert.equal(after.runs[0].trigger_event_data.body.status, 'failed');
    const [listed] = await api('GET', '/api/hooks');
    assert.equal(listed.calls, 1);

    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });
});

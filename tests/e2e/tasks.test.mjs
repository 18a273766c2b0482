// End to end: the Tasks page in the real window. The engine (`sentient serve`) talks to the
// scripted model server (its own process, `scripted-model-server SCRIPT.json`) as if it were
// Ollama. The page previews a prompt (name and weekday schedule), creates the task, the plan
// waits for approval, Approve schedules it, Run now starts a run whose progress lines arrive
// live, and the run finishes with its result. A second run asks a question (`ask_user`), which is
// answered in the page with an option button, and the run carries on to its answer. Then the
// task and runs are checked over HTTP.
//
// The processes and the browser are set up by ./support.mjs (see there for the binaries it uses).
//
// Screenshots go to test-output/screenshots/tasks-*.png at the repo root.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ScriptedWorld, screenshots } from './support.mjs';

const PROMPT = 'every weekday at 9, summarise this page https://example.org';
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const REFINEMENT = {
  name: 'Weekday page summary',
  description: 'Summarise https://example.org every weekday morning.',
  priority: 1,
  schedule: { type: 'recurring', frequency: 'weekly', days: WEEKDAYS, time: '09:00' },
};
const PLAN = { plan: [{ tool: 'time_now', description: 'Check the time, then summarise the page' }] };
const FIRST_ANSWER = 'Checked the time in Lisbon; the page summary is ready for this morning.';
const QUESTION = 'Do you want a short or a long summary?';
const SECOND_ANSWER = 'Here is the short summary you asked for.';

/** What the model says, in order. */
const SCRIPT = [
  // Preview: the refinement only.
  { text: JSON.stringify(REFINEMENT) },
  // Create: the refinement again, then the plan.
  { text: JSON.stringify(REFINEMENT) },
  { text: JSON.stringify(PLAN) },
  // First run: a tool call, then the final answer (streamed slowly, so the run is seen working).
  { tool_call: { name: 'time_now', arguments: {} } },
  { text: FIRST_ANSWER, chunk_delay_ms: 60 },
  // It used a tool but kept no brief, so it is reminded once: it updates the brief and answers again.
  { tool_call: { name: 'task_brief_update', arguments: { done: 'Checked the time in Lisbon.' } } },
  { text: FIRST_ANSWER },
  // Second run: a question for the person, then (after the answer) the final answer.
  { tool_call: { name: 'ask_user', arguments: { question: QUESTION, options: ['Short', 'Long'] } } },
  { text: SECOND_ANSWER },
];

const world = new ScriptedWorld('tasks', SCRIPT);
let ready;
let page;
const api = (method, path, body) => world.api(method, path, body);

before(async () => {
  await world.start();
  ({ ready, page } = world);
});

after(() =>
  world.stop(async () => {
    // What the engine had, to tell a page problem from an engine one.
    console.error(`--- tasks ---\n${JSON.stringify(await api('GET', '/api/tasks'), null, 2)}`);
  }),
);

describe('Tasks in the browser', () => {
  test('preview, create, approve, run now with live progress, answer a question; the task matches over HTTP', async () => {
    await page.goto(ready.web_url);
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tasks', exact: true }).waitFor();
    await page.getByText('No tasks yet — describe one above.').waitFor();

    // Preview: what Sentient makes of the words, before anything is saved.
    await page.getByRole('textbox', { name: 'Describe a task' }).fill(PROMPT);
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = page.getByTestId('task-preview');
    await preview.getByText(REFINEMENT.name).waitFor();
    assert.equal(await preview.getByTestId('preview-schedule').innerText(), 'Every weekday at 09:00');
    await page.screenshot({ path: join(screenshots, 'tasks-preview.png') });
    assert.deepEqual(await api('GET', '/api/tasks'), [], 'a preview saves nothing');

    // Create: planning runs in the background; the plan arrives live and waits for approval.
    await page.getByRole('button', { name: 'Create task', exact: true }).click();
    const detail = page.getByTestId('task-detail');
    const plan = detail.getByTestId('plan-card');
    await plan.getByText(PLAN.plan[0].description).waitFor();
    await detail.getByTestId('task-status').filter({ hasText: 'Waiting for your approval' }).waitFor();
    await detail.getByRole('heading', { name: REFINEMENT.name }).waitFor();
    await page.getByTestId('task-group-needs_you').getByText(REFINEMENT.name).waitFor();
    await page.screenshot({ path: join(screenshots, 'tasks-plan.png') });

    // Approve: it is scheduled for the next weekday at 09:00, Lisbon time.
    await plan.getByRole('button', { name: 'Approve' }).click();
    await detail.getByTestId('task-status').filter({ hasText: 'Scheduled' }).waitFor();
    await detail.getByTestId('task-next-run').waitFor();
    assert.match(await detail.getByTestId('task-next-run').innerText(), /^Next run: (Mon|Tue|Wed|Thu|Fri) .*09:00$/);
    assert.equal(await detail.getByTestId('task-schedule').innerText(), 'Every weekday at 09:00');
    const scheduled = page.getByTestId('task-group-scheduled');
    await scheduled.getByText(REFINEMENT.name).waitFor();
    assert.match(await scheduled.innerText(), /Every weekday at 09:00/);

    const [task] = await api('GET', '/api/tasks');
    const listFetches = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/api/tasks') && req.method() === 'GET') listFetches.push(req.url());
    });

    // Run now: the progress lines arrive one by one while the run works, then its result.
    await detail.getByRole('button', { name: 'Run now' }).click();
    const run = detail.getByTestId('run-card');
    await run.waitFor();
    const lines = run.getByTestId('log-line');
    await lines.filter({ hasText: 'Run started.' }).waitFor();
    await lines.filter({ hasText: 'Using Time now' }).waitFor();
    await lines.filter({ hasText: 'Time now answered' }).waitFor();
    await run.getByTestId('run-result').getByText(FIRST_ANSWER).waitFor();
    await run.getByTestId('run-status').filter({ hasText: 'Finished' }).waitFor();
    await detail.getByTestId('task-status').filter({ hasText: 'Scheduled' }).waitFor();
    await page.screenshot({ path: join(screenshots, 'tasks-run.png') });
    assert.deepEqual(listFetches, [], 'the run showed up through live events, not by fetching again');

    // Over HTTP: the task and its run are what the page showed.
    const after1 = await api('GET', `/api/tasks/${task.task_id}`);
    assert.equal(after1.name, REFINEMENT.name);
    assert.equal(after1.status, 'active');
    assert.deepEqual(after1.schedule, { type: 'recurring', frequency: 'weekly', days: WEEKDAYS, time: '09:00', timezone: 'Europe/Lisbon' });
    assert.deepEqual(after1.plan, PLAN.plan);
    assert.ok(after1.next_execution_at, 'the next run is set');
    assert.equal(after1.runs.length, 1);
    const [first] = after1.runs;
    assert.equal(first.status, 'completed');
    assert.equal(first.result.summary, FIRST_ANSWER);
    assert.equal(first.error, null);
    const kinds = first.progress_updates.map((u) => u.message.type);
    assert.deepEqual(kinds.slice(0, 3), ['info', 'tool_call', 'tool_result']);
    assert.ok(kinds.includes('final_answer'), `a final answer line in ${kinds}`);
    assert.equal(first.progress_updates[1].message.tool_name, 'time_now');
    const events = await api('GET', `/api/tasks/${task.task_id}/runs/${first.run_id}/events`);
    assert.deepEqual(events, first.progress_updates);
    assert.equal(await lines.count(), first.progress_updates.length, 'the page shows every line of the log');

    // A second run asks a question; the card offers its options and the answer lets it carry on.
    await detail.getByRole('button', { name: 'Run now' }).click();
    const card = detail.getByTestId('question-card');
    await card.getByText(QUESTION).waitFor();
    await detail.getByTestId('task-status').filter({ hasText: 'Waiting for your answer' }).waitFor();
    await page.getByTestId('task-group-needs_you').getByText(REFINEMENT.name).waitFor();
    await page.screenshot({ path: join(screenshots, 'tasks-question.png') });
    await card.getByRole('button', { name: 'Short', exact: true }).click();
    await card.waitFor({ state: 'detached' });
    const second = detail.getByTestId('run-card').first();
    await second.getByTestId('run-result').getByText(SECOND_ANSWER).waitFor();
    await second.getByTestId('run-status').filter({ hasText: 'Finished' }).waitFor();
    await page.screenshot({ path: join(screenshots, 'tasks-answered.png') });

    const after2 = await api('GET', `/api/tasks/${task.task_id}`);
    assert.equal(after2.status, 'active');
    assert.equal(after2.runs.length, 2);
    const asked = after2.runs[1];
    assert.equal(asked.status, 'completed');
    assert.equal(asked.pending_question, null);
    assert.equal(asked.result.summary, SECOND_ANSWER);
    const said = asked.progress_updates.map((u) => u.message.content).join('\n');
    assert.match(said, /Waiting for your answer/);
    assert.match(said, /You answered: Short/);

    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });
});

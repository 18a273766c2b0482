// End to end: task memory in the real window. The engine (`sentient serve`) talks to the scripted
// model server as if it were Ollama. A daily task is created and approved; Run now starts a run
// that saves its list with `task_notepad` and answers, and the note shows up live in the "Notes
// between runs" card. The card then edits, saves and clears the notes, each checked over HTTP;
// the Brief card fills two fields in the person's own words; hovering the task in the list shows
// its latest result, then (once it has a brief) its goal and what it is doing now.
//
// The processes and the browser are set up by ./support.mjs (see there for the binaries it uses).
//
// Screenshots go to test-output/screenshots/ at the repo root: notes-card-with-note.png,
// notes-card-editing.png, notes-card-cleared.png, task-list-hover.png and brief-card.png.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ScriptedWorld, screenshots } from './support.mjs';

const PROMPT = 'every morning at 8, tell me what is new on the library news page';
const REFINEMENT = {
  name: 'Library news',
  description: 'Every morning, tell me what is new on the library news page.',
  priority: 1,
  schedule: { type: 'recurring', frequency: 'daily', time: '08:00' },
};
const PLAN = { plan: [{ tool: 'time_now', description: 'Read the library news and tell me only what is new' }] };
const NOTE = 'Reported news items:\n- Reading room reopens on Monday\n- New Marathi poetry shelf\n- Book sale on 20 October';
const ANSWER =
  'Library news this morning: the reading room reopens on Monday, there is a new Marathi poetry shelf, and the book sale is on 20 October.';
const EDITED = 'Reported news items:\n- Reading room reopens on Monday\n- Book sale on 20 October';
const GOAL = 'Tell Ada only the new items on the library news page.';
const FOCUS = 'Watching for the author talk date.';

/** What the model says, in order. */
const SCRIPT = [
  // Create: the refinement, then the plan.
  { text: JSON.stringify(REFINEMENT) },
  { text: JSON.stringify(PLAN) },
  // The run: it saves the list of what it reported (an internal tool, so no brief reminder), then
  // answers, slowly, so the note arrives while the page is watching.
  { tool_call: { name: 'task_notepad', arguments: { text: NOTE } } },
  { text: ANSWER, chunk_delay_ms: 40 },
];

const world = new ScriptedWorld('task-memory', SCRIPT);
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

describe('Task memory in the browser', () => {
  test('a run saves notes that appear live; the card edits, saves and clears them; the brief and the hover summary', async () => {
    await page.goto(ready.web_url);
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tasks', exact: true }).waitFor();
    await page.getByText('No tasks yet — describe one above.').waitFor();

    // A daily task: created, planned, approved.
    await page.getByRole('textbox', { name: 'Describe a task' }).fill(PROMPT);
    await page.getByRole('button', { name: 'Create task', exact: true }).click();
    const detail = page.getByTestId('task-detail');
    const plan = detail.getByTestId('plan-card');
    await plan.getByText(PLAN.plan[0].description).waitFor();
    await plan.getByRole('button', { name: 'Approve' }).click();
    await detail.getByTestId('task-status').filter({ hasText: 'Scheduled' }).waitFor();
    assert.equal(await detail.getByTestId('task-schedule').innerText(), 'Every day at 08:00');
    const [task] = await api('GET', '/api/tasks');
    assert.equal(task.notepad, null);

    // The card is there before any run, empty, with the hint.
    const notes = detail.getByTestId('notes-card');
    await notes.getByTestId('notes-empty').waitFor();
    assert.match(await notes.innerText(), /Every run reads these notes and what the last few runs found, so it tells you only what's new\./);

    // Run now (which opens the Runs tab); back on the Overview the run's note arrives live.
    const fetches = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/api/tasks') && req.method() === 'GET') fetches.push(req.url());
    });
    await detail.getByRole('button', { name: 'Run now' }).click();
    await detail.getByTestId('run-card').waitFor();
    await detail.getByRole('tab', { name: 'Overview' }).click();
    await notes.getByTestId('notes-text').filter({ hasText: 'Book sale on 20 October' }).waitFor();
    assert.equal(await notes.getByTestId('notes-text').innerText(), NOTE);
    await detail.getByTestId('task-status').filter({ hasText: 'Scheduled' }).waitFor();
    assert.deepEqual(fetches, [], 'the note came through live events, not by fetching again');
    await notes.hover();
    await notes.getByRole('button', { name: 'Edit' }).waitFor();
    await notes.screenshot({ path: join(screenshots, 'notes-card-with-note.png') });

    const afterRun = await api('GET', `/api/tasks/${task.task_id}`);
    assert.equal(afterRun.notepad, NOTE);
    assert.equal(afterRun.notepad_untrusted, null);
    assert.equal(afterRun.runs.length, 1);
    assert.equal(afterRun.runs[0].status, 'completed');
    assert.equal(afterRun.runs[0].result.summary, ANSWER);
    assert.ok(!afterRun.runs[0].result.tools_used.includes('task_notepad'), 'the notepad tool is not listed as a tool used');
    const calls = afterRun.runs[0].progress_updates.filter((u) => u.message.type === 'tool_call').map((u) => u.message.tool_name);
    assert.deepEqual(calls, ['task_notepad']);

    // Hovering the task in the list: no brief yet, so its latest result.
    const row = page.getByTestId('task-row').filter({ hasText: REFINEMENT.name });
    await row.getByRole('button').hover();
    const tip = row.getByRole('tooltip');
    await tip.waitFor();
    assert.equal(await tip.innerText(), `Last result: ${ANSWER}`);

    // Edit: the counter counts to the limit from the settings; Save keeps the person's words.
    await notes.hover();
    await notes.getByRole('button', { name: 'Edit' }).click();
    const box = notes.getByRole('textbox', { name: 'Notes between runs' });
    assert.equal(await box.inputValue(), NOTE);
    await box.fill(EDITED);
    assert.equal(await notes.getByTestId('notes-count').innerText(), `${EDITED.length} / 1500 characters`);
    await notes.screenshot({ path: join(screenshots, 'notes-card-editing.png') });
    await notes.getByRole('button', { name: 'Save' }).click();
    await notes.getByTestId('notes-text').filter({ hasText: 'Book sale' }).waitFor();
    await box.waitFor({ state: 'detached' });
    assert.equal(await notes.getByTestId('notes-text').innerText(), EDITED);
    assert.equal((await api('GET', `/api/tasks/${task.task_id}`)).notepad, EDITED);

    // Too long: Save is off, and the engine would refuse it anyway.
    await notes.hover();
    await notes.getByRole('button', { name: 'Edit' }).click();
    await box.fill('x'.repeat(1501));
    assert.match(await notes.getByTestId('notes-count').innerText(), /1501 \/ 1500 characters — 1 too many/);
    assert.ok(await notes.getByRole('button', { name: 'Save' }).isDisabled());
    await notes.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await notes.getByTestId('notes-text').innerText(), EDITED);

    // Clear.
    await notes.hover();
    await notes.getByRole('button', { name: 'Clear', exact: true }).click();
    const confirm = notes.getByRole('group', { name: 'Clear the notes' });
    await confirm.getByRole('button', { name: 'Clear', exact: true }).click();
    await notes.getByTestId('notes-empty').waitFor();
    await confirm.waitFor({ state: 'detached' });
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300); // the hover-only buttons fade out
    await notes.screenshot({ path: join(screenshots, 'notes-card-cleared.png') });
    assert.equal((await api('GET', `/api/tasks/${task.task_id}`)).notepad, null);

    // Clear and forget earlier runs, from a fresh note.
    await notes.hover();
    await notes.getByRole('button', { name: 'Edit' }).click();
    await box.fill('- Author talk on 25 October');
    await notes.getByRole('button', { name: 'Save' }).click();
    await notes.getByTestId('notes-text').waitFor();
    assert.equal((await api('GET', `/api/tasks/${task.task_id}`)).notepad, '- Author talk on 25 October');
    await notes.hover();
    await notes.getByRole('button', { name: 'Clear', exact: true }).click();
    await confirm.getByRole('button', { name: 'Clear and forget earlier runs' }).click();
    await notes.getByTestId('notes-empty').waitFor();
    assert.equal((await api('GET', `/api/tasks/${task.task_id}`)).notepad, null);

    // The Brief: two fields in the person's own words.
    const brief = detail.getByTestId('brief-card');
    await brief.getByTestId('brief-empty').waitFor();
    await brief.getByTestId('brief-goal').locator('dd').hover();
    await brief.getByRole('button', { name: 'Write Goal' }).click();
    await brief.getByRole('textbox', { name: 'Goal' }).fill(GOAL);
    await brief.getByRole('button', { name: 'Save' }).click();
    await brief.getByTestId('brief-goal').getByTestId('brief-yours').waitFor();
    await brief.getByTestId('brief-current_focus').locator('dd').hover();
    await brief.getByRole('button', { name: 'Write Current focus' }).click();
    await brief.getByRole('textbox', { name: 'Current focus' }).fill(FOCUS);
    await brief.getByRole('button', { name: 'Save' }).click();
    await brief.getByTestId('brief-current_focus').getByTestId('brief-yours').waitFor();
    assert.match(await brief.getByTestId('brief-goal').locator('dd').innerText(), new RegExp(GOAL));
    assert.match(await brief.getByTestId('brief-updated').innerText(), /^Updated .* by you$/);
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await brief.screenshot({ path: join(screenshots, 'brief-card.png') });
    const withBrief = await api('GET', `/api/tasks/${task.task_id}`);
    assert.equal(withBrief.brief.goal, GOAL);
    assert.equal(withBrief.brief.current_focus, FOCUS);
    assert.deepEqual([...withBrief.brief.user_fields].sort(), ['current_focus', 'goal']);
    assert.equal(withBrief.brief.updated_by, 'user');

    // Hovering the task now shows its goal and what it is doing.
    await row.getByRole('button').hover();
    await tip.filter({ hasText: GOAL }).waitFor();
    assert.equal((await tip.innerText()).replace(/\n+/g, '\n'), `Goal: ${GOAL}\nNow: ${FOCUS}`);
    await page.screenshot({ path: join(screenshots, 'task-list-hover.png') });
    await page.mouse.move(600, 0);
    await tip.waitFor({ state: 'detached' });

    // Keyboard focus shows it too (Tab onto the row: focus a click or a script leaves does not).
    await row.getByRole('button').focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    await tip.waitFor();

    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });
});

// End to end: the Tasks page in the real window. The engine (`sentient serve`) talks to the
// scripted model server (its own process, `scripted-model-server SCRIPT.json`) as if it were
// Ollama. The page previews a prompt (name and weekday schedule), creates the task, the plan
// waits for approval, Approve schedules it, Run now starts a run whose progress lines arrive
// live, and the run finishes with its result. A second run asks a question (`ask_user`), which is
// answered in the page with an option button, and the run carries on to its answer. Then the
// task and runs are checked over HTTP.
//
//   SENTIENT_BIN            the engine binary (default $CARGO_TARGET_DIR/debug/sentient)
//   SCRIPTED_MODEL_BIN      the scripted model server (default $CARGO_TARGET_DIR/debug/scripted-model-server)
//   CHROMIUM_PATH           the browser (default /usr/bin/chromium)
//
// Screenshots go to test-output/screenshots/tasks-*.png at the repo root.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const uiDist = join(repoRoot, 'ui', 'dist');
const screenshots = join(repoRoot, 'test-output', 'screenshots');
const targetDir = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache', 'sentient-target');
const engineBin = process.env.SENTIENT_BIN || join(targetDir, 'debug', 'sentient');
const modelBin = process.env.SCRIPTED_MODEL_BIN || join(targetDir, 'debug', 'scripted-model-server');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const READY_TIMEOUT_MS = 60_000;
const STEP_TIMEOUT_MS = 20_000;

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
  // Second run: a question for the person, then (after the answer) the final answer.
  { tool_call: { name: 'ask_user', arguments: { question: QUESTION, options: ['Short', 'Long'] } } },
  { text: SECOND_ANSWER },
];

let ready;
let engine;
let model;
let engineLog = '';
let modelLog = '';
let context;
let page;
const pageErrors = [];
const cleanup = [];

/** Starts a process and resolves with its first stdout line parsed as JSON (its ready line). */
async function startProcess(bin, args, env, onLog) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', onLog);
  const line = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`${bin} printed no ready line within ${READY_TIMEOUT_MS / 1000} s.`)), READY_TIMEOUT_MS);
    lines.once('line', (first) => {
      clearTimeout(timer);
      resolve(first);
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${bin} exited (code ${code}, signal ${signal}) before it was ready.`));
    });
  });
  child.stdout.resume();
  return { child, info: JSON.parse(line) };
}

async function stopProcess(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function api(method, path, body) {
  const res = await fetch(`${ready.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${ready.token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

before(async () => {
  for (const [what, path] of [
    ['engine binary', engineBin],
    ['scripted model server', modelBin],
    ['built window', join(uiDist, 'index.html')],
    ['browser', chromiumPath],
  ]) {
    assert.ok(existsSync(path), `No ${what} at ${path}. See the top of tests/e2e/tasks.test.mjs.`);
  }
  await mkdir(screenshots, { recursive: true });

  const work = await mkdtemp(join(tmpdir(), 'sentient-e2e-tasks-'));
  cleanup.push(() => rm(work, { recursive: true, force: true }));
  const scriptPath = join(work, 'script.json');
  await writeFile(scriptPath, JSON.stringify(SCRIPT));
  const m = await startProcess(modelBin, [scriptPath], {}, (chunk) => {
    modelLog += chunk;
  });
  model = m.child;
  assert.equal(m.info.replies, SCRIPT.length);

  const home = join(work, 'home');
  await mkdir(home);
  const token = randomBytes(24).toString('hex');
  const e = await startProcess(
    engineBin,
    ['serve', '--home', home, '--port', '0', '--token', token],
    { SENTIENT_UI_DIR: uiDist, RUST_LOG: process.env.RUST_LOG || 'info' },
    (chunk) => {
      engineLog += chunk;
    },
  );
  engine = e.child;
  ready = { ...e.info, home };

  await api('POST', '/api/onboarding', {
    user_name: 'Ada',
    assistant_name: 'Sentient',
    timezone: 'Europe/Lisbon',
    location: 'Lisbon',
  });
  // Every model Sentient uses is the scripted one, spoken to as Ollama.
  await api('PATCH', '/api/config', {
    models: {
      primary: 'ollama_chat/qwen3:8b',
      fast: 'ollama_chat/qwen3:8b',
      background_quiet_s: 0,
      providers: { ollama_chat: { api_base: m.info.base_url }, ollama: { api_base: m.info.base_url } },
    },
  });

  const profile = await mkdtemp(join(tmpdir(), 'sentient-e2e-chromium-'));
  cleanup.push(() => rm(profile, { recursive: true, force: true }));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1200, height: 900 },
    timezoneId: 'Europe/Lisbon',
    locale: 'en-GB',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
});

after(async () => {
  if (process.exitCode && ready) {
    // What the engine had, to tell a page problem from an engine one.
    const tasks = await api('GET', '/api/tasks').catch((e) => String(e));
    console.error(`--- tasks ---\n${JSON.stringify(tasks, null, 2)}`);
    await page?.screenshot({ path: join(screenshots, 'tasks-failure.png') }).catch(() => {});
  }
  await context?.close().catch(() => {});
  await stopProcess(engine);
  await stopProcess(model);
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
  if (process.exitCode) {
    if (engineLog) console.error(`--- engine log ---\n${engineLog}`);
    if (modelLog) console.error(`--- model server log ---\n${modelLog}`);
  }
});

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

    assert.deepEqual(pageErrors, [], 'the page threw no errors');
  });
});

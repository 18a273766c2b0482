// End to end: a chat in the real window. The engine (`sentient serve`) talks to the scripted model
// server (run as its own process, `scripted-model-server SCRIPT.json`) as if it were Ollama. The
// page sends a message, the model asks to write a file, the approval card appears, Allow runs the
// tool, the second reply streams in, and the stored transcript has the contract's rows.
//
//   SENTIENT_BIN            the engine binary (default $CARGO_TARGET_DIR/debug/sentient)
//   SCRIPTED_MODEL_BIN      the scripted model server (default $CARGO_TARGET_DIR/debug/scripted-model-server)
//   CHROMIUM_PATH           the browser (default /usr/bin/chromium)
//
// Screenshots go to test-output/screenshots/ at the repo root.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
const STEP_TIMEOUT_MS = 15_000;

const FIRST_REPLY = "I'll save that.";
const SECOND_REPLY = 'Saved your note about milk in outputs/note.txt.';

/** What the model says, in order: a tool call that needs an OK, the answer, then the chat's title. */
const SCRIPT = [
  {
    parts: [{ text: FIRST_REPLY }, { tool_call: { name: 'files_write', arguments: { path: 'outputs/note.txt', content: 'milk' } } }],
  },
  { text: SECOND_REPLY, chunk_delay_ms: 20 },
  { text: 'Milk note' },
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
    assert.ok(existsSync(path), `No ${what} at ${path}. See the top of tests/e2e/chat.test.mjs.`);
  }
  await mkdir(screenshots, { recursive: true });

  const work = await mkdtemp(join(tmpdir(), 'sentient-e2e-chat-'));
  cleanup.push(() => rm(work, { recursive: true, force: true }));
  const scriptPath = join(work, 'script.json');
  await writeFile(scriptPath, JSON.stringify(SCRIPT));
  const m = await startProcess(modelBin, [scriptPath], {}, (chunk) => {
    modelLog += chunk;
  });
  model = m.child;
  assert.equal(m.info.replies, SCRIPT.length);
  assert.match(m.info.base_url, /^http:\/\/127\.0\.0\.1:\d+$/);

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
  assert.equal(ready.token, token);

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
      // Titles are background work, which otherwise waits 30 s after a reply for a local model.
      background_quiet_s: 0,
      providers: { ollama_chat: { api_base: m.info.base_url }, ollama: { api_base: m.info.base_url } },
    },
  });

  const profile = await mkdtemp(join(tmpdir(), 'sentient-e2e-chromium-'));
  cleanup.push(() => rm(profile, { recursive: true, force: true }));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1200, height: 860 },
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
});

after(async () => {
  await context?.close().catch(() => {});
  await stopProcess(engine);
  await stopProcess(model);
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
  if (process.exitCode) {
    if (engineLog) console.error(`--- engine log ---\n${engineLog}`);
    if (modelLog) console.error(`--- model server log ---\n${modelLog}`);
  }
});

describe('Chat in the browser', () => {
  test('a message, an approval, the tool result and the streamed reply; the transcript is stored', async () => {
    await page.goto(ready.web_url);
    await page.getByRole('heading', { level: 1, name: 'Chat', exact: true }).waitFor();
    await page.getByText('No chats yet — say hello below.').waitFor();

    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Remember: buy milk');
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    // The model asks to write a file: the card says what, how risky, and offers the three answers.
    const card = page.getByTestId('approval-card');
    await card.waitFor();
    await card.getByText('needs your OK').waitFor();
    assert.match(await card.innerText(), /Files write/);
    await card.getByRole('button', { name: 'Allow for this chat' }).waitFor();
    await card.getByRole('button', { name: 'Deny' }).waitFor();
    await page.getByText(FIRST_REPLY).waitFor();
    // While the question waits the reply is running, so Stop shows.
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    await page.screenshot({ path: join(screenshots, 'chat-approval.png') });

    await card.getByRole('button', { name: 'Allow', exact: true }).click();
    await card.getByTestId('approval-outcome').filter({ hasText: 'You allowed this once.' }).waitFor();

    const tool = page.getByTestId('tool-card');
    await tool.getByText('Done', { exact: true }).waitFor();
    const result = await tool.getByTestId('tool-result').innerText();
    assert.match(result, /outputs\/note\.txt/);
    assert.match(result, /"bytes": 4/);

    await page.getByText(SECOND_REPLY).waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 0, 'Stop goes once the reply is done');
    assert.equal(await readFile(join(ready.home, 'files', 'outputs', 'note.txt'), 'utf8'), 'milk');

    // The chat is listed (with the title the fast model gave it, live).
    const row = page.getByTestId('session-row');
    await row.getByText('Milk note').waitFor();
    await page.screenshot({ path: join(screenshots, 'chat-reply.png') });

    const sessions = await api('GET', '/api/sessions');
    assert.equal(sessions.length, 1);
    const rows = await api('GET', `/api/sessions/${sessions[0].id}/messages`);
    assert.deepEqual(
      rows.map((r) => r.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    const keys = ['id', 'role', 'content', 'thinking', 'tool_calls', 'tool_call_id', 'name', 'attachments', 'interjection', 'memory_sources', 'created_at'];
    for (const r of rows) {
      for (const k of keys) assert.ok(k in r, `row ${r.role} has ${k}`);
      assert.deepEqual(r.memory_sources, []);
      assert.ok(!Number.isNaN(Date.parse(r.created_at)), 'created_at is a timestamp');
    }
    assert.equal(rows[0].content, 'Remember: buy milk');
    assert.equal(rows[0].interjection, false);
    assert.equal(rows[1].tool_calls.length, 1);
    const call = rows[1].tool_calls[0];
    assert.equal(call.type, 'function');
    assert.equal(call.function.name, 'files_write');
    assert.deepEqual(JSON.parse(call.function.arguments), { path: 'outputs/note.txt', content: 'milk' });
    assert.equal(rows[2].tool_call_id, call.id);
    assert.equal(rows[2].name, 'files_write');
    assert.deepEqual(JSON.parse(rows[2].content), { path: 'outputs/note.txt', bytes: 4 });
    assert.equal(rows[3].content, SECOND_REPLY);
    assert.deepEqual(rows[3].tool_calls, []);

    // Opening the chat again shows the stored transcript folded into one reply.
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.getByText(SECOND_REPLY).waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: 'Milk note', exact: true }).click();
    await page.getByText(SECOND_REPLY).waitFor();
    await page.getByTestId('tool-card').getByText('Done', { exact: true }).waitFor();
    assert.equal(await page.getByTestId('approval-card').count(), 0, 'a stored call has no open question');

    assert.deepEqual(pageErrors, [], 'the page threw no errors');
  });
});

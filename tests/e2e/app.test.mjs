// End to end: the real engine (`sentient serve`) serving the built window (ui/dist), driven in
// Debian's chromium through playwright-core. Run with `npm run e2e` after `npm run ui:build` and
// building the engine (`cargo build -p sentient-engine --bin sentient`).
//
//   SENTIENT_BIN       the engine binary (default $CARGO_TARGET_DIR/debug/sentient, where
//                      CARGO_TARGET_DIR defaults to ~/.cache/sentient-target)
//   CHROMIUM_PATH      the browser (default /usr/bin/chromium)
//
// Screenshots go to test-output/screenshots/ at the repo root.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const uiDist = join(repoRoot, 'ui', 'dist');
const screenshots = join(repoRoot, 'test-output', 'screenshots');
const targetDir = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache', 'sentient-target');
const engineBin = process.env.SENTIENT_BIN || join(targetDir, 'debug', 'sentient');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const READY_TIMEOUT_MS = 60_000;
const STEP_TIMEOUT_MS = 15_000;

/** @type {{ url: string, token: string, home: string, web_url: string }} */
let ready;
/** @type {import('node:child_process').ChildProcess} */
let engine;
let engineLog = '';
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('playwright-core').Page} */
let page;
const pageErrors = [];
const cleanup = [];

/** A loopback port nothing listens on: bound by the system's choice, then closed. */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `sentient serve` on a free port with a fresh home and waits for its ready line. */
async function startEngine() {
  const home = await mkdtemp(join(tmpdir(), 'sentient-e2e-home-'));
  cleanup.push(() => rm(home, { recursive: true, force: true }));
  // Ollama's address is a port this test found free and closed again, never the default 11434,
  // where a developer's own Ollama may be running.
  const ollama = `http://127.0.0.1:${await closedPort()}`;
  await writeFile(
    join(home, 'config.yaml'),
    `models:\n  providers:\n    ollama_chat:\n      api_base: ${ollama}\n    ollama:\n      api_base: ${ollama}\n`,
  );
  const token = randomBytes(24).toString('hex');
  const child = spawn(engineBin, ['serve', '--home', home, '--port', '0', '--token', token], {
    env: { ...process.env, SENTIENT_UI_DIR: uiDist, RUST_LOG: process.env.RUST_LOG || 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    engineLog += chunk;
  });

  const line = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`The engine printed no ready line within ${READY_TIMEOUT_MS / 1000} s.\n${engineLog}`)), READY_TIMEOUT_MS);
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
      reject(new Error(`The engine exited (code ${code}, signal ${signal}) before it was ready.\n${engineLog}`));
    });
  });
  // Keep draining stdout so the engine never blocks on a full pipe.
  child.stdout.resume();

  const info = JSON.parse(line);
  assert.equal(info.token, token, 'the ready line carries the token we passed');
  assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(info.web_url, `${info.url}/#token=${token}`);
  return { child, info };
}

async function stopEngine() {
  if (!engine || engine.exitCode !== null || engine.signalCode !== null) return;
  const exited = new Promise((resolve) => engine.once('exit', resolve));
  engine.kill('SIGTERM');
  const timer = setTimeout(() => engine.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Calls the engine's HTTP API from node, as a script or another device would. */
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

const heading = (name) => page.getByRole('heading', { level: 1, name, exact: true });
const banner = () => page.getByTestId('stop-banner');
const titlebarStop = () => page.getByTestId('titlebar-stop');
const sidebarLink = (label) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true });

before(async () => {
  assert.ok(existsSync(engineBin), `No engine binary at ${engineBin}. Build it (cargo build -p sentient-engine --bin sentient) or set SENTIENT_BIN.`);
  assert.ok(existsSync(join(uiDist, 'index.html')), `No built window at ${uiDist}. Run npm run ui:build first.`);
  assert.ok(existsSync(chromiumPath), `No browser at ${chromiumPath}. Install Debian's chromium or set CHROMIUM_PATH.`);
  await mkdir(screenshots, { recursive: true });

  const started = await startEngine();
  engine = started.child;
  ready = started.info;

  const profile = await mkdtemp(join(tmpdir(), 'sentient-e2e-chromium-'));
  cleanup.push(() => rm(profile, { recursive: true, force: true }));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1200, height: 780 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
});

after(async () => {
  await context?.close().catch(() => {});
  await stopEngine();
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
  if (process.exitCode && engineLog) console.error(`--- engine log ---\n${engineLog}`);
});

describe('Sentient in the browser', () => {
  test('first launch: onboarding, then the app', async () => {
    const health = await fetch(`${ready.url}/api/health`).then((r) => r.json());
    assert.equal(health.ok, true);

    await page.goto(ready.web_url);
    await heading('Welcome').waitFor();

    // The token left the address bar the moment the window started.
    assert.ok(!page.url().includes(ready.token), `token still in ${page.url()}`);
    assert.ok(!page.url().includes('token='), `token still in ${page.url()}`);

    const timezone = await page.getByLabel('Time zone').inputValue();
    assert.ok(timezone.length > 0, 'time zone is prefilled from the browser');
    assert.equal(await page.getByLabel("Your assistant's name").inputValue(), 'Sentient');

    await page.getByLabel('Your name').fill('Ada');
    await page.getByLabel('Where you are (optional)').fill('Lisbon, Portugal');
    await page.getByRole('button', { name: 'Get started' }).click();

    // The model step (tests/e2e/onboarding.test.mjs walks its other paths): set it up later.
    await heading('How should Sentient think?').waitFor();
    await page.getByRole('radio', { name: /Later/ }).check();
    await page.getByRole('button', { name: 'Finish and set it up later' }).click();

    await heading('Chat').waitFor();
    await page.getByText('Hi Ada.', { exact: false }).waitFor();

    const boot = await api('GET', '/api/bootstrap');
    assert.equal(boot.assistant.onboarding_complete, true);
    assert.equal(boot.assistant.user_name, 'Ada');
    assert.equal(boot.assistant.location, 'Lisbon, Portugal');
    assert.equal(boot.assistant.timezone, timezone);
  });

  test('every sidebar page: the hash changes and the heading shows', async () => {
    const pages = [
      ['Tasks', 'tasks'],
      ['Notifications', 'notifications'],
      ['Memory', 'memory'],
      ['Integrations', 'integrations'],
      ['Settings', 'settings'],
      ['Chat', 'chat'],
    ];
    for (const [label, id] of pages) {
      await sidebarLink(label).click();
      await page.waitForURL((url) => url.hash === `#/${id}`);
      await heading(label).waitFor();
      assert.equal(await sidebarLink(label).getAttribute('aria-current'), 'page');
    }

    await sidebarLink('Tasks').click();
    await heading('Tasks').waitFor();
    await page
      .getByText('Tasks you give Sentient will show up here: things to do now, on a schedule, or when something happens.')
      .waitFor();
    await page.screenshot({ path: join(screenshots, 'tasks-page.png') });

    // A reload keeps the page (and the sign-in, kept for this tab).
    await page.reload();
    await heading('Tasks').waitFor();
    assert.equal(new URL(page.url()).hash, '#/tasks');
  });

  test('Stop everything, then Resume, from the title bar', async () => {
    await titlebarStop().filter({ hasText: 'Stop everything' }).click();
    await banner().waitFor();
    await banner().getByText('Sentient is stopped. Scheduled tasks, triggers and suggestions are paused until you resume.').waitFor();
    await banner().getByText('from the app', { exact: false }).waitFor();
    await titlebarStop().filter({ hasText: 'Resume' }).waitFor();

    const stopped = await api('GET', '/api/stop');
    assert.equal(stopped.stopped, true);
    assert.equal(stopped.source, 'desktop');
    assert.ok(stopped.stopped_at, 'stopped_at is set');

    await titlebarStop().filter({ hasText: 'Resume' }).click();
    await banner().waitFor({ state: 'hidden' });
    await titlebarStop().filter({ hasText: 'Stop everything' }).waitFor();
    assert.equal((await api('GET', '/api/stop')).stopped, false);
  });

  test('the stopped banner survives a reload', async () => {
    await titlebarStop().filter({ hasText: 'Stop everything' }).click();
    await banner().waitFor();

    await page.reload();
    await heading('Tasks').waitFor();
    await banner().getByText('Sentient is stopped. Scheduled tasks, triggers and suggestions are paused until you resume.').waitFor();
    await banner().locator('time').waitFor();
    await page.screenshot({ path: join(screenshots, 'stopped-banner.png') });

    // One Resume, in the title bar.
    assert.equal(await page.getByRole('button', { name: 'Resume' }).count(), 1);
    await titlebarStop().filter({ hasText: 'Resume' }).click();
    await banner().waitFor({ state: 'hidden' });
    assert.equal((await api('GET', '/api/stop')).stopped, false);
  });

  test('a stop made through the HTTP API shows up live, without a reload', async () => {
    await heading('Tasks').waitFor();
    // Marks this page load; a reload would lose it.
    await page.evaluate(() => {
      window.__sameLoad = true;
    });
    assert.equal(await banner().count(), 0);

    const result = await api('POST', '/api/stop-all', { source: 'device' });
    assert.equal(result.stopped, true);
    assert.equal(typeof result.cancelled, 'number');

    await banner().getByText('from a connected device', { exact: false }).waitFor();
    await titlebarStop().filter({ hasText: 'Resume' }).waitFor();
    assert.equal(await page.evaluate(() => window.__sameLoad), true, 'the page was not reloaded');

    await api('POST', '/api/resume', { source: 'device' });
    await banner().waitFor({ state: 'hidden' });
    await titlebarStop().filter({ hasText: 'Stop everything' }).waitFor();
    assert.equal(await page.evaluate(() => window.__sameLoad), true, 'the page was not reloaded');
  });

  test('Settings > Models: Ollama shows as not running, and a model picked for quick jobs is saved', async () => {
    await sidebarLink('Settings').click();
    await heading('Settings').waitFor();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Models', exact: true }).click();
    await page.waitForURL((url) => url.hash === '#/settings/models');
    // Each job's model, downloads and the queue sit under Advanced (it stays open after a reload).
    await page.getByRole('button', { name: 'Advanced', exact: true }).click();
    await page.getByRole('heading', { name: 'Which model does each job', exact: true }).waitFor();

    // Nothing answers on Ollama's port here: one sentence says to start or install it.
    const ollama = page.getByTestId('ollama-status');
    await ollama.getByText("Ollama isn't running. Start Ollama, or install it from", { exact: false }).waitFor();
    assert.equal(await page.getByLabel('Download a model', { exact: true }).isDisabled(), true);
    await page.getByTestId('model-busy').getByText('Local model: idle').waitFor();
    await page.getByText('Recommended for this computer:', { exact: false }).waitFor();
    // The built-in setups are listed.
    for (const name of ['Local only', 'Cloud', 'Mixed']) await page.getByTestId(`preset-${name}`).waitFor();

    // Every job has its section; pick a model for quick jobs and save it.
    for (const title of ['Main model', 'Quick jobs', 'Planning tasks', 'Running tasks', 'Memory search', 'Pictures', 'Voice']) {
      await page.getByRole('region', { name: title, exact: true }).waitFor();
    }
    const fast = page.getByRole('region', { name: 'Quick jobs', exact: true });
    await fast.getByLabel('Model', { exact: true }).selectOption('ollama_chat/qwen3:4b');
    await fast.getByRole('button', { name: 'Save', exact: true }).click();
    await fast.locator('.role-now').filter({ hasText: 'Uses ollama_chat/qwen3:4b' }).waitFor();
    await page.screenshot({ path: join(screenshots, 'settings-models.png'), fullPage: true });

    const config = await api('GET', '/api/config');
    assert.equal(config.models.fast, 'ollama_chat/qwen3:4b');

    // A reload keeps the tab, and the saved model.
    await page.reload();
    await page.getByRole('heading', { name: 'Which model does each job', exact: true }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/settings/models');
    await page
      .getByRole('region', { name: 'Quick jobs', exact: true })
      .locator('.role-now')
      .filter({ hasText: 'Uses ollama_chat/qwen3:4b' })
      .waitFor();
    assert.equal(
      await page.getByRole('region', { name: 'Quick jobs', exact: true }).getByLabel('Model', { exact: true }).inputValue(),
      'ollama_chat/qwen3:4b',
    );

    // A change made elsewhere (here through the HTTP API) shows up live, without a reload.
    await api('PUT', '/api/models/roles', { fast: null });
    await page
      .getByRole('region', { name: 'Quick jobs', exact: true })
      .locator('.role-now')
      .filter({ hasText: 'Uses the main model' })
      .waitFor();
  });

  test('no script errors in the page', () => {
    assert.deepEqual(pageErrors, []);
  });
});

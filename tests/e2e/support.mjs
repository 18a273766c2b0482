// What the browser tests that talk to a model share: the scripted model server and `sentient serve`
// as real processes, the engine onboarded and pointed at the script (every model is the scripted
// one, spoken to as Ollama), and Debian's chromium through playwright-core. Not a test file itself.
//
//   SENTIENT_BIN            the engine binary (default $CARGO_TARGET_DIR/debug/sentient)
//   SCRIPTED_MODEL_BIN      the scripted model server (default $CARGO_TARGET_DIR/debug/scripted-model-server)
//   CHROMIUM_PATH           the browser (default /usr/bin/chromium)

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const uiDist = join(repoRoot, 'ui', 'dist');
/** Screenshots go here, at the repo root. */
export const screenshots = join(repoRoot, 'test-output', 'screenshots');
const targetDir = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache', 'sentient-target');
const engineBin = process.env.SENTIENT_BIN || join(targetDir, 'debug', 'sentient');
const modelBin = process.env.SCRIPTED_MODEL_BIN || join(targetDir, 'debug', 'scripted-model-server');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const READY_TIMEOUT_MS = 60_000;
export const STEP_TIMEOUT_MS = 20_000;

/** Starts a process and resolves with its first stdout line parsed as JSON (its ready line). */
export async function startProcess(bin, args, env, onLog) {
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

/** SIGTERM, then SIGKILL after 10 s. */
export async function stopProcess(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Polls `read` until `ok(value)`; fails with `what` and the last value. */
export async function eventually(what, read, ok, timeoutMs = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    assert.ok(Date.now() < deadline, `${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A `ScriptedWorld` started before the calling file's tests and stopped after them. */
export function scriptedWorldForTests(name, script, options) {
  const world = new ScriptedWorld(name, script, options);
  before(() => world.start());
  after(() => world.stop());
  return world;
}

/** Opens the chat at `webUrl` and waits for its page to be there. */
export async function openChat(page, webUrl) {
  await page.goto(webUrl);
  await page.getByRole('heading', { level: 1, name: 'Chat', exact: true }).waitFor();
}

/** Types `text` into the open chat's message box and sends it. */
export async function sendMessage(page, text) {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/**
 * One engine, one scripted model server and one browser page for a test file. `script` is what the
 * model says, in order; `name` names the scratch folders. Options:
 *   onboarded    false leaves the engine as on first launch (no POST /api/onboarding), so the window
 *                starts with onboarding (default true)
 *   models       the Ollama models the stand-in has, e.g. [] for none until one is pulled (default:
 *                every name answers and the listing is empty)
 *   pullDelayMs  a wait before each progress line of a download (default none)
 */
export class ScriptedWorld {
  constructor(name, script, { onboarded = true, models, pullDelayMs } = {}) {
    this.name = name;
    this.script = script;
    this.onboarded = onboarded;
    this.models = models;
    this.pullDelayMs = pullDelayMs;
    this.ready = null;
    this.page = null;
    this.pageErrors = [];
    this.engineLog = '';
    this.modelLog = '';
    this.cleanup = [];
  }

  async start() {
    for (const [what, path] of [
      ['engine binary', engineBin],
      ['scripted model server', modelBin],
      ['built window', join(uiDist, 'index.html')],
      ['browser', chromiumPath],
    ]) {
      assert.ok(existsSync(path), `No ${what} at ${path}. See the top of tests/e2e/support.mjs.`);
    }
    await mkdir(screenshots, { recursive: true });

    const work = await mkdtemp(join(tmpdir(), `sentient-e2e-${this.name}-`));
    this.cleanup.push(() => rm(work, { recursive: true, force: true }));
    const scriptPath = join(work, 'script.json');
    const plain = this.models === undefined && this.pullDelayMs === undefined;
    await writeFile(
      scriptPath,
      JSON.stringify(plain ? this.script : { replies: this.script, models: this.models ?? null, pull_delay_ms: this.pullDelayMs ?? null }),
    );
    const m = await startProcess(modelBin, [scriptPath], {}, (chunk) => {
      this.modelLog += chunk;
    });
    this.model = m.child;
    /** The stand-in's addresses: `base_url` (Ollama, Anthropic) and `openai_url`. */
    this.modelServer = m.info;
    assert.equal(m.info.replies, this.script.length);
    assert.match(m.info.base_url, /^http:\/\/127\.0\.0\.1:\d+$/);

    const home = join(work, 'home');
    await mkdir(home);
    const token = randomBytes(24).toString('hex');
    const e = await startProcess(
      engineBin,
      ['serve', '--home', home, '--port', '0', '--token', token],
      { SENTIENT_UI_DIR: uiDist, RUST_LOG: process.env.RUST_LOG || 'info' },
      (chunk) => {
        this.engineLog += chunk;
      },
    );
    this.engine = e.child;
    this.ready = { ...e.info, home };
    assert.equal(this.ready.token, token);

    await this.api('PATCH', '/api/config', {
      models: {
        primary: 'ollama_chat/qwen3:8b',
        fast: 'ollama_chat/qwen3:8b',
        // Background work (titles, …) otherwise waits 30 s after a reply for a local model.
        background_quiet_s: 0,
        providers: { ollama_chat: { api_base: m.info.base_url }, ollama: { api_base: m.info.base_url } },
      },
      // The script answers every model call in order; memory would add calls of its own (facts
      // from onboarding and from each reply). A test of memory turns it on.
      memory: { enabled: false },
    });

    if (this.onboarded) {
      await this.api('POST', '/api/onboarding', {
        user_name: 'Ada',
        assistant_name: 'Sentient',
        timezone: 'Europe/Lisbon',
        location: 'Lisbon',
      });
    }

    const profile = await mkdtemp(join(tmpdir(), 'sentient-e2e-chromium-'));
    this.cleanup.push(() => rm(profile, { recursive: true, force: true }));
    this.context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      viewport: { width: 1200, height: 900 },
      timezoneId: 'Europe/Lisbon',
      locale: 'en-GB',
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    this.page = this.context.pages()[0] ?? (await this.context.newPage());
    this.page.setDefaultTimeout(STEP_TIMEOUT_MS);
    this.page.on('pageerror', (err) => this.pageErrors.push(String(err)));
  }

  /** Stops everything; on a failure first runs `onFailure` (to print what the engine had) and prints the logs. */
  async stop(onFailure) {
    if (process.exitCode && this.ready && onFailure) {
      await onFailure().catch(() => {});
      await this.page?.screenshot({ path: join(screenshots, `${this.name}-failure.png`) }).catch(() => {});
    }
    await this.context?.close().catch(() => {});
    await stopProcess(this.engine);
    await stopProcess(this.model);
    for (const fn of this.cleanup.reverse()) await fn().catch(() => {});
    if (process.exitCode) {
      if (this.engineLog) console.error(`--- engine log ---\n${this.engineLog}`);
      if (this.modelLog) console.error(`--- model server log ---\n${this.modelLog}`);
    }
  }

  /** Calls the engine's HTTP API with the token; a non-2xx answer fails the test. */
  async api(method, path, body) {
    const res = await fetch(`${this.ready.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.ready.token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text);
  }
}

/**
 * A private Secret Service for the engine: with-keyring.sh's D-Bus session stays up until its
 * stdin closes. Resolves with the session's address.
 */
export async function startKeyring() {
  const child = spawn('bash', [join(repoRoot, 'tests', 'setup', 'with-keyring.sh'), 'bash', '-c', 'printf "%s\\n" "$DBUS_SESSION_BUS_ADDRESS"; read -r _ || true'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('The private keyring did not start within 20 s.')), 20_000);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve(line.trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tests/setup/with-keyring.sh exited (code ${code}); it needs dbus and gnome-keyring.`));
    });
  });
  assert.ok(address, 'the keyring session has an address');
  return { child, address };
}

export async function stopKeyring(k) {
  if (!k || k.child.exitCode !== null) return;
  const exited = new Promise((resolve) => k.child.once('exit', resolve));
  k.child.stdin.end();
  const timer = setTimeout(() => k.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A phone-sized Chromium with its own profile (removed with the world): touch, a 390 × 844
 * screen at 2×, and the LAN listener's self-signed certificate accepted (a phone's browser asks
 * the user once). `options` and `args` add to those.
 */
export async function launchPhone(world, { options = {}, args = [] } = {}) {
  const profile = await mkdtemp(join(tmpdir(), `sentient-e2e-${world.name}-phone-`));
  world.cleanup.push(() => rm(profile, { recursive: true, force: true }));
  return chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    ignoreHTTPSErrors: true,
    ...options,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...args],
  });
}

/** A port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '0.0.0.0', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

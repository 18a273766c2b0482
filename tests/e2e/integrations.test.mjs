// End to end: the Integrations page in Chromium against `sentient serve` (see ./support.mjs; no
// model is called here).
//
// 1. The apps are listed by kind; Slack shows Not available yet, with no Connect button.
// 2. A tool server added through the form (the MCP "everything" server from node_modules, over
//    stdio) shows Connected with its tools, such as mcp_everything_echo.
// 3. Its Read only switch is saved: GET /api/integrations/mcp says access "read".
// 4. Email (IMAP)'s connect dialog, sent with an empty server, shows the engine's sentence.
// 5. The server is removed after a confirm.
//
// The engine keeps a tool server's values in the keychain (and asks it even when there are none),
// so it gets a private gnome-keyring in its own D-Bus session, as the Rust tests do
// (tests/setup/with-keyring.sh); yours is never touched.
//
// Screenshots: test-output/screenshots/integrations-*.png at the repo root.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { eventually, ScriptedWorld, screenshots } from './support.mjs';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const EVERYTHING = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const IMAP_HOST_SENTENCE = 'Enter your IMAP server, for example imap.fastmail.com.';

const world = new ScriptedWorld('integrations', []);
let ready;
let page;
let keyring;
const api = (method, path, body) => world.api(method, path, body);

/**
 * A private Secret Service for the engine: with-keyring.sh's D-Bus session stays up until its
 * stdin closes. Resolves with the session's address.
 */
async function startKeyring() {
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

async function stopKeyring(k) {
  if (!k || k.child.exitCode !== null) return;
  const exited = new Promise((resolve) => k.child.once('exit', resolve));
  k.child.stdin.end();
  const timer = setTimeout(() => k.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The main column scrolled so `locator` is in view, then a screenshot of the window. */
async function shot(name, locator) {
  if (locator) await locator.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(screenshots, `integrations-${name}.png`) });
}

const card = (name) => page.getByRole('listitem', { name, exact: true });
const serverCard = () => page.getByRole('list', { name: 'Tool servers' }).getByRole('listitem', { name: 'everything', exact: true });

before(async () => {
  keyring = await startKeyring();
  process.env.DBUS_SESSION_BUS_ADDRESS = keyring.address;
  await world.start();
  ({ ready, page } = world);
});

after(async () => {
  await world.stop(async () => {
    console.error(`--- integrations ---\n${JSON.stringify(await api('GET', '/api/integrations'), null, 2)}`);
    console.error(`--- tool servers ---\n${JSON.stringify(await api('GET', '/api/integrations/mcp'), null, 2)}`);
  });
  await stopKeyring(keyring);
});

describe('the Integrations page', () => {
  test('lists the apps by kind; Slack is not available yet', async () => {
    await page.goto(ready.web_url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Integrations/ }).click();
    await card('Email (IMAP)').waitFor();
    for (const heading of ['Communication', 'Development', 'Built in', 'Tool servers']) {
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    }
    const listed = await page.getByTestId('app').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-app')));
    const engine = (await api('GET', '/api/integrations')).filter((a) => a.auth_type !== 'mcp').map((a) => a.id);
    assert.deepEqual([...listed].sort(), [...engine].sort(), 'every app the engine lists is on the page');
    assert.equal(await card('GitHub').getByTestId('status').textContent(), 'Not connected');
    assert.equal(await card('Web pages').getByTestId('status').textContent(), 'Always on');

    const slack = card('Slack');
    assert.equal(await slack.getByTestId('status').textContent(), 'Not available yet');
    await slack.getByText("Slack isn't available in this version of Sentient yet.").waitFor();
    assert.equal(await slack.getByRole('button').count(), 0, 'no Connect button on Slack');
    assert.equal(await card('Notion').getByTestId('status').textContent(), 'Not available yet');
    await page.getByText('No tool servers yet.', { exact: false }).waitFor();
    await shot('apps');
    await shot('not-available', slack);
  });

  test('adds a tool server through the form; it connects and lists its tools', async () => {
    await page.getByRole('button', { name: 'Add a server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a tool server' });
    await dialog.getByLabel('Name', { exact: true }).fill('everything');
    await dialog.getByLabel('Command', { exact: true }).fill('node');
    await dialog.getByLabel(/Arguments/).fill(`${EVERYTHING} stdio`);
    await shot('add-server');
    await dialog.getByRole('button', { name: 'Add server' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });

    const server = serverCard();
    await server.getByTestId('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 30_000 });
    await server.getByRole('button', { name: /Its tools/ }).click();
    await server.locator('[data-tool="mcp_everything_echo"]').getByText('Looks things up').waitFor();
    const listed = await api('GET', '/api/integrations/mcp');
    assert.equal(listed.length, 1);
    assert.equal(listed[0].status, 'connected');
    assert.deepEqual(listed[0].args, [EVERYTHING, 'stdio'], 'the arguments arrive as typed');
    assert.ok(listed[0].tools.some((t) => t.name === 'mcp_everything_echo'), JSON.stringify(listed[0].tools));
    assert.equal(await server.getByTestId('tool').count(), listed[0].tools.length);
    await shot('server-connected', server.getByRole('heading', { name: 'everything' }));
  });

  test('Read only is saved for the server', async () => {
    const server = serverCard();
    const readOnly = server.getByRole('switch', { name: /Read only/ });
    assert.equal(await readOnly.isChecked(), false);
    await readOnly.check();
    await eventually(
      'the server is Read only',
      async () => (await api('GET', '/api/integrations/mcp'))[0]?.access,
      (access) => access === 'read',
    );
    assert.equal(await readOnly.isChecked(), true);
    // Tools that change things say they are off.
    const off = server.getByText('Off while Read only is on.').first();
    await off.waitFor();
    await shot('server-read-only', off);
  });

  test("Email (IMAP) with no server shows the engine's sentence", async () => {
    const imap = card('Email (IMAP)');
    await imap.getByRole('button', { name: 'Connect Email (IMAP)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Email (IMAP)' });
    await dialog.getByLabel(/^Username/).fill('ada@example.com');
    assert.equal(await dialog.getByLabel(/^App password/).getAttribute('type'), 'password');
    await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
    await dialog.getByRole('alert').filter({ hasText: IMAP_HOST_SENTENCE }).waitFor();
    await shot('imap-error');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  test('removes the server after a confirm', async () => {
    const server = serverCard();
    await server.getByRole('button', { name: 'Remove everything' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Remove everything?' });
    await shot('remove-confirm');
    await confirm.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByText('No tool servers yet.', { exact: false }).waitFor();
    assert.deepEqual(await api('GET', '/api/integrations/mcp'), []);
    assert.ok(!(await api('GET', '/api/integrations')).some((a) => a.id === 'mcp_everything'));
    assert.deepEqual(world.pageErrors, []);
  });
});

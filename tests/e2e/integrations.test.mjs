// End to end: the Integrations page in Chromium against `sentient serve` (see ./support.mjs; no
// model is called here).
//
// 1. The apps are listed by kind; Slack shows Not available yet, with no Connect button.
// 2. A tool server added through the form (the MCP "everything" server from node_modules, over
//    stdio) shows Connected with its tools, such as mcp_everything_echo.
// 3. Its Read only switch is saved: GET /api/integrations/mcp says access "read".
// 4. Email (IMAP) in two fields: the address finds its servers through the domain's autoconfig
//    document (served on loopback, naming a port where nothing listens), the failed sign-in shows
//    the engine's sentence, More settings shows the servers filled in, and Cancel puts the card
//    back to Not connected.
// 5. The server is removed after a confirm.
// 6. Gmail connects through a browser sign-in: the sign-in page (a stand-in for Google on
//    loopback, see startGoogle) opens in a second page, comes back to the engine's callback
//    ("You're connected"), and the card turns Connected as me@example.com from the live event.
// 7. Gmail's privacy filters: a word and an address added as chips are saved lower-cased; one is
//    removed again.
// 8. A tool server with a blank API_KEY (added through the API) shows Needs API_KEY; the value
//    typed in its Keys dialog connects it.
// 9. Gmail is disconnected after a confirm that says its tasks are turned off.
//
// The engine keeps a tool server's values in the keychain (and asks it even when there are none),
// so it gets a private gnome-keyring in its own D-Bus session, as the Rust tests do
// (tests/setup/with-keyring.sh); yours is never touched.
//
// Screenshots: test-output/screenshots/integrations-*.png at the repo root.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { eventually, ScriptedWorld, screenshots, startKeyring, stopKeyring } from './support.mjs';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const EVERYTHING = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const world = new ScriptedWorld('integrations', []);
let ready;
let page;
let keyring;
let google;
let autoconfig;
let scratch;
const api = (method, path, body) => world.api(method, path, body);

/** The OAuth client typed into Gmail's dialog; the stand-in accepts only this one. */
const CLIENT_ID = '123456789012-sentienttest.apps.googleusercontent.com';
const CLIENT_SECRET = 'GOCSPX-sentient-test-secret-0000000';
const ACCOUNT = 'me@example.com';

/**
 * A stand-in for Google on 127.0.0.1, speaking the wire formats the engine uses
 * (src-tauri/integrations/src/google.rs and gmail.rs): the sign-in page, the token endpoint (code
 * exchange with the PKCE S256 check, and refresh) and the two Gmail calls a connect and its feed
 * make. `holdSignIn()` makes the next sign-in page wait until the returned function is called, so
 * the test can see the window's "waiting" state before the sign-in finishes. `requests` lists
 * what was asked, for the failure log.
 */
async function startGoogle() {
  const codes = new Map(); // code -> what /auth was asked with
  const requests = [];
  const exchanges = [];
  const clientChecks = [];
  let hold = null;
  let nextCode = 0;
  const json = (res, status, body) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const readBody = (req) =>
    new Promise((resolve, reject) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => resolve(text));
      req.on('error', reject);
    });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    requests.push(`${req.method} ${url.pathname}`);
    try {
      if (req.method === 'GET' && url.pathname === '/auth') {
        const q = url.searchParams;
        const wanted = {
          client_id: CLIENT_ID,
          response_type: 'code',
          scope: 'https://www.googleapis.com/auth/gmail.modify',
          code_challenge_method: 'S256',
          access_type: 'offline',
          prompt: 'consent',
        };
        for (const [key, value] of Object.entries(wanted)) {
          if (q.get(key) !== value) return json(res, 400, { error: 'invalid_request', detail: `${key} is ${q.get(key)}` });
        }
        for (const key of ['redirect_uri', 'code_challenge', 'state']) {
          if (!q.get(key)) return json(res, 400, { error: 'invalid_request', detail: `no ${key}` });
        }
        const redirect = new URL(q.get('redirect_uri'));
        if (redirect.hostname !== '127.0.0.1') return json(res, 400, { error: 'invalid_request', detail: 'redirect off loopback' });
        if (hold) {
          const { signal, opened } = hold;
          hold = null;
          opened();
          await signal;
        }
        const code = `code-${++nextCode}`;
        codes.set(code, { challenge: q.get('code_challenge'), redirect_uri: q.get('redirect_uri'), client_id: q.get('client_id') });
        redirect.searchParams.set('code', code);
        redirect.searchParams.set('state', q.get('state'));
        res.writeHead(302, { Location: redirect.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const form = new URLSearchParams(await readBody(req));
        if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
          return json(res, 401, { error: 'invalid_client' });
        }
        if (form.get('grant_type') === 'authorization_code') {
          const asked = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          const challenge = createHash('sha256').update(verifier).digest('base64url');
          // A code it never issued is Sentient's test sign-in of a pasted client (Google answers invalid_grant).
          if (!asked) {
            clientChecks.push(form.get('client_id'));
            return json(res, 400, { error: 'invalid_grant' });
          }
          const ok = challenge === asked.challenge && form.get('redirect_uri') === asked.redirect_uri;
          exchanges.push({ grant_type: 'authorization_code', ok });
          if (!ok) return json(res, 400, { error: 'invalid_grant' });
          return json(res, 200, { access_token: 'at', refresh_token: 'rt', expires_in: 3600 });
        }
        if (form.get('grant_type') === 'refresh_token') {
          const ok = form.get('refresh_token') === 'rt';
          exchanges.push({ grant_type: 'refresh_token', ok });
          if (!ok) return json(res, 400, { error: 'invalid_grant' });
          return json(res, 200, { access_token: 'at2', expires_in: 3600 });
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (url.pathname.startsWith('/gmail/v1/')) {
        if (!['Bearer at', 'Bearer at2'].includes(req.headers.authorization ?? '')) {
          return json(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
        }
        if (req.method === 'GET' && url.pathname === '/gmail/v1/users/me/profile') {
          return json(res, 200, { emailAddress: ACCOUNT, historyId: '100' });
        }
        if (req.method === 'GET' && url.pathname === '/gmail/v1/users/me/history') {
          return json(res, 200, { historyId: '100' });
        }
      }
      return json(res, 404, { error: { code: 404, message: `No ${req.method} ${url.pathname} here.` } });
    } catch (err) {
      return json(res, 500, { error: { code: 500, message: String(err) } });
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    requests,
    exchanges,
    clientChecks,
    holdSignIn() {
      let release;
      let opened;
      const signal = new Promise((r) => {
        release = r;
      });
      const reached = new Promise((r) => {
        opened = r;
      });
      hold = { signal, opened };
      return { reached, release };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The autoconfig document example.com publishes, on 127.0.0.1: it names an IMAP server on a port
 * where nothing listens, so the sign-in fails with the engine's plain sentence.
 */
async function startAutoconfig() {
  const closed = await new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const document = `<?xml version="1.0"?>
<clientConfig version="1.1"><emailProvider id="example.com"><displayName>Example Mail</displayName>
<incomingServer type="imap"><hostname>127.0.0.1</hostname><port>${closed}</port><socketType>SSL</socketType>
<username>%EMAILADDRESS%</username></incomingServer></emailProvider></clientConfig>`;
  const server = createServer((req, res) => {
    if (new URL(req.url, 'http://127.0.0.1').pathname === '/example.com/mail/config-v1.1.xml') {
      res.writeHead(200, { 'Content-Type': 'text/xml' });
      return res.end(document);
    }
    res.writeHead(404);
    return res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/{domain}/mail/config-v1.1.xml`,
    closed,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The main column scrolled so `locator` is in view, then a screenshot of the window. */
async function shot(name, locator) {
  if (locator) await locator.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(screenshots, `integrations-${name}.png`) });
}

const card = (name) => page.getByRole('listitem', { name, exact: true });
const serverCard = (name = 'everything') => page.getByRole('list', { name: 'Tool servers' }).getByRole('listitem', { name, exact: true });

before(async () => {
  keyring = await startKeyring();
  process.env.DBUS_SESSION_BUS_ADDRESS = keyring.address;
  // Google is a stand-in on loopback; the engine finds it through SENTIENT_ENDPOINTS (read at
  // start, passed on with the rest of this process's environment by support.mjs).
  google = await startGoogle();
  autoconfig = await startAutoconfig();
  scratch = await mkdtemp(join(tmpdir(), 'sentient-e2e-integrations-google-'));
  const endpoints = join(scratch, 'endpoints.json');
  await writeFile(
    endpoints,
    JSON.stringify({
      google_auth: `${google.base}/auth`,
      google_token: `${google.base}/token`,
      gmail: `${google.base}/gmail/v1`,
      calendar: `${google.base}/calendar/v3`,
      mail_autoconfig: [autoconfig.url],
    }),
  );
  process.env.SENTIENT_ENDPOINTS = endpoints;
  await world.start();
  ({ ready, page } = world);
});

after(async () => {
  await world.stop(async () => {
    console.error(`--- integrations ---\n${JSON.stringify(await api('GET', '/api/integrations'), null, 2)}`);
    console.error(`--- tool servers ---\n${JSON.stringify(await api('GET', '/api/integrations/mcp'), null, 2)}`);
    console.error(`--- google stand-in ---\n${JSON.stringify({ requests: google?.requests, exchanges: google?.exchanges }, null, 2)}`);
  });
  await google?.stop();
  await autoconfig?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
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
    // The name of an app that is not available is muted, not set on a band like its avatar.
    const nameBackground = await slack
      .getByRole('heading', { name: 'Slack' })
      .evaluate((h) => getComputedStyle(h).backgroundColor);
    assert.equal(nameBackground, 'rgba(0, 0, 0, 0)', "no band behind an unavailable app's name");
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

  test('Email (IMAP) takes two fields; a failed sign-in, cancelled, leaves it Not connected', async () => {
    const imap = card('Email (IMAP)');
    await imap.getByRole('button', { name: 'Connect Email (IMAP)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Email (IMAP)' });
    assert.equal(await dialog.getByLabel(/IMAP server|Port|SMTP/).count(), 0, 'no server fields at first');
    await dialog.getByLabel('Email address').fill('ada@example.com');
    const password = dialog.getByLabel('App password');
    await password.focus();
    await dialog.getByTestId('mail-servers').filter({ hasText: 'Example Mail: Sentient will sign in to 127.0.0.1.' }).waitFor();
    assert.equal(await password.getAttribute('type'), 'password');
    await password.fill('abcd efgh ijkl mnop');
    await shot('imap-two-fields');
    await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: `Couldn't reach the email server 127.0.0.1 on port ${autoconfig.closed}` })
      .waitFor();
    const engine = async () => (await api('GET', '/api/integrations')).find((a) => a.id === 'email_imap');
    await eventually('the failed attempt shows on the app', engine, (app) => app.status === 'error');
    await shot('imap-error');
    await dialog.getByRole('button', { name: 'More settings' }).click();
    assert.equal(await dialog.getByLabel(/^IMAP server/).inputValue(), '127.0.0.1');
    assert.equal(await dialog.getByLabel(/^Port/).inputValue(), String(autoconfig.closed));
    assert.equal(await dialog.getByLabel(/^Email address/).inputValue(), 'ada@example.com');
    await shot('imap-more-settings');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await imap.getByTestId('status').filter({ hasText: 'Not connected' }).waitFor();
    const app = await engine();
    assert.equal(app.status, 'disconnected');
    assert.equal(app.error, null);
    assert.equal(await imap.getByTestId('app-error').count(), 0, 'no red error on the card');
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

  test('connects Gmail through a sign-in in a second page', async () => {
    const gmail = card('Gmail');
    assert.equal(await gmail.getByTestId('status').textContent(), 'Not connected');
    await gmail.getByRole('button', { name: 'Connect Gmail' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Gmail' });
    await dialog.getByLabel(/^OAuth Client ID/).fill(CLIENT_ID);
    const secret = dialog.getByLabel(/^OAuth Client secret/);
    assert.equal(await secret.getAttribute('type'), 'password');
    await secret.fill(CLIENT_SECRET);
    await shot('gmail-connect');

    // The sign-in page waits until the window has been seen waiting.
    const hold = google.holdSignIn();
    const opened = world.context.waitForEvent('page');
    await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
    const signIn = page.getByRole('dialog', { name: 'Sign in to Gmail' });
    await signIn.getByText('Finish signing in in your browser.').waitFor();
    const link = signIn.getByRole('link', { name: 'open the sign-in page' });
    const authUrl = new URL(await link.getAttribute('href'));
    assert.equal(`${authUrl.origin}${authUrl.pathname}`, `${google.base}/auth`, 'the sign-in page is the stand-in');
    // The window opened the sign-in page: its request is waiting at the stand-in. (Playwright
    // hands the new page over once it has loaded something, so only after the release.)
    await hold.reached;
    await signIn.getByRole('status').filter({ hasText: 'Waiting for Gmail…' }).waitFor();
    // The list was fetched again after the connect answer: Gmail is connecting.
    await gmail.getByTestId('status').filter({ hasText: 'Connecting…' }).waitFor();
    await shot('gmail-waiting');

    // From here the window hears of the sign-in only through `integration.updated`.
    const refetches = [];
    const onRequest = (req) => {
      if (new URL(req.url()).pathname === '/api/integrations') refetches.push(req.url());
    };
    page.on('request', onRequest);
    hold.release();
    const popup = await opened;
    await popup.getByRole('heading', { name: "You're connected" }).waitFor();
    const callback = new URL(popup.url());
    assert.equal(callback.hostname, '127.0.0.1');
    assert.equal(callback.pathname, '/oauth/callback');
    await popup.getByText('You can close this tab and go back to Sentient.').waitFor();
    await popup.screenshot({ path: join(screenshots, 'integrations-gmail-callback.png') });
    await popup.close();

    const done = page.getByRole('dialog', { name: 'Gmail is connected' });
    await done.getByRole('status').filter({ hasText: `Sentient is signed in as ${ACCOUNT}.` }).waitFor();
    await gmail.getByTestId('status').filter({ hasText: 'Connected' }).waitFor();
    assert.equal(await gmail.getByTestId('status').textContent(), `Connected · ${ACCOUNT}`);
    page.off('request', onRequest);
    assert.deepEqual(refetches, [], 'the connected app arrived as an event, not a new fetch');
    assert.deepEqual(
      google.exchanges.filter((e) => e.grant_type === 'authorization_code'),
      [{ grant_type: 'authorization_code', ok: true }],
      'one code exchange, with a verifier that matches the challenge',
    );
    assert.deepEqual(google.clientChecks, [CLIENT_ID], 'the pasted client was checked once with a test sign-in');
    await shot('gmail-connected');
    await done.getByRole('button', { name: 'Done' }).click();
    await done.waitFor({ state: 'detached' });

    const app = (await api('GET', '/api/integrations')).find((a) => a.id === 'gmail');
    assert.equal(app.status, 'connected');
    assert.equal(app.connected, true);
    assert.equal(app.account_label, ACCOUNT);
    await gmail.getByRole('button', { name: 'Disconnect Gmail' }).waitFor();
    await shot('gmail-card', gmail.getByRole('heading', { name: 'Gmail' }));
  });

  test("Gmail's privacy filters are saved lower-cased and can be removed", async () => {
    const gmail = card('Gmail');
    await gmail.getByRole('button', { name: 'Privacy filters' }).click();
    const filters = gmail.getByRole('group', { name: 'Privacy filters for Gmail' });
    const words = filters.getByTestId('filter-keywords');
    const people = filters.getByTestId('filter-emails');
    const saved = () => api('GET', '/api/integrations/gmail/privacy-filters');
    assert.deepEqual(await saved(), { keywords: [], emails: [], labels: [] });

    await words.getByRole('textbox', { name: 'Words' }).fill('Salary');
    await words.getByRole('button', { name: 'Add', exact: true }).click();
    await words.getByRole('list', { name: 'Words' }).getByRole('listitem').filter({ hasText: 'Salary' }).waitFor();
    await people.getByRole('textbox', { name: 'People' }).fill('Boss@Example.COM');
    await people.getByRole('textbox', { name: 'People' }).press('Enter');
    const boss = people.getByRole('list', { name: 'People' }).getByRole('listitem').filter({ hasText: 'Boss@Example.COM' });
    await boss.waitFor();
    await eventually(
      'the word and the address are saved lower-cased',
      saved,
      (f) => JSON.stringify(f) === JSON.stringify({ keywords: ['salary'], emails: ['boss@example.com'], labels: [] }),
    );
    await shot('privacy-filters', filters);

    await boss.getByRole('button', { name: 'Remove Boss@Example.COM' }).click();
    await boss.waitFor({ state: 'detached' });
    await eventually(
      'the address is removed, the word stays',
      saved,
      (f) => JSON.stringify(f) === JSON.stringify({ keywords: ['salary'], emails: [], labels: [] }),
    );
    assert.equal(await people.getByRole('list', { name: 'People' }).count(), 0, 'no address chips left');
    await shot('privacy-filters-removed', filters);
  });

  test('a tool server missing a value connects once it is filled in', async () => {
    const added = await api('POST', '/api/integrations/mcp', {
      name: 'keyed',
      transport: 'stdio',
      command: 'node',
      args: [EVERYTHING, 'stdio'],
      env: { API_KEY: '' },
    });
    assert.deepEqual(added.missing_values, ['API_KEY'], 'a blank value counts as missing');
    assert.equal(added.status, 'error');

    const server = serverCard('keyed');
    await server.getByTestId('missing').filter({ hasText: 'Needs API_KEY.' }).waitFor();
    await server.getByTestId('status').filter({ hasText: 'Error' }).waitFor();
    await server.getByTestId('server-error').filter({ hasText: 'API_KEY' }).waitFor();
    await shot('server-needs-value', server.getByRole('heading', { name: 'keyed' }));

    await server.getByRole('button', { name: 'Keys for keyed' }).click();
    const dialog = page.getByRole('dialog', { name: 'Keys for keyed' });
    const field = dialog.getByLabel(/API_KEY/);
    assert.equal(await field.getAttribute('type'), 'password');
    assert.equal(await field.getAttribute('aria-invalid'), 'true', 'the missing one is marked');
    await field.fill('k-123');
    await shot('server-keys');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });

    await server.getByTestId('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 30_000 });
    await server.getByTestId('missing').waitFor({ state: 'detached' });
    assert.equal(await server.getByTestId('server-error').count(), 0);
    const keyed = (await api('GET', '/api/integrations/mcp')).find((s) => s.name === 'keyed');
    assert.equal(keyed.status, 'connected');
    assert.deepEqual(keyed.missing_values, []);
    assert.deepEqual(keyed.env_keys, ['API_KEY']);
    assert.ok(!JSON.stringify(keyed).includes('k-123'), 'the value is never shown');
    await shot('server-value-filled', server.getByRole('heading', { name: 'keyed' }));
  });

  test('disconnects Gmail after a confirm that its tasks are turned off', async () => {
    const gmail = card('Gmail');
    await gmail.getByRole('button', { name: 'Disconnect Gmail' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Disconnect Gmail?' });
    await confirm.getByText('Tasks that use Gmail will be turned off.').waitFor();
    await confirm.getByText('Sentient forgets how to sign in to Gmail.').waitFor();
    await shot('gmail-disconnect-confirm');
    await confirm.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await confirm.waitFor({ state: 'detached' });
    await gmail.getByTestId('status').filter({ hasText: 'Not connected' }).waitFor();
    assert.equal(await gmail.getByTestId('status').textContent(), 'Not connected');
    await gmail.getByRole('button', { name: 'Connect Gmail' }).waitFor();
    const app = (await api('GET', '/api/integrations')).find((a) => a.id === 'gmail');
    assert.equal(app.connected, false);
    assert.equal(app.status, 'disconnected');
    await shot('gmail-disconnected', gmail.getByRole('heading', { name: 'Gmail' }));
    assert.deepEqual(world.pageErrors, []);
  });
});

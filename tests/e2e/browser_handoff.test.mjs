// End to end: a browser page handed to the person, in the window and on a phone. A sign-in page
// asking for a one-time code is served on loopback; `sentient serve` drives Debian's chromium for
// the scripted model.
//
// 0. In a chat, a slow page shows live (a picture each second) under the running browser tool,
//    and the picture goes when the result comes.
// 1. In the same chat, the assistant opens the sign-in page and is refused the code field: the browser tool's
//    card (after the OK that typing after reading a page asks for) shows "Sentient needs you in
//    the browser" with Open browser and Do it here; Do it here
//    shows the page live, a click on the picture lands in the page's field and the typed code
//    goes straight to the page; once the page moves on, the card says nothing waits any more.
// 2. A task run meets the same page and pauses; the web device app, paired over the LAN door
//    (https on 127.0.0.1, a phone-sized Chromium), shows the notice with Open, the live view of
//    the page, a tap on the field and the code typed; the paused run carries on by itself and
//    finishes, and the phone's view says so. The code is in no task, no model request (the
//    engine test `browser::a_phone_types_the_code_through_the_live_view_and_the_run_carries_on`
//    reads the model server's log) and no engine log line.
//
// Screenshots go to test-output/screenshots/handoff-*.png at the repo root.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, freePort, launchPhone, ScriptedWorld, STEP_TIMEOUT_MS, screenshots, sendMessage } from './support.mjs';

const CHAT_CODE = '731904';
const PHONE_CODE = '482913';
// The field fills the page's top half, so a tap there lands in it.
const SIGN_IN = `<html><head><title>Verify it's you</title></head><body style="margin:0;background:#e8eefc;font:20px sans-serif">
<form action="/welcome" method="get">
<label for="otp" style="position:absolute;left:5%;top:53%;color:#123">Enter the code we sent to your phone</label>
<input id="otp" name="otp" autocomplete="one-time-code" style="position:absolute;left:5%;top:5%;width:90%;height:40%;font-size:64px;text-align:center;border:4px solid #2b4fd8;border-radius:16px;background:#fff">
</form></body></html>`;

// The site, on loopback, before the script that names it.
const SLOW_PAGE = '<title>Timetable</title><h1>Trains to Porto</h1><p>Every hour from 06:00.</p>';
// The slow page waits until the test has seen its picture (or 25 s, inside the tool's 30 s), so
// how fast the browser starts on this machine decides nothing.
let releaseSlow;
const slowReleased = new Promise((resolve) => {
  releaseSlow = resolve;
});
const site = createServer((req, res) => {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  if (req.url.startsWith('/slow')) {
    // A page that takes its time, so the browser tool runs long enough to be watched.
    const timer = setTimeout(releaseSlow, 25_000);
    slowReleased.then(() => {
      clearTimeout(timer);
      res.end(SLOW_PAGE);
    });
    return;
  }
  res.end(req.url.startsWith('/login') ? SIGN_IN : '<title>Welcome</title><p>Signed in</p>');
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const SITE = `http://127.0.0.1:${site.address().port}`;

const TASK = { name: 'Sign in to the shop', description: 'Sign in to the shop.', priority: 1, schedule: null };
const SCRIPT = [
  // 0. The chat: a slow page, watched live while it opens; then the chat's title.
  { tool_call: { name: 'browser_open', arguments: { url: `${SITE}/slow` } } },
  { text: 'Trains to Porto leave every hour from 06:00.' },
  { text: 'Shop sign-in' },
  // 1. The same chat: open the sign-in page, try the code field (refused), then say so.
  { tool_call: { name: 'browser_open', arguments: { url: `${SITE}/login` } } },
  { tool_call: { name: 'browser_type', arguments: { ref: 'e1', text: '000000' } } },
  { text: 'The page wants a one-time code. Type it in the page, please.' },
  // 2. The task: made and planned, then a run that meets the same page.
  { text: JSON.stringify(TASK) },
  { text: JSON.stringify({ plan: [{ tool: 'browser_open', description: 'Sign in' }] }) },
  { tool_call: { name: 'browser_open', arguments: { url: `${SITE}/login` } } },
  { tool_call: { name: 'browser_type', arguments: { ref: 'e1', text: '000000' } } },
  { tool_call: { name: 'browser_snapshot', arguments: {} } },
  { text: "You're signed in." },
];

const world = new ScriptedWorld('handoff', SCRIPT);
let ready;
let page;
let phone;
let phoneContext;
const api = (method, path, body) => world.api(method, path, body);

before(async () => {
  await world.start();
  ({ ready, page } = world);
  phoneContext = await launchPhone(world);
  world.cleanup.push(() => phoneContext.close());
  phone = phoneContext.pages()[0] ?? (await phoneContext.newPage());
  phone.setDefaultTimeout(STEP_TIMEOUT_MS);
  phone.on('pageerror', (err) => world.pageErrors.push(String(err)));
  // A Content-Security-Policy refusal shows up here; the 409 that closes the live view is expected.
  phone.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().includes('status of 409')) world.pageErrors.push(`console: ${msg.text()}`);
  });
});

after(() =>
  world.stop(async () => {
    console.error(`--- browser ---\n${JSON.stringify(await api('GET', '/api/browser/status'), null, 2)}`);
    console.error(`--- page errors ---\n${world.pageErrors.join('\n')}`);
    console.error(`--- tasks ---\n${JSON.stringify(await api('GET', '/api/tasks'), null, 2)}`);
    await phone?.screenshot({ path: join(screenshots, 'handoff-phone-failure.png') }).catch(() => {});
  }).finally(() => site.close()),
);

describe('A browser page handed to the person', () => {
  test('in the chat: the page shows live under the browser tool while it works', async () => {
    await page.goto(ready.web_url);
    await sendMessage(page, 'When do trains to Porto leave?');
    const running = page.getByTestId('tool-card').filter({ hasText: 'Working…' });
    const frame = running.getByTestId('tool-frame');
    // The first call starts the browser, which a cold, busy machine may take a while over.
    await frame.waitFor({ timeout: 45_000 }).catch(async (err) => {
      const cards = await page.getByTestId('tool-card').allInnerTexts();
      const status = await api('GET', '/api/browser/status');
      throw new Error(`${err.message}\ntool cards: ${JSON.stringify(cards)}\nbrowser: ${JSON.stringify(status)}`);
    });
    assert.match(await frame.getAttribute('src'), /^data:image\/jpeg;base64,/);
    await page.screenshot({ path: join(screenshots, 'handoff-chat-live-frame.png') });
    releaseSlow();
    await page.getByText('Trains to Porto leave every hour from 06:00.').waitFor();
    assert.equal(await page.getByTestId('tool-frame').count(), 0, 'the picture goes with the result');
    // The chat's title takes its line of the script before the next turn's lines.
    await page.getByTestId('session-row').getByText('Shop sign-in').waitFor();
  });

  test('in the chat: the needs-you card, and the code typed through the live view', async () => {
    await sendMessage(page, 'Sign me in to the shop');
    // Typing after reading a page asks first (outside content), in every approvals mode.
    await page.getByRole('button', { name: 'Allow' }).click();
    const card = page.getByTestId('needs-you-card');
    await card.waitFor();
    assert.match(await card.innerText(), /Sentient needs you in the browser\. The page asks for a one-time code\./);
    await page.getByText('The page wants a one-time code. Type it in the page, please.').waitFor();
    await card.getByRole('button', { name: 'Open browser' }).waitFor();
    await card.getByRole('button', { name: 'Do it here' }).click();
    const picture = card.getByTestId('live-view-page');
    await picture.waitFor();
    await page.screenshot({ path: join(screenshots, 'handoff-chat-card.png') });

    // A click on the picture lands in the page's field; the code goes straight to the page.
    const box = await picture.boundingBox();
    await picture.click({ position: { x: box.width * 0.5, y: box.height * 0.25 } });
    await card.getByLabel('Type into the page').fill(CHAT_CODE);
    await card.getByRole('button', { name: 'Type' }).click();
    await card.getByTestId('needs-you-done').waitFor();
    const status = await api('GET', '/api/browser/status');
    assert.equal(status.needs_you, null, 'nothing waits once the field is filled');
    await page.screenshot({ path: join(screenshots, 'handoff-chat-done.png') });
  });

  test('on a phone: the notice, the live view, the code typed there, and the task carries on', async () => {
    const port = await freePort();
    await api('PATCH', '/api/config', { nodes: { lan_enabled: true, lan_port: port, mdns_enabled: false } });
    const lan = await eventually('the LAN listener runs', () => api('GET', '/api/nodes/lan'), (l) => l.running || l.error);
    assert.equal(lan.error, null, `the LAN listener started: ${lan.error}`);
    const pairing = await api('POST', '/api/nodes/pairing');
    await phone.goto(`https://127.0.0.1:${port}/node/#code=${pairing.code}`);
    await phone.getByRole('status').getByText(/^Connected as /).waitFor();

    const task = await api('POST', '/api/tasks', { prompt: TASK.name });
    await eventually('the plan', () => api('GET', `/api/tasks/${task.task_id}`), (t) => t.status === 'approval_pending');
    await api('POST', `/api/tasks/${task.task_id}/approve`, {});
    await api('POST', `/api/tasks/${task.task_id}/run-now`, {});
    const lastRun = (t) => t.runs[t.runs.length - 1] ?? {};
    // Typing after reading a page asks first (outside content).
    const held = await eventually(
      'the OK for typing',
      () => api('GET', `/api/tasks/${task.task_id}`),
      (t) => lastRun(t).pending_question?.kind === 'question',
    );
    await api('POST', `/api/tasks/${task.task_id}/runs/${lastRun(held).run_id}/answer`, { answer: 'Yes, go ahead' });
    const paused = await eventually(
      'the run pausing at the code field',
      () => api('GET', `/api/tasks/${task.task_id}`),
      (t) => lastRun(t).pending_question?.kind === 'stuck',
    );
    assert.equal(lastRun(paused).pending_question.reason, 'the page asks for a one-time code');

    // The phone hears about it and opens the page.
    const notice = phone.getByTestId('device-notification').filter({ hasText: 'Sentient needs you in the browser' });
    await notice.waitFor();
    assert.match(await notice.innerText(), /The page asks for a one-time code on 127\.0\.0\.1/);
    await phone.screenshot({ path: join(screenshots, 'handoff-phone-notice.png') });
    await notice.getByTestId('device-open-live-view').click();
    const live = phone.getByTestId('live-view-image');
    await live.waitFor();
    await phone.getByText('Tap the page where you would, then type.').waitFor();
    await phone.screenshot({ path: join(screenshots, 'handoff-phone-live-view.png') });

    const box = await live.boundingBox();
    await live.click({ position: { x: box.width * 0.5, y: box.height * 0.25 } });
    await phone.getByLabel('Type into the page').fill(PHONE_CODE);
    await phone.getByRole('button', { name: 'Type', exact: true }).click();

    // The page moved on: the run carries on by itself, and the phone's view says so.
    const finished = await eventually(
      'the run finishing by itself',
      () => api('GET', `/api/tasks/${task.task_id}`),
      (t) => lastRun(t).status === 'completed',
      60_000,
    );
    assert.equal(lastRun(finished).result.summary, "You're signed in.");
    await phone.getByText('Done: the page moved on, and Sentient carries on.').waitFor();
    await phone.screenshot({ path: join(screenshots, 'handoff-phone-done.png') });

    for (const code of [CHAT_CODE, PHONE_CODE]) {
      assert.ok(!JSON.stringify(finished).includes(code), 'the code is in no task');
      assert.ok(!world.engineLog.includes(code), 'the code is in no engine log line');
    }
    assert.deepEqual(world.pageErrors, [], 'the pages threw no errors');
    await api('POST', '/api/browser/close', {});
    await api('PATCH', '/api/config', { nodes: { lan_enabled: false } });
  });
});

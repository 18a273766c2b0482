// End to end: the chat laid out as people expect, in the real window against `sentient serve` and
// the scripted model. The chat list is the sidebar's second level, grouped by Today / Yesterday /
// Earlier (read with the page's clock moved on, since the engine stamps chats with the real time),
// with Rename and Delete on each row's hover actions; the keyboard drives the message box (Enter
// sends, Shift+Enter breaks the line, Up brings back the last message); a reply renders markdown,
// and its code block's Copy puts the code on the clipboard; Regenerate brings a second answer; the
// message box stays pinned to the bottom. Screenshots at 1280x800, 800x600 and 390x844 in light and
// dark go to test-output/screenshots/.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, ScriptedWorld, screenshots } from './support.mjs';

const CODE = 'for i in range(3):\n    print(i)';
const FIRST_REPLY = `Here is a loop in **Python**:\n\n\`\`\`python\n${CODE}\n\`\`\`\n\nSee [the Python tutorial](https://docs.python.org/3/tutorial/) for more.`;
const SECOND_CODE = 'i = 0\nwhile i < 3:\n    print(i)\n    i += 1';
const SECOND_REPLY = `Another way, with \`while\`:\n\n\`\`\`python\n${SECOND_CODE}\n\`\`\``;
const QUESTION = 'Show me\na loop in Python';

/** What the model says, in order: the first answer, then the regenerated one. */
const SCRIPT = [
  { text: FIRST_REPLY, chunk_delay_ms: 15 },
  { text: SECOND_REPLY, chunk_delay_ms: 15 },
];

const world = new ScriptedWorld('chat_layout', SCRIPT);
let ready;
let page;
/** The chat the first test writes in. */
let firstChat;
const api = (method, path, body) => world.api(method, path, body);

before(async () => {
  await world.start();
  ({ ready, page } = world);
  // Titles would be model calls of their own; this test names its chats itself.
  await api('PATCH', '/api/config', { chat: { auto_title: false } });
  await world.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ready.web_url).origin });
});

after(() => world.stop());

const DAY_MS = 24 * 60 * 60 * 1000;
const heading = () => page.getByRole('heading', { level: 1, name: 'Chat', exact: true });
const messageBox = () => page.getByRole('textbox', { name: 'Message', exact: true });
const chatList = () => page.getByRole('region', { name: 'Chats' });

/** The element's box on screen. */
const box = async (locator) => {
  const found = await locator.boundingBox();
  assert.ok(found, 'the element is on screen');
  return found;
};

/** The message box is on screen, pinned to the bottom of the window. */
async function assertPinned(width, height) {
  const composer = await box(page.getByRole('form', { name: 'Write a message' }));
  assert.ok(composer.x >= 0 && composer.x + composer.width <= width + 1, `the message box fits across: ${JSON.stringify(composer)}`);
  const bottom = composer.y + composer.height;
  assert.ok(bottom <= height + 1 && bottom >= height - 48, `the message box sits at the bottom (${bottom} of ${height})`);
}

async function shoot(name, width, height, prepare) {
  for (const theme of ['dark', 'light']) {
    await api('PATCH', '/api/config', { ui: { theme } });
    await page.setViewportSize({ width, height });
    await page.reload();
    await heading().waitFor();
    await page.locator(`html[data-theme='${theme}']`).waitFor({ state: 'attached' });
    if (prepare) await prepare();
    await page.screenshot({ path: join(screenshots, `chat-layout-${name}-${width}x${height}-${theme}.png`) });
  }
}

describe('The chat laid out as people expect', () => {
  test('keyboard, markdown with Copy, Regenerate and a pinned message box', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(ready.web_url);
    await heading().waitFor();
    await chatList().getByText('No chats yet — say hello below.').waitFor();

    // The box is ready to type into: Shift+Enter breaks the line, Enter sends.
    const message = messageBox();
    await eventually('the message box has the focus', () => message.evaluate((el) => el === document.activeElement), (v) => v === true);
    await page.keyboard.type('Show me');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('a loop in Python');
    assert.equal(await message.inputValue(), QUESTION);
    await page.keyboard.press('Enter');
    await page.getByTestId('user-message').filter({ hasText: 'a loop in Python' }).waitFor();
    assert.equal(await message.inputValue(), '', 'Enter sent the message');

    // The reply is markdown: bold, a link that opens outside, and a code block with Copy.
    const answer = page.getByTestId('assistant-message').first();
    await answer.getByRole('link', { name: 'the Python tutorial' }).waitFor();
    await answer.locator('strong', { hasText: 'Python' }).waitFor();
    const link = answer.getByRole('link', { name: 'the Python tutorial' });
    assert.equal(await link.getAttribute('href'), 'https://docs.python.org/3/tutorial/');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.match((await link.getAttribute('rel')) ?? '', /noopener/);
    const code = answer.getByTestId('code-block');
    assert.equal(await code.locator('pre code').innerText(), CODE);
    assert.match(await code.locator('pre').evaluate((el) => getComputedStyle(el).fontFamily), /mono/i);
    assert.doesNotMatch(await answer.innerText(), /```|\*\*/, 'no markdown marks are left as text');
    await code.getByRole('button', { name: 'Copy code' }).click();
    await code.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), CODE);

    // Up in the empty box brings the last message back to edit.
    await message.focus();
    await page.keyboard.press('ArrowUp');
    assert.equal(await message.inputValue(), QUESTION);
    await message.fill('');
    await assertPinned(1280, 800);
    await page.screenshot({ path: join(screenshots, 'chat-layout-reply.png') });

    // Regenerate writes a new answer in place of the first (kept as version 1 of 2); the question
    // is not sent again.
    await answer.getByRole('button', { name: 'Regenerate' }).click();
    const second = page.getByTestId('assistant-message').first();
    await second.getByText('Another way', { exact: false }).waitFor();
    await second.getByRole('button', { name: 'Regenerate' }).waitFor();
    assert.equal(await second.getByTestId('code-block').locator('pre code').innerText(), SECOND_CODE);
    assert.equal(await page.getByTestId('assistant-message').count(), 1, 'the new answer replaced the first');
    assert.equal(await page.getByTestId('user-message').count(), 1, 'the question is shown once');
    assert.equal(await second.getByTestId('version-count').innerText(), '2 / 2');
    assert.equal(await page.getByRole('button', { name: 'Regenerate' }).count(), 1, 'Regenerate is on the last reply only');
    await second.getByRole('button', { name: 'Copy reply' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), SECOND_REPLY);
    const sessions = await api('GET', '/api/sessions');
    assert.equal(sessions.length, 1);
    firstChat = sessions[0].id;
    const rows = await api('GET', `/api/sessions/${sessions[0].id}/messages`);
    assert.deepEqual(
      rows.map((r) => [r.role, r.content]),
      [
        ['user', QUESTION],
        ['assistant', SECOND_REPLY],
      ],
    );
    assert.deepEqual(
      rows[1].versions.map((v) => v.content),
      [FIRST_REPLY, SECOND_REPLY],
    );
    // The open chat is in the address, so a reload keeps it.
    assert.equal(new URL(page.url()).hash, `#/chat/${sessions[0].id}`);
    await page.reload();
    await page.getByTestId('assistant-message').first().getByText('Another way', { exact: false }).waitFor();
    await page.getByTestId('version-count').filter({ hasText: '2 / 2' }).waitFor();
    await assertPinned(1280, 800);
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });

  test('the chat list is the sidebar\'s second level: groups, rename and delete from the row\'s actions', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const made = await api('POST', '/api/sessions');
    await api('PATCH', `/api/sessions/${made.session_id}`, { title: 'Old plans' });
    await page.goto(`${new URL(ready.web_url).origin}/#/chat`);
    await page.reload();
    await heading().waitFor();

    // The list sits in the sidebar, below the pages, with New chat at the top.
    const list = chatList();
    assert.equal(await list.evaluate((el) => el.closest('.sidebar') !== null), true, 'the chats are in the sidebar');
    const nav = await box(page.getByRole('navigation', { name: 'Main' }));
    const listBox = await box(list);
    assert.ok(listBox.y >= nav.y + nav.height - 1 && listBox.x < nav.x + nav.width, 'the chats are below the pages');
    assert.match(await list.getByRole('button').first().innerText(), /^\+\s*New chat$/);
    await list.getByRole('heading', { name: 'Today' }).waitFor();
    const today = list.getByRole('list', { name: 'Today' });
    assert.equal(await today.getByTestId('session-row').count(), 2);

    // Rename from the row's hover actions.
    // The chat written in above has no name yet, so it reads "New chat".
    const row = today.getByTestId('session-row').filter({ hasNotText: 'Old plans' });
    await row.getByRole('button', { name: 'New chat', exact: true }).waitFor();
    const rename = row.getByRole('button', { name: 'Rename New chat' });
    // The actions show without a hover (touch and keyboard users can't hover), fuller on hover.
    assert.ok(await rename.isVisible(), 'the actions show before a hover');
    assert.ok(Number(await rename.evaluate((el) => getComputedStyle(el.parentElement).opacity)) >= 0.5, 'the actions are not faded out');
    await row.hover();
    await eventually('hovering shows the actions', () => rename.evaluate((el) => getComputedStyle(el.parentElement).opacity), (v) => v === '1');
    await page.screenshot({ path: join(screenshots, 'chat-layout-hover-actions.png') });
    await rename.click();
    const name = row.getByRole('textbox', { name: 'Chat name' });
    await name.fill('Python loops');
    await page.keyboard.press('Enter');
    await today.getByRole('button', { name: 'Python loops', exact: true }).waitFor();
    const renamed = await eventually(
      'the new name is saved',
      () => api('GET', '/api/sessions'),
      (list) => list.some((s) => s.title === 'Python loops'),
    );
    assert.equal(renamed.length, 2);

    // The groups follow the calendar in the person's time zone: with the page's clock a day on,
    // today's chats are Yesterday's; three days on they are Earlier.
    const now = Date.now();
    await page.clock.setFixedTime(new Date(now + DAY_MS));
    await page.reload();
    await list.getByRole('heading', { name: 'Yesterday' }).waitFor();
    assert.equal(await list.getByRole('list', { name: 'Yesterday' }).getByTestId('session-row').count(), 2);
    assert.equal(await list.getByRole('heading', { name: 'Today' }).count(), 0);
    await page.clock.setFixedTime(new Date(now + 3 * DAY_MS));
    await page.reload();
    await list.getByRole('heading', { name: 'Earlier' }).waitFor();
    assert.equal(await list.getByRole('list', { name: 'Earlier' }).getByTestId('session-row').count(), 2);
    await page.clock.setFixedTime(new Date(now));
    await page.reload();
    await list.getByRole('heading', { name: 'Today' }).waitFor();

    // Delete from the hover actions, with a confirm; the keyboard reaches them too.
    const old = list.getByTestId('session-row').filter({ hasText: 'Old plans' });
    await old.getByRole('button', { name: 'Old plans', exact: true }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const del = old.getByRole('button', { name: 'Delete Old plans' });
    assert.equal(await del.evaluate((el) => el === document.activeElement), true, 'Tab reaches Delete');
    assert.equal(await del.evaluate((el) => getComputedStyle(el.parentElement).opacity), '1', 'keyboard focus shows the actions');
    await page.keyboard.press('Enter');
    const confirm = old.getByRole('group', { name: 'Delete this chat?' });
    await confirm.waitFor();
    await page.screenshot({ path: join(screenshots, 'chat-layout-delete-confirm.png') });
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await old.waitFor({ state: 'detached' });
    const left = await eventually('the chat is deleted', () => api('GET', '/api/sessions'), (l) => l.length === 1);
    assert.equal(left[0].title, 'Python loops');
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });

  test('small windows: the list is a panel, the message box stays at the bottom; screenshots in both themes', async () => {
    const open = `${new URL(ready.web_url).origin}/#/chat/${firstChat}`;
    await page.goto(open);
    await heading().waitFor();

    await shoot('wide', 1280, 800, async () => {
      await page.getByTestId('code-block').first().waitFor();
      await chatList().getByRole('heading', { name: 'Today' }).waitFor();
      await assertPinned(1280, 800);
    });

    for (const [width, height] of [
      [800, 600],
      [390, 844],
    ]) {
      await page.setViewportSize({ width, height });
      await page.reload();
      await heading().waitFor();
      // The sidebar is icons; the list is closed until asked for.
      assert.equal(await chatList().isVisible(), false, `the list is a closed panel at ${width} px`);
      await page.getByTestId('code-block').first().waitFor();
      await assertPinned(width, height);
      const toggle = page.locator('.sidebar').getByRole('button', { name: 'Your chats' });
      await toggle.click();
      await chatList().getByRole('heading', { name: 'Today' }).waitFor();
      const panel = await box(chatList());
      assert.ok(panel.x + panel.width <= width + 1, `the panel fits the window: ${JSON.stringify(panel)}`);
      // Escape closes it and gives the focus back to the button that opened it.
      await page.keyboard.press('Escape');
      await chatList().waitFor({ state: 'hidden' });
      assert.equal(await toggle.evaluate((el) => el === document.activeElement), true);
      // The page's own button opens it too, and picking a chat closes it.
      await page.getByRole('main').getByRole('button', { name: 'Your chats' }).click();
      await chatList().getByRole('button', { name: 'Python loops', exact: true }).click();
      await chatList().waitFor({ state: 'hidden' });

      await shoot('chat', width, height, async () => {
        await page.getByTestId('code-block').first().waitFor();
        await assertPinned(width, height);
      });
      await shoot('list', width, height, async () => {
        await page.locator('.sidebar').getByRole('button', { name: 'Your chats' }).click();
        await chatList().getByRole('heading', { name: 'Today' }).waitFor();
      });
    }
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });
});

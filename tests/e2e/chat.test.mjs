// End to end: a chat in the real window. The engine (`sentient serve`) talks to the scripted model
// server (run as its own process, `scripted-model-server SCRIPT.json`) as if it were Ollama. The
// page sends a message, the model asks to write a file, the approval card appears, Allow runs the
// tool, the second reply streams in, and the stored transcript has the contract's rows. Then
// Regenerate writes a new answer in place of the last one and keeps the old one as a version.
//
// The processes and the browser are set up by ./support.mjs (see there for the binaries it uses).
//
// Screenshots go to test-output/screenshots/ at the repo root.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { scriptedWorldForTests, screenshots, openChat, sendMessage } from './support.mjs';

const FIRST_REPLY = "I'll save that.";
const SECOND_REPLY = 'Saved your note about milk in outputs/note.txt.';

const GREEN = 'Green, like a forest.';
const BLUE = 'Blue, like the sea.';

/**
 * What the model says, in order: a tool call that needs an OK, the answer, then the chat's title;
 * then (second test) an answer, its chat's title, and the answer Regenerate asks for.
 */
const SCRIPT = [
  {
    parts: [{ text: FIRST_REPLY }, { tool_call: { name: 'files_write', arguments: { path: 'outputs/note.txt', content: 'milk' } } }],
  },
  { text: SECOND_REPLY, chunk_delay_ms: 20 },
  { text: 'Milk note' },
  { text: GREEN },
  { text: 'Favourite colour' },
  { text: BLUE, chunk_delay_ms: 20 },
];

const world = scriptedWorldForTests('chat', SCRIPT);
const api = (method, path, body) => world.api(method, path, body);

describe('Chat in the browser', () => {
  test('a message, an approval, the tool result and the streamed reply; the transcript is stored', async () => {
    const { page, ready } = world;
    await openChat(page, ready.web_url);
    await page.getByText('No chats yet — say hello below.').waitFor();

    await sendMessage(page, 'Remember: buy milk');

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

    // A call that asked for an OK stays open with its answer; its result reads as fields, not JSON.
    const tool = page.getByTestId('tool-card');
    await tool.getByText('Done', { exact: true }).waitFor();
    const result = await tool.getByTestId('tool-result').innerText();
    assert.match(result, /outputs\/note\.txt/);
    assert.match(result, /Bytes\s+4/);
    assert.doesNotMatch(result, /[{}]/);

    await page.getByText(SECOND_REPLY).waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 0, 'Stop goes once the reply is done');
    assert.equal(await readFile(join(ready.home, 'files', 'outputs', 'note.txt'), 'utf8'), 'milk');

    // The chat is listed (with the title the fast model gave it, live).
    const row = page.getByTestId('session-row');
    // Titles are background work for the local-model queue (its quiet period is 0 here), so the
    // title follows the reply within moments; the list must not lose it to an older fetch.
    await row.getByText('Milk note').waitFor({ timeout: 20_000 });
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

    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });

  test('Regenerate writes a new answer in place, keeps the old one as a version, and both survive a reload', async () => {
    const { page, ready } = world;
    await page.getByRole('button', { name: 'New chat' }).click();
    await sendMessage(page, 'Pick a colour');
    await page.getByText(GREEN).waitFor();
    // The chat's title comes from the script's next line before Regenerate asks for the one after.
    await page.getByTestId('session-row').getByText('Favourite colour').waitFor({ timeout: 20_000 });

    await page.getByRole('button', { name: 'Regenerate', exact: true }).click();
    await page.getByText(BLUE).waitFor();
    const answer = page.getByTestId('assistant-message');
    assert.equal(await answer.count(), 1, 'the new answer replaced the old one');
    assert.equal(await page.getByTestId('user-message').count(), 1, 'the question was not sent again');
    await answer.getByTestId('version-count').filter({ hasText: '2 / 2' }).waitFor();
    await page.screenshot({ path: join(screenshots, 'chat-regenerate.png') });

    await answer.getByRole('button', { name: 'Previous version' }).click();
    await page.getByText(GREEN).waitFor();
    await answer.getByTestId('version-count').filter({ hasText: '1 / 2' }).waitFor();
    await page.screenshot({ path: join(screenshots, 'chat-regenerate-versions.png') });

    // A reload shows the same: the question once, the version chosen, both versions to flip to.
    await page.reload();
    await page.getByText(GREEN).waitFor();
    assert.equal(await page.getByTestId('user-message').count(), 1);
    await page.getByTestId('version-count').filter({ hasText: '1 / 2' }).waitFor();
    const sessions = await api('GET', '/api/sessions');
    const chat = sessions.find((s) => s.title === 'Favourite colour');
    const rows = await api('GET', `/api/sessions/${chat.id}/messages`);
    assert.deepEqual(
      rows.map((r) => [r.role, r.content]),
      [
        ['user', 'Pick a colour'],
        ['assistant', GREEN],
      ],
    );
    assert.deepEqual(
      rows[1].versions.map((v) => v.content),
      [GREEN, BLUE],
    );
    assert.ok(ready.web_url);
    assert.deepEqual(world.pageErrors, [], 'the page threw no errors');
  });
});

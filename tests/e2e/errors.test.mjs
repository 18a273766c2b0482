// End to end: a model error in the chat carries the buttons that fix it. The scripted model
// answers the first message as Ollama does for a model it doesn't have (404 "not found"): the
// reply shows the engine's sentence with "Download qwen3:8b" (which pulls it from the stand-in
// Ollama with a progress bar) and "Open Settings > Models"; Try again asks for a new answer in
// place of the failed one (the message is not sent twice) and the answer arrives.
//
// The processes and the browser are set up by ./support.mjs.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { scriptedWorldForTests, screenshots, openChat, sendMessage } from './support.mjs';

const REPLY = 'Hello! The model is here now.';

const SCRIPT = [
  { error: { status: 404, message: "model 'qwen3:8b' not found, try pulling it first" } },
  { text: REPLY },
  { text: 'Greeting' },
];

const world = scriptedWorldForTests('errors', SCRIPT);

describe('Errors with an action', () => {
  test('a missing model offers its download and Settings, then Try again works', async () => {
    const { page, ready } = world;
    await openChat(page, ready.web_url);
    await sendMessage(page, 'Hello');

    const error = page.getByTestId('assistant-message').getByRole('alert');
    await error.getByText("The model qwen3:8b isn't downloaded in Ollama yet.", { exact: false }).waitFor();
    assert.equal(await error.getByRole('link', { name: 'Open Settings > Models' }).getAttribute('href'), '#/settings/models');
    await error.getByRole('button', { name: 'Download qwen3:8b' }).click();
    await error.getByText('qwen3:8b is downloaded. Try again to use it.').waitFor();
    await page.screenshot({ path: join(screenshots, 'chat-error-actions.png') });

    await error.getByRole('button', { name: 'Try again' }).click();
    await page.getByText(REPLY).waitFor();
    assert.equal(await page.getByTestId('user-message').count(), 1, 'the message is shown once');
    assert.equal(await page.getByRole('alert').count(), 0, 'the error made way for the answer');
    const [chat] = await world.api('GET', '/api/sessions');
    const rows = await world.api('GET', `/api/sessions/${chat.id}/messages`);
    assert.deepEqual(
      rows.map((r) => [r.role, r.content, r.error]),
      [
        ['user', 'Hello', null],
        ['assistant', REPLY, null],
      ],
    );
    assert.deepEqual(world.pageErrors, []);
  });
});

// End to end: the Memory page in Chromium against `sentient serve` and the scripted model (see
// ./support.mjs).
//
// 1. Facts: the empty state; a fact said in a chat (over POST /api/chat, while the page is open)
//    appears live; a fact added on the page is remembered; editing one shows what it said before.
// 2. Review: a chat that read a page on loopback learns a claim about the person, which waits in
//    Review with the words it came from (the sidebar and the tab show how many wait); Edit and
//    approve lets it in, in the person's words.
// 3. Map: the facts as dots. Past chats: the empty state. Notes: "About you" (USER.md) saved from
//    the page is what the engine reads back and shows formatted; a persona fills "How Sentient talks".
// 4. Import: a .txt file chosen on the Import tab is read by the model (over the real multipart
//    route); the result line counts the fact, which waits in Review, where Open Review leads.
//
// Screenshots: test-output/screenshots/memory-*.png at the repo root.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, ScriptedWorld, screenshots } from './support.mjs';

const MEERA = "User's sister Meera lives in Lisbon";
const TEA = 'My favourite tea is oolong';
const BOAT = 'User owns a boat called Gull';
const BEES = 'User keeps bees';
const BEES_TXT = 'Weekend notes.\n\nI keep bees on the roof and take their honey every August.\n';
const decision = (topics) => ({ text: JSON.stringify({ action: 'ADD', target: null, topics, memory_type: 'long-term', expires_at: null }) });

/** What the model says, in order. */
const SCRIPT = [
  // 1. A chat about the sister: the reply, the facts in the message, the CUD decision.
  { text: 'How lovely!' },
  { text: JSON.stringify({ facts: [MEERA] }) },
  decision(['Relationships & Social Life']),
  // A fact added on the page, then edited (each is analysed once).
  decision(['Interests & Lifestyle']),
  decision(['Interests & Lifestyle']),
  // 2. A chat that reads a page: the fetch, the reply, the claim, its analysis (held).
  { tool_call: { name: 'web_fetch', arguments: { url: 'PAGE_URL' } } },
  { text: 'The page says you own a boat.' },
  { text: JSON.stringify({ facts: [BOAT] }) },
  decision(['Interests & Lifestyle']),
  // 4. An imported file (one chunk): the facts in it, then the decision (held for review).
  { text: JSON.stringify({ facts: [BEES] }) },
  decision(['Interests & Lifestyle']),
];

let pageServer;
let pageUrl;
const world = new ScriptedWorld('memory', SCRIPT);
let ready;
let page;
const api = (method, path, body) => world.api(method, path, body);

/** One chat turn over POST /api/chat, read to its end; answers the `done` event. */
async function chatOverHttp(text) {
  const res = await fetch(`${ready.url}/api/chat`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ready.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  assert.equal(res.status, 200);
  const lines = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const done = lines.find((l) => l.type === 'done');
  assert.ok(done, `the turn ended: ${JSON.stringify(lines)}`);
  return done;
}

before(async () => {
  pageServer = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html><body><h1>About</h1><p>The user owns a boat called Gull, moored in Porto.</p></body></html>');
  });
  await new Promise((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${pageServer.address().port}/about.html`;
  // The script is written before the page server's port is known.
  SCRIPT[5].tool_call.arguments.url = pageUrl;
  await world.start();
  ({ ready, page } = world);
  // The world starts with memory off; titles would take the scripted replies meant for memory.
  await api('PATCH', '/api/config', { chat: { auto_title: false }, memory: { enabled: true } });
});

after(async () => {
  await world.stop(async () => {
    console.error(`--- memories ---\n${JSON.stringify(await api('GET', '/api/memories'), null, 2)}`);
    console.error(`--- review ---\n${JSON.stringify(await api('GET', '/api/memories/review'), null, 2)}`);
  });
  await new Promise((resolve) => pageServer.close(resolve));
});

describe('the Memory page', () => {
  test('facts: empty, learned live from a chat, added and edited on the page', async () => {
    await page.goto(ready.web_url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Memory/ }).click();
    await page.getByText('Nothing remembered yet.').waitFor();
    await page.screenshot({ path: join(screenshots, 'memory-empty.png') });

    await chatOverHttp('My sister Meera moved to Lisbon last month.');
    // Live: memory.updated refreshes the open page.
    await page.getByText(MEERA).waitFor();
    const learned = (await api('GET', '/api/memories')).find((m) => m.content === MEERA);
    assert.equal(learned.source, 'conversation');

    await page.getByRole('textbox', { name: 'A fact to remember' }).fill(TEA);
    await page.getByRole('button', { name: 'Remember' }).click();
    await page.getByTestId('added').filter({ hasText: 'Remembered.' }).waitFor();
    const added = (await api('GET', '/api/memories')).find((m) => m.content === TEA);
    assert.ok(added, 'the fact added on the page is remembered');
    // By id: while it is edited, the row's words are in a text box.
    const tea = page.locator(`[data-testid="memory-fact"][data-id="${added.id}"]`);
    await tea.getByRole('button', { name: 'Edit' }).click();
    await tea.getByRole('textbox', { name: 'The fact' }).fill('User likes oolong and jasmine tea');
    await tea.getByRole('button', { name: 'Save' }).click();
    await tea.getByTestId('previous').filter({ hasText: `Before: ${TEA}` }).waitFor();
    assert.equal(await tea.locator('.memory-content').textContent(), 'User likes oolong and jasmine tea');
    await page.getByRole('button', { name: /Relationships & Social Life/ }).waitFor();
    await page.screenshot({ path: join(screenshots, 'memory-facts.png'), fullPage: true });
  });

  test('review: a claim from a page waits, and Edit and approve lets it in', async () => {
    const done = await chatOverHttp(`What does ${pageUrl} say about me?`);
    assert.ok(done.content.includes('boat'));
    const inbox = await eventually('the claim held for review', () => api('GET', '/api/memories/review'), (r) => r.count === 1);
    assert.equal(inbox.items[0].text, BOAT);
    assert.ok(!(await api('GET', '/api/memories')).some((m) => m.content === BOAT), 'held facts are not listed');

    await page.getByRole('tab', { name: /Review/ }).click();
    const item = page.locator(`[data-testid="review-item"][data-id="${inbox.items[0].id}"]`);
    await item.waitFor();
    await item.getByText('boat called Gull, moored in Porto').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByLabel('1 waiting for review').waitFor();
    await page.screenshot({ path: join(screenshots, 'memory-review.png'), fullPage: true });

    await item.getByRole('button', { name: 'Edit and approve' }).click();
    await item.getByRole('textbox', { name: 'In your words' }).fill('User owns a sailing boat called Gull');
    await item.getByRole('button', { name: 'Save and approve' }).click();
    await page.getByText('Nothing waiting.').waitFor();
    const facts = await api('GET', '/api/memories');
    const boat = facts.find((m) => m.content === 'User owns a sailing boat called Gull');
    assert.ok(boat, JSON.stringify(facts));
    assert.equal(boat.previous_content, BOAT);
  });

  test('map, past chats and notes', async () => {
    await page.getByRole('tab', { name: 'Map' }).click();
    await eventually('three dots on the map', () => page.getByTestId('map-node').count(), (n) => n === 3);
    await page.screenshot({ path: join(screenshots, 'memory-map.png'), fullPage: true });

    await page.getByRole('tab', { name: 'Past chats' }).click();
    await page.getByText('No summaries yet.').waitFor();
    await page.screenshot({ path: join(screenshots, 'memory-past-chats.png'), fullPage: true });

    await page.getByRole('tab', { name: 'Notes' }).click();
    const about = page.getByRole('region', { name: 'About you' });
    await about.getByRole('button', { name: 'Edit About you' }).click();
    const user = about.getByRole('textbox', { name: 'About you' });
    await user.fill('# Ada\nA sailor in Lisbon.');
    await about.getByRole('button', { name: 'Save' }).click();
    await eventually('USER.md saved', () => api('GET', '/api/memories/workspace'), (w) => w.user === '# Ada\nA sailor in Lisbon.');
    await about.getByRole('heading', { name: 'Ada' }).waitFor();
    const talks = page.getByRole('region', { name: 'How Sentient talks' });
    await talks.getByRole('button', { name: 'Edit How Sentient talks' }).click();
    await talks.getByRole('button', { name: 'Use Concise' }).click();
    const soul = await talks.getByRole('textbox', { name: 'How Sentient talks' }).inputValue();
    assert.ok(soul.includes('Be brief.') && soul.includes('Ada'), soul);
    await page.screenshot({ path: join(screenshots, 'memory-notes.png'), fullPage: true });
    assert.deepEqual(world.pageErrors, []);
  });

  test('import: a text file gives a fact that waits in Review', async () => {
    await page.getByRole('tab', { name: 'Import' }).click();
    await page.getByText('Sentient reads the file with your model and suggests facts').waitFor();
    await page.getByLabel('File to import').setInputFiles({ name: 'bees.txt', mimeType: 'text/plain', buffer: Buffer.from(BEES_TXT) });
    const result = page.getByTestId('import-result');
    await result.filter({ hasText: 'Found 1 fact in bees.txt: 1 waits for your review.' }).waitFor();
    const inbox = await api('GET', '/api/memories/review');
    const held = inbox.items.find((i) => i.text === BEES);
    assert.ok(held, JSON.stringify(inbox));
    assert.equal(held.from, 'bees.txt');
    assert.equal(held.source, 'file:bees.txt');
    assert.ok(!(await api('GET', '/api/memories')).some((m) => m.content === BEES), 'imported facts wait for review');
    await page.getByRole('navigation', { name: 'Main' }).getByLabel('1 waiting for review').waitFor();
    await page.screenshot({ path: join(screenshots, 'memory-import.png'), fullPage: true });

    await result.getByRole('button', { name: 'Open Review' }).click();
    assert.equal(await page.getByRole('tab', { name: /Review/ }).getAttribute('aria-selected'), 'true');
    const item = page.locator(`[data-testid="review-item"][data-id="${held.id}"]`);
    await item.getByText(BEES, { exact: true }).waitFor();
    await item.getByText('From bees.txt').waitFor();
    await item.getByText('I keep bees on the roof').waitFor();
    assert.deepEqual(world.pageErrors, []);
  });
});

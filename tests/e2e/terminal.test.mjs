// End to end: commands on this computer (contract section 18). Settings > Terminal turns the
// terminal on for one folder (a new git repository in a scratch folder) and says where commands
// start. In the chat, the scripted model runs `git status` (listed: no question, its output on the
// card), then a long unlisted command: it asks as "Runs a command" with the folder, and once
// allowed its card shows the output arriving and Stop, which ends it (and the child it left) and
// the card says it was stopped.
//
// The processes and the browser are set up by ./support.mjs. Screenshots go to
// test-output/screenshots/terminal-*.png at the repo root.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { eventually, openChat, scriptedWorldForTests, screenshots, sendMessage } from './support.mjs';

const project = realpathSync(mkdtempSync(join(tmpdir(), 'sentient-e2e-project-')));
execFileSync('git', ['init', '-q'], { cwd: project });
writeFileSync(join(project, 'notes.md'), 'hello');
after(() => rmSync(project, { recursive: true, force: true }));
// Prints a line, then waits long enough to be stopped; its child leaves the process group.
const LONG = `echo building; setsid sleep 247 & sleep 248`;

const SCRIPT = [
  { tool_call: { name: 'terminal_run', arguments: { command: 'git status' } } },
  { tool_call: { name: 'terminal_run', arguments: { command: LONG } } },
  { text: 'The build was stopped.' },
  { text: 'Project check' },
];

const world = scriptedWorldForTests('terminal', SCRIPT);

describe('Commands on this computer', () => {
  test('Settings > Terminal turns it on for a folder', async () => {
    const { page, ready } = world;
    await page.goto(ready.web_url);
    await page.evaluate(() => {
      window.location.hash = '#/settings/terminal';
    });
    const status = page.getByTestId('terminal-status');
    await status.getByText('Commands are off.', { exact: false }).waitFor();
    await page.getByRole('switch', { name: 'Let the assistant run commands on this computer' }).click();
    await status.getByText('no folder is allowed yet', { exact: false }).waitFor();
    const lists = page.getByTestId('terminal-lists');
    await lists.getByLabel('Folders commands may run in, one a line').fill(project);
    await lists.getByRole('button', { name: 'Save folders and commands' }).click();
    await status.getByText(`starting in ${project}`, { exact: false }).waitFor();
    await page.screenshot({ path: join(screenshots, 'terminal-settings.png') });
    const settings = await world.api('GET', '/api/terminal/status');
    assert.equal(settings.enabled, true);
    assert.deepEqual(settings.allowed_folders, [project]);
  });

  test('git status runs unasked; a long command asks, shows its output and stops with Stop', async () => {
    const { page, ready } = world;
    await world.api('PATCH', '/api/config', { tools: { approvals: { mode: 'ask' } } });
    await openChat(page, ready.web_url);
    await sendMessage(page, 'Check my project, then build it');
    const cards = page.getByTestId('tool-card');
    // The listed command ran without a question: its card is a finished line.
    await cards.first().getByText('Used Terminal').waitFor();
    const second = cards.nth(1);
    const approval = second.getByTestId('approval-card');
    await approval.waitFor();
    assert.match(await approval.innerText(), /Runs a command/);
    assert.ok((await approval.innerText()).includes(project), 'the card names the folder');
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await second.getByLabel('Progress').getByText('building').waitFor();
    await page.screenshot({ path: join(screenshots, 'terminal-running.png') });
    await second.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('The build was stopped.').waitFor();
    await second.getByText('The command was stopped before it finished.').waitFor();
    await eventually(
      'nothing of the command left',
      async () => execFileSync('ps', ['-eo', 'args']).toString(),
      (left) => !/sleep 24[78]/.test(left),
    );
    await page.screenshot({ path: join(screenshots, 'terminal-stopped.png') });
    assert.deepEqual(world.pageErrors, []);
  });
});

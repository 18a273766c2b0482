// End to end: the accessibility pass. Every page of the window (Chat with a conversation that used
// a tool, one waiting for an OK and one with a model error, the chat list, Tasks with a task open,
// Notifications, each Memory tab, Integrations and its Connect dialog, Devices with the pairing
// card, each Settings tab and Models' Advanced part, Page not found, the Stop banner, and
// onboarding's steps on a fresh engine) is checked with axe-core (WCAG 2 A/AA and 2.1 A/AA rules)
// in the light and the dark theme, at 1280x800, 800x600 and 390x844. Any serious or critical
// violation fails the test, and each is printed as page · rule · element, with the sizes and themes
// it shows in, so it can be fixed. axe's color-contrast rule is the contrast check for both themes
// (4.5:1 text, 3:1 large text). Our own checks join axe's: nothing runs off the right edge of the
// window (WCAG 1.4.10, reflow), and at 1280x800 every stop of the Tab key shows where focus is
// (WCAG 2.4.7). axe's landmark rules (one main, navigation told apart by name) fail at any impact.
//
// The theme is the real setting (`ui.theme` through PATCH /api/config, then a reload); only the two
// chat moments a reload would end (a card waiting for an OK, a model error) switch the theme the way
// the window does (the `data-theme` attribute on <html>).
//
// Screenshots: test-output/screenshots/a11y-<page>-<size>-<theme>.png. The whole list of what axe
// found (every impact) goes to test-output/a11y-report.json.
//
// The processes and the browser are set up by ./support.mjs (see there for the binaries it uses).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ScriptedWorld, eventually, screenshots, startProcess, stopProcess, uiDist, sendMessage } from './support.mjs';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const AXE = join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js');
const REPORT = join(dirname(screenshots), 'a11y-report.json');

const SIZES = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '800x600', width: 800, height: 600 },
  { name: '390x844', width: 390, height: 844 },
];
const THEMES = ['light', 'dark'];
const FAILING = new Set(['serious', 'critical']);
/** Landmarks (axe's best-practice rules, outside the WCAG tags): one main, no second main, landmarks of a kind told apart by name (two navs each labelled). These fail too, whatever their impact. */
const LANDMARK_RULES = ['landmark-one-main', 'landmark-no-duplicate-main', 'landmark-unique', 'landmark-main-is-top-level'];

const TITLE = 'Milk note';
const FIRST_REPLY = "I'll save that.";
const SECOND_REPLY = 'Saved your note about milk in outputs/note.txt.';
const REFINEMENT = {
  name: 'Weekday page summary',
  description: 'Summarise https://example.org every weekday morning.',
  priority: 1,
  schedule: { type: 'recurring', frequency: 'weekly', days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], time: '09:00' },
};
const PLAN = { plan: [{ tool: 'time_now', description: 'Check the time, then summarise the page' }] };

/** What the model says, in order: a task's refinement and plan, a chat that writes a file (asks for an OK), its answer and its title, then a missing model. */
const SCRIPT = [
  { text: JSON.stringify(REFINEMENT) },
  { text: JSON.stringify(PLAN) },
  { parts: [{ text: FIRST_REPLY }, { tool_call: { name: 'files_write', arguments: { path: 'outputs/note.txt', content: 'milk' } } }] },
  { text: SECOND_REPLY },
  { text: TITLE },
  // A second chat meets a model that is missing: its error carries the buttons that fix it.
  { error: { status: 404, message: "model 'qwen3:8b' not found, try pulling it first" } },
];

const world = new ScriptedWorld('a11y', SCRIPT);
let ready;
let page;
let taskId;
const api = (method, path, body) => world.api(method, path, body);

/** Every axe result (all impacts) and the failing ones. */
const report = [];
const failures = [];
/** `page size theme` of every check that ran. */
const audited = new Set();

/** A page's main heading. */
const heading = (name) => page.getByRole('heading', { level: 1, name, exact: true });

/** Waits (up to a few seconds) for the page's loading indicators to go; a page that keeps one is checked as it is. */
async function settle() {
  await eventually(
    'the page finished loading',
    () => page.locator('.loading, .spinner').count(),
    (n) => n === 0,
    5_000,
  ).catch(() => {});
  // Fonts and layout settle before colours are measured.
  await page.evaluate(() => document.fonts?.ready).catch(() => {});
}

/** Runs axe on what is showing and records the results under `label`. */
async function audit(label, size, theme) {
  await settle();
  // Colours are measured at rest: a button half-way through its hover fade is not what anyone reads.
  if (!(await page.evaluate(() => Boolean(document.getElementById('a11y-still'))))) {
    const still = await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; animation: none !important; }' });
    await still.evaluate((el) => el.setAttribute('id', 'a11y-still'));
  }
  const resolved = await page.evaluate(() => document.documentElement.dataset.theme);
  assert.equal(resolved, theme, `${label}: the window shows the ${theme} theme`);
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async (landmarks) => {
    const r = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      rules: Object.fromEntries(landmarks.map((id) => [id, { enabled: true }])),
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 200), summary: n.failureSummary, impact: n.impact })),
    }));
  }, LANDMARK_RULES);
  // WCAG 1.4.10 (reflow), which axe does not check: nothing on the page runs off the right edge
  // of the window, unless it sits in a part made to scroll sideways (a tab strip, a code block).
  const cut = await page.evaluate(() => {
    const root = document.querySelector('main') ?? document.body;
    const width = document.documentElement.clientWidth;
    const scrollsSideways = (el) => {
      for (let a = el.parentElement; a && a !== root; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') return true;
      }
      return false;
    };
    return [...root.querySelectorAll('button, a[href], input, select, textarea, h1, h2, h3, p, li, label')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.right > width + 1 && !scrollsSideways(el);
      })
      .map((el) => {
        const what = el.getAttribute('data-testid') ? `[data-testid="${el.getAttribute('data-testid')}"]` : el.className ? `.${String(el.className).trim().split(/\s+/).join('.')}` : '';
        return { target: `${el.tagName.toLowerCase()}${what} "${(el.textContent || '').trim().slice(0, 40)}"`, right: Math.round(el.getBoundingClientRect().right), width };
      });
  });
  if (cut.length) {
    result.push({
      rule: 'reflow',
      impact: 'serious',
      help: 'Content must fit the window without scrolling sideways (WCAG 1.4.10)',
      nodes: cut.map((c) => ({ target: c.target, html: '', summary: `It ends at ${c.right} px in a window ${c.width} px wide.`, impact: 'serious' })),
    });
  }
  if (size.name === SIZES[0].name) {
    const unseen = await focusRings();
    if (unseen.length) {
      result.push({
        rule: 'focus-visible',
        impact: 'serious',
        help: 'What the keyboard is on must show (an outline or a ring; WCAG 2.4.7)',
        nodes: unseen.map((target) => ({ target, html: '', summary: 'Focused with Tab, it draws no outline and no ring.', impact: 'serious' })),
      });
    }
  }
  for (const v of result) {
    const entry = { page: label, size: size.name, theme, ...v };
    report.push(entry);
    if (FAILING.has(v.impact) || LANDMARK_RULES.includes(v.rule)) failures.push(entry);
  }
  await page.screenshot({ path: join(screenshots, `a11y-${label}-${size.name}-${theme}.png`) });
  audited.add(`${label} ${size.name} ${theme}`);
}

/**
 * Tabs through the page (up to 60 stops, as a keyboard user would) and returns the elements that
 * showed no focus indicator: no outline or ring, and nothing about them or the two boxes around
 * them (outline, ring, border, background) changes between focused and not.
 */
async function focusRings() {
  await page.evaluate(() => {
    document.activeElement?.blur?.();
    window.scrollTo(0, 0);
  });
  await page.locator('body').focus().catch(() => {});
  const unseen = new Set();
  const seen = new Set();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const step = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} "${(el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || '').trim().slice(0, 30)}"`;
      // What the element and the two boxes around it look like (a message box may ring its whole frame).
      const look = () =>
        [el, el.parentElement, el.parentElement?.parentElement]
          .filter(Boolean)
          .map((n) => {
            const st = getComputedStyle(n);
            return [st.outlineStyle, st.outlineWidth, st.outlineColor, st.boxShadow, st.borderColor, st.backgroundColor].join('|');
          })
          .join(' / ');
      const st = getComputedStyle(el);
      if (st.outlineStyle !== 'none' && parseFloat(st.outlineWidth) > 0) return { name, shown: true };
      const focused = look();
      el.blur();
      const resting = look();
      el.focus();
      return { name, shown: focused !== resting };
    });
    if (!step) continue;
    if (seen.has(step.name)) break;
    seen.add(step.name);
    if (!step.shown) unseen.add(step.name);
  }
  await page.evaluate(() => document.activeElement?.blur?.());
  return [...unseen];
}

/**
 * One line per page, rule and element (with the sizes and themes it fails in), so a failure says
 * exactly what to fix.
 */
function describeFailures(list) {
  const grouped = new Map();
  for (const f of list) {
    for (const n of f.nodes) {
      const key = `${f.page} · ${f.rule} (${f.impact}): ${n.target}`;
      const entry = grouped.get(key) ?? { where: [], help: f.help, why: (n.summary || '').replace(/\s+/g, ' ').trim() };
      entry.where.push(`${f.size} ${f.theme}`);
      grouped.set(key, entry);
    }
  }
  return [...grouped]
    .map(([key, { where, help, why }]) => `${key}\n    in ${where.join(', ')}\n    ${help}. ${why}`)
    .join('\n');
}

/** Opens an address of the window (`#/tasks`) and waits for its main heading. */
async function open(hash, title) {
  await page.goto(`${ready.url}/${hash}`);
  if (title) await heading(title).waitFor();
}

/** Sets the theme through the settings and reloads, as a person changing it would see it. */
async function useTheme(theme) {
  await api('PATCH', '/api/config', { ui: { theme } });
  if (page.url().startsWith(ready.url)) await page.reload();
  else await page.goto(ready.web_url);
  await eventually('the theme applies', () => page.evaluate(() => document.documentElement.dataset.theme), (t) => t === theme);
}

/** The id of the chat that wrote the milk note. */
async function milkChat() {
  const sessions = await api('GET', '/api/sessions');
  const found = sessions.find((s) => s.title === TITLE);
  assert.ok(found, `the chat titled ${TITLE} is listed: ${JSON.stringify(sessions)}`);
  return found.id;
}

/** The pages to check once the chat and the task exist: [label, how to get there, how to leave it as it was]. */
const PAGES = [
  [
    'chat',
    async () => {
      // The open chat lives in the address (`#/chat/<id>`).
      await open(`#/chat/${encodeURIComponent(await milkChat())}`, null);
      await page.getByText(SECOND_REPLY).waitFor();
    },
  ],
  [
    // The chat list: the sidebar's second level in a wide window, a panel below 900 px.
    'chat-list',
    async () => {
      await open(`#/chat/${encodeURIComponent(await milkChat())}`, null);
      await page.getByText(SECOND_REPLY).waitFor();
      const list = page.getByRole('region', { name: 'Chats' });
      if (!(await list.isVisible())) await page.getByRole('button', { name: 'Your chats' }).first().click();
      await list.getByText(TITLE, { exact: true }).waitFor();
    },
    async () => {
      await page.keyboard.press('Escape');
    },
  ],
  // `#/chat` is a new, empty chat.
  ['chat-new', async () => open('#/chat', null).then(() => page.getByRole('textbox', { name: 'Message', exact: true }).waitFor())],
  ['tasks', async () => open('#/tasks', 'Tasks')],
  [
    'task-open',
    async () => {
      await open(`#/tasks/${taskId}`, 'Tasks');
      await page.getByRole('heading', { name: REFINEMENT.name }).first().waitFor();
    },
  ],
  ['notifications', async () => open('#/notifications', 'Notifications')],
  ['memory-facts', async () => open('#/memory/facts', 'Memory')],
  ['memory-review', async () => open('#/memory/review', 'Memory')],
  ['memory-map', async () => open('#/memory/map', 'Memory')],
  ['memory-past', async () => open('#/memory/past', 'Memory')],
  ['memory-notes', async () => open('#/memory/notes', 'Memory')],
  ['memory-import', async () => open('#/memory/import', 'Memory')],
  ['integrations', async () => open('#/integrations', 'Integrations')],
  [
    'integrations-connect',
    async () => {
      await open('#/integrations', 'Integrations');
      await page.getByRole('button', { name: /^Connect / }).first().click();
      await page.getByRole('dialog').waitFor();
    },
    async () => {
      await page.getByRole('dialog').focus();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    },
  ],
  [
    'devices-pairing',
    async () => {
      await open('#/devices', 'Devices');
      await page.getByRole('button', { name: /Pair a device/ }).first().click();
      await page.getByRole('region', { name: /Pair a device/ }).first().waitFor();
    },
  ],
  // Settings' tabs are read off the page when the test starts (settingsPages), so a new tab is checked too.
  ['not-found', async () => open('#/no-such-page', 'Page not found')],
  [
    'stopped',
    async () => {
      await api('POST', '/api/stop-all', { source: 'desktop' });
      await open('#/tasks', 'Tasks');
      await page.getByTestId('stop-banner').waitFor();
    },
    async () => {
      await api('POST', '/api/resume', {});
      await page.getByTestId('stop-banner').waitFor({ state: 'detached' });
    },
  ],
];

/** Every Settings tab the window shows (its address names it), plus Models with Advanced open. */
async function settingsPages() {
  await open('#/settings', 'Settings');
  const tabs = page.getByRole('navigation', { name: 'Settings' }).getByRole('link');
  const hrefs = await tabs.evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  for (const known of ['#/settings', '#/settings/models', '#/settings/webhooks', '#/settings/devices']) {
    assert.ok(hrefs.includes(known), `Settings has a ${known} tab (found ${hrefs.join(', ')})`);
  }
  const pages = hrefs.map((href) => [`settings-${href.split('/')[2] ?? 'general'}`, async () => open(href, 'Settings')]);
  const advanced = () => page.getByRole('button', { name: 'Advanced', exact: true });
  pages.push([
    'settings-models-advanced',
    async () => {
      await open('#/settings/models', 'Settings');
      if ((await advanced().getAttribute('aria-expanded')) !== 'true') await advanced().click();
      await page.getByRole('region', { name: 'Main model' }).waitFor();
    },
    // Closed again, as it starts (the window remembers it).
    async () => advanced().click(),
  ]);
  return pages;
}

before(async () => {
  await world.start();
  ({ ready, page } = world);
  await mkdir(dirname(REPORT), { recursive: true });
});

after(async () => {
  await writeFile(REPORT, `${JSON.stringify(report, null, 2)}\n`).catch(() => {});
  await world.stop(async () => {
    console.error(`--- tasks ---\n${JSON.stringify(await api('GET', '/api/tasks'), null, 2)}`);
  });
});

describe('Accessibility (axe-core) in both themes at three sizes', () => {
  test('a task is planned and a chat waits for an OK: checked while the card is open', async () => {
    const task = await api('POST', '/api/tasks', { prompt: 'every weekday at 9, summarise this page https://example.org' });
    taskId = task.task_id;
    await eventually(
      'the task is planned and waits for approval',
      () => api('GET', `/api/tasks/${taskId}`),
      (t) => t.status === 'approval_pending',
    );

    await page.goto(ready.web_url);
    await heading('Chat').waitFor();
    await useTheme('dark');
    await sendMessage(page, 'Remember: buy milk');
    const card = page.getByTestId('approval-card');
    await card.waitFor();
    await page.getByText(FIRST_REPLY).waitFor();

    for (const theme of THEMES) {
      await page.evaluate((t) => {
        document.documentElement.dataset.theme = t;
      }, theme);
      for (const size of SIZES) {
        await page.setViewportSize({ width: size.width, height: size.height });
        await card.scrollIntoViewIfNeeded();
        await audit('chat-approval', size, theme);
      }
    }

    await page.setViewportSize({ width: SIZES[0].width, height: SIZES[0].height });
    await card.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText(SECOND_REPLY).waitFor();
    // The title is the script's last line; once it shows, the model has nothing more to say.
    await page.getByText(TITLE, { exact: true }).first().waitFor({ timeout: 20_000 });

    // A model error with its buttons (download the model, open Settings), in both themes.
    await open('#/chat', null);
    await sendMessage(page, 'Hello');
    const error = page.getByRole('alert').filter({ hasText: /qwen3:8b/ }).first();
    await error.waitFor();
    await error.getByRole('button').first().waitFor();
    for (const theme of THEMES) {
      await page.evaluate((t) => {
        document.documentElement.dataset.theme = t;
      }, theme);
      for (const size of SIZES) {
        await page.setViewportSize({ width: size.width, height: size.height });
        await error.scrollIntoViewIfNeeded();
        await audit('chat-error', size, theme);
      }
    }

    PAGES.push(...(await settingsPages()));
  });

  for (const theme of THEMES) {
    test(`every page in the ${theme} theme`, async () => {
      await useTheme(theme);
      for (const size of SIZES) {
        await page.setViewportSize({ width: size.width, height: size.height });
        for (const [label, go, leave] of PAGES) {
          await go();
          await audit(label, size, theme);
          if (leave) await leave();
        }
      }
    });
  }

  test('the "system" theme follows the computer, live', async () => {
    await page.setViewportSize({ width: SIZES[0].width, height: SIZES[0].height });
    await api('PATCH', '/api/config', { ui: { theme: 'system' } });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${ready.url}/#/tasks`);
    await heading('Tasks').waitFor();
    const shown = () => page.evaluate(() => document.documentElement.dataset.theme);
    await eventually('a light computer gives the light theme', shown, (t) => t === 'light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await eventually('switching the computer to dark follows without a reload', shown, (t) => t === 'dark');
    await page.emulateMedia({ colorScheme: null });
  });

  test('onboarding on a fresh engine, in both themes', async () => {
    const work = await mkdtemp(join(tmpdir(), 'sentient-e2e-a11y-fresh-'));
    const home = join(work, 'home');
    await mkdir(home);
    const token = randomBytes(24).toString('hex');
    let log = '';
    const fresh = await startProcess(
      process.env.SENTIENT_BIN || join(process.env.CARGO_TARGET_DIR || join(process.env.HOME, '.cache', 'sentient-target'), 'debug', 'sentient'),
      ['serve', '--home', home, '--port', '0', '--token', token],
      { SENTIENT_UI_DIR: uiDist, RUST_LOG: 'warn' },
      (chunk) => {
        log += chunk;
      },
    );
    const second = await world.context.newPage();
    const previous = page;
    page = second;
    try {
      const patch = async (theme) => {
        const res = await fetch(`${fresh.info.url}/api/config`, {
          method: 'PATCH',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ui: { theme } }),
        });
        assert.ok(res.ok, `PATCH /api/config on the fresh engine answered ${res.status}`);
      };
      /** Checks one onboarding step in both themes (a reload keeps the step); `arrange` sets it up after each reload. */
      const step = async (label, title, arrange) => {
        for (const theme of THEMES) {
          await patch(theme);
          await page.reload();
          await eventually('the theme applies', () => page.evaluate(() => document.documentElement.dataset.theme), (t) => t === theme);
          await page.getByRole('heading', { level: 1, name: title }).waitFor();
          if (arrange) await arrange();
          for (const size of SIZES) {
            await page.setViewportSize({ width: size.width, height: size.height });
            await audit(label, size, theme);
          }
        }
      };
      await page.goto(fresh.info.web_url);
      await step('onboarding', 'Welcome');
      assert.deepEqual(
        (await fetch(`${fresh.info.url}/api/bootstrap`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.json())).assistant
          .onboarding_complete,
        false,
        'the fresh engine is still waiting for onboarding',
      );
      // The second step: how Sentient should think (this engine's Ollama address answers nothing).
      await page.getByLabel('Your name').fill('Ada');
      await page.getByRole('button', { name: 'Get started' }).click();
      const thinking = 'How should Sentient think?';
      await page.getByRole('heading', { level: 1, name: thinking }).waitFor();
      await step('onboarding-model', thinking, () => page.getByRole('radio', { name: /On this computer/ }).check());
      await step('onboarding-cloud', thinking, () => page.getByRole('radio', { name: /With a cloud key/ }).check());
    } catch (err) {
      if (log) console.error(`--- fresh engine log ---\n${log}`);
      throw err;
    } finally {
      page = previous;
      await second.close().catch(() => {});
      await stopProcess(fresh.child);
      await rm(work, { recursive: true, force: true }).catch(() => {});
    }
  });

  test('no accessibility problems on any page (serious or critical, landmarks, reflow)', () => {
    const labels = ['chat-approval', 'chat-error', ...PAGES.map(([label]) => label), 'onboarding', 'onboarding-model', 'onboarding-cloud'];
    const missing = labels.flatMap((label) => SIZES.flatMap((size) => THEMES.map((theme) => `${label} ${size.name} ${theme}`))).filter((k) => !audited.has(k));
    console.log(`axe ran ${audited.size} times over ${labels.length} pages; ${report.length} findings in all, ${failures.length} failing.`);
    assert.deepEqual(missing, [], 'every page was checked in both themes at every size');
    assert.ok(labels.includes('settings-models-advanced'), 'the Settings tabs were found and checked');
    assert.equal(failures.length, 0, `accessibility problems (serious or critical, landmarks, reflow):\n${describeFailures(failures)}`);
  });
});


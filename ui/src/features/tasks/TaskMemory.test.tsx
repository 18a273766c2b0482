// Task memory in the window: the "Notes between runs" card, the Brief card and the list's hover
// summary, against the fake engine.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import { ApiError } from '../../api/errors';
import type { Config, Schedule, Task } from '../../api';
import { fakeApi, makeBootstrap, makeRun, makeTask } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { taskSummary } from './summary';

const DAILY: Schedule = { type: 'recurring', frequency: 'daily', time: '08:00', timezone: 'Europe/Lisbon' };
const NOTES = 'Reported so far:\n- Reading room reopens on Monday\n- New poetry shelf';
const HINT = "Every run reads these notes and what the last few runs found, so it tells you only what's new.";

function brief(fields: Partial<NonNullable<Task['brief']>>): NonNullable<Task['brief']> {
  return {
    goal: null,
    constraints: null,
    decisions: null,
    done: null,
    open: null,
    current_focus: null,
    where: null,
    risks: null,
    updated_at: null,
    updated_by: null,
    user_fields: [],
    ...fields,
  };
}

function newsTask(overrides: Partial<Task> = {}): Task {
  return makeTask({
    task_id: 'n1',
    name: 'Library news',
    description: 'Tell me what is new on the library page every morning.',
    status: 'active',
    schedule: DAILY,
    notepad: NOTES,
    runs: [makeRun({ run_id: 'r1', status: 'completed', finished_at: '2030-05-04T10:01:00Z' })],
    ...overrides,
  });
}

function setup(tasks: Task[], limits: { notepad?: number; brief?: number } = {}) {
  window.location.hash = '#/tasks';
  const engine = fakeApi(makeBootstrap());
  engine.setTasks(tasks);
  engine.api.getConfig.mockResolvedValue({
    tasks: { continuity: { notepad_chars: limits.notepad ?? 1500 }, brief_chars: limits.brief ?? 1500 },
  } as unknown as Config);
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

afterEach(() => {
  window.location.hash = '';
});

async function openTask(name: string) {
  await userEvent.click(await screen.findByRole('button', { name: new RegExp(name) }));
  return screen.findByTestId('task-detail');
}

async function notesCard(name = 'Library news') {
  const detail = await openTask(name);
  return within(detail).getByTestId('notes-card');
}

describe('Notes between runs', () => {
  it('shows the notes, the hint and the outside-content line, with Edit and Clear', async () => {
    setup([newsTask({ notepad_untrusted: 'Web pages' })]);
    const card = await notesCard();
    expect(within(card).getByRole('heading', { name: 'Notes between runs' })).toBeInTheDocument();
    expect(within(card).getByTestId('notes-text').textContent).toBe(NOTES);
    expect(card).toHaveTextContent(HINT);
    expect(within(card).getByTestId('notes-untrusted')).toHaveTextContent('Includes outside content from Web pages');
    expect(within(card).getByRole('button', { name: 'Edit' })).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Clear' })).toBeInTheDocument();
  });

  it('says runs will keep notes here when there are none, and has no outside-content line', async () => {
    setup([newsTask({ notepad: null, runs: [] })]);
    const card = await notesCard();
    expect(within(card).getByTestId('notes-empty')).toHaveTextContent('Each run will keep notes here');
    expect(within(card).queryByTestId('notes-untrusted')).toBeNull();
    expect(within(card).queryByRole('button', { name: 'Clear' })).toBeNull();
  });

  it('is only on repeating tasks', async () => {
    setup([
      makeTask({ task_id: 'o1', name: 'One errand', status: 'pending', schedule: { type: 'once', run_at: null, timezone: 'Europe/Lisbon' } }),
      makeTask({ task_id: 'o2', name: 'No schedule', status: 'completed', notepad: 'left over' }),
    ]);
    const detail = await openTask('One errand');
    expect(within(detail).getByTestId('brief-card')).toBeInTheDocument();
    expect(within(detail).queryByTestId('notes-card')).toBeNull();
    const other = await openTask('No schedule');
    expect(within(other).queryByTestId('notes-card')).toBeNull();
  });

  it('edits with a counter to the limit from the settings, and saves', async () => {
    const { engine } = setup([newsTask({ notepad: 'short', notepad_untrusted: 'Web pages' })], { notepad: 40 });
    const card = await notesCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    const box = within(card).getByRole('textbox', { name: 'Notes between runs' });
    expect(box).toHaveValue('short');
    await waitFor(() => expect(within(card).getByTestId('notes-count')).toHaveTextContent('5 / 40 characters'));

    await userEvent.clear(box);
    await userEvent.type(box, 'x'.repeat(45));
    expect(within(card).getByTestId('notes-count')).toHaveTextContent('45 / 40 characters — 5 too many');
    expect(within(card).getByRole('button', { name: 'Save' })).toBeDisabled();

    await userEvent.clear(box);
    await userEvent.type(box, '- Item one{Enter}- Item two');
    expect(within(card).getByTestId('notes-count')).toHaveTextContent('21 / 40 characters');
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('n1', { notepad: '- Item one\n- Item two' });
    await waitFor(() => expect(within(card).getByTestId('notes-text').textContent).toBe('- Item one\n- Item two'));
    expect(within(card).queryByRole('textbox')).toBeNull();
    // The person's own words carry no outside content.
    expect(within(card).queryByTestId('notes-untrusted')).toBeNull();
  });

  it('cancels an edit without saving', async () => {
    const { engine } = setup([newsTask()]);
    const card = await notesCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    await userEvent.type(within(card).getByRole('textbox', { name: 'Notes between runs' }), ' and more');
    await userEvent.click(within(card).getByRole('button', { name: 'Cancel' }));
    expect(engine.api.patchTask).not.toHaveBeenCalled();
    expect(within(card).getByTestId('notes-text').textContent).toBe(NOTES);
  });

  it("shows the engine's refusal in plain words and keeps the text", async () => {
    const { engine } = setup([newsTask()]);
    engine.api.patchTask.mockRejectedValueOnce(new ApiError(400, 'The notes are 1600 characters; the limit is 1500. Shorten them and save again.'));
    const card = await notesCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    await userEvent.type(within(card).getByRole('textbox', { name: 'Notes between runs' }), '!');
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent(
      "Couldn't save the notes. The notes are 1600 characters; the limit is 1500. Shorten them and save again.",
    );
    expect(within(card).getByRole('textbox', { name: 'Notes between runs' })).toHaveValue(`${NOTES}!`);
  });

  it('clears the notes', async () => {
    const { engine } = setup([newsTask()]);
    const card = await notesCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Clear' }));
    const confirm = within(card).getByRole('group', { name: 'Clear the notes' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Clear' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('n1', { notepad: null });
    await within(card).findByTestId('notes-empty');
    expect(within(card).queryByRole('group', { name: 'Clear the notes' })).toBeNull();
  });

  it('clears the notes and forgets earlier runs', async () => {
    const { engine } = setup([newsTask()]);
    const card = await notesCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Clear' }));
    await userEvent.click(within(card).getByRole('button', { name: 'Clear and forget earlier runs' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('n1', { notepad: null, forget_earlier_runs: true });
    await within(card).findByTestId('notes-empty');
  });

  it('keeping the notes from the Clear question changes nothing', async () => {
    const { engine } = setup([newsTask()]);
    const card = await notesCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Clear' }));
    await userEvent.click(within(card).getByRole('button', { name: 'Keep them' }));
    expect(engine.api.patchTask).not.toHaveBeenCalled();
    expect(within(card).getByTestId('notes-text').textContent).toBe(NOTES);
  });

  it('shows a note a run saves as soon as task.updated arrives', async () => {
    const task = newsTask({ notepad: null });
    const { engine } = setup([task]);
    const card = await notesCard();
    expect(within(card).getByTestId('notes-empty')).toBeInTheDocument();
    act(() => engine.emit('task.updated', { ...task, notepad: '- Book sale on 20 October', notepad_untrusted: 'Web pages' }));
    expect(await within(card).findByTestId('notes-text')).toHaveTextContent('- Book sale on 20 October');
    expect(within(card).getByTestId('notes-untrusted')).toHaveTextContent('Includes outside content from Web pages');
  });

  it('says so when a run saves notes while the person edits them', async () => {
    const task = newsTask();
    const { engine } = setup([task]);
    const card = await notesCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    act(() => engine.emit('task.updated', { ...task, notepad: 'from a run' }));
    expect(await within(card).findByText(/A run saved new notes while you were editing/)).toBeInTheDocument();
    expect(within(card).getByRole('textbox', { name: 'Notes between runs' })).toHaveValue(NOTES);
  });

  it('keeps Edit and Clear reachable from the keyboard', async () => {
    setup([newsTask()]);
    const card = await notesCard();
    const edit = within(card).getByRole('button', { name: 'Edit' });
    act(() => edit.focus());
    expect(edit).toHaveFocus();
    await userEvent.tab();
    expect(within(card).getByRole('button', { name: 'Clear' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(within(card).getByRole('group', { name: 'Clear the notes' })).toBeInTheDocument();
  });
});

describe('Brief card', () => {
  it('says there is no brief yet and lists every field', async () => {
    setup([newsTask({ brief: null })]);
    const detail = await openTask('Library news');
    const card = within(detail).getByTestId('brief-card');
    expect(within(card).getByTestId('brief-empty')).toHaveTextContent('No brief yet');
    for (const label of ['Goal', 'Constraints', 'Decisions', 'Done', 'Open', 'Current focus', 'Where', 'Risks']) {
      // Empty fields say what their button does: write, not edit (the visible word is in the name).
      expect(within(card).getByRole('button', { name: `Write ${label}` })).toHaveTextContent('Write');
    }
    expect(within(card).queryByTestId('brief-updated')).toBeNull();
  });

  it("shows each field with its label, marks the person's own words, and says who updated it", async () => {
    setup([
      newsTask({
        brief: brief({
          goal: 'Tell Ada only the new library news.',
          constraints: 'Never email the library.',
          current_focus: 'Checking the news page.',
          user_fields: ['constraints'],
          updated_at: '2030-05-04T09:30:00Z',
          updated_by: 'agent',
        }),
      }),
    ]);
    const detail = await openTask('Library news');
    const card = within(detail).getByTestId('brief-card');
    expect(within(card).queryByTestId('brief-empty')).toBeNull();
    expect(within(card).getByTestId('brief-goal')).toHaveTextContent('Goal');
    expect(within(card).getByTestId('brief-goal')).toHaveTextContent('Tell Ada only the new library news.');
    expect(within(within(card).getByTestId('brief-goal')).queryByTestId('brief-yours')).toBeNull();
    expect(within(within(card).getByTestId('brief-constraints')).getByTestId('brief-yours')).toHaveTextContent('Your words');
    expect(within(card).getByTestId('brief-current_focus')).toHaveTextContent('Checking the news page.');
    expect(within(card).getByTestId('brief-risks')).toHaveTextContent('Not written yet');
    const when = new Date('2030-05-04T09:30:00Z').toLocaleString(undefined, {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
    });
    expect(within(card).getByTestId('brief-updated')).toHaveTextContent(`Updated ${when} by a run`);
  });

  it('saves an edited field as the person’s words, and clearing one sends null', async () => {
    const { engine } = setup([newsTask({ brief: brief({ goal: 'Library news, new items only.', updated_by: 'agent', updated_at: '2030-05-04T09:30:00Z' }) })]);
    const detail = await openTask('Library news');
    const card = within(detail).getByTestId('brief-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Write Constraints' }));
    const box = within(card).getByRole('textbox', { name: 'Constraints' });
    await userEvent.type(box, 'Only the Pune library.');
    expect(card).toHaveTextContent(/The whole brief: \d+ \/ 1500 characters/);
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('n1', { brief: { constraints: 'Only the Pune library.' } });
    const constraints = within(card).getByTestId('brief-constraints');
    await waitFor(() => expect(constraints).toHaveTextContent('Only the Pune library.'));
    expect(within(constraints).getByTestId('brief-yours')).toHaveTextContent('Your words');
    expect(within(card).getByTestId('brief-updated')).toHaveTextContent(/by you$/);

    await userEvent.click(within(card).getByRole('button', { name: 'Edit Goal' }));
    await userEvent.clear(within(card).getByRole('textbox', { name: 'Goal' }));
    expect(card).toHaveTextContent('Saving it empty clears this part of the brief.');
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(engine.api.patchTask).toHaveBeenLastCalledWith('n1', { brief: { goal: null } });
    await waitFor(() => expect(within(card).getByTestId('brief-goal')).toHaveTextContent('Not written yet'));
  });

  it('stops a field that would make the brief too long, and shows refusals in plain words', async () => {
    const { engine } = setup([newsTask({ brief: null })], { brief: 50 });
    const detail = await openTask('Library news');
    const card = within(detail).getByTestId('brief-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Write Goal' }));
    const box = within(card).getByRole('textbox', { name: 'Goal' });
    await waitFor(() => expect(card).toHaveTextContent('The whole brief: 0 / 50 characters'));
    await userEvent.type(box, 'A goal far too long for the limit');
    expect(card).toHaveTextContent('too many. Write it shorter to save.');
    expect(within(card).getByRole('button', { name: 'Save' })).toBeDisabled();
    await userEvent.clear(box);
    await userEvent.type(box, 'Short goal');
    engine.api.patchTask.mockRejectedValueOnce(new ApiError(400, 'The brief has no field goal.'));
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent("Couldn't save the goal. The brief has no field goal.");
    await userEvent.click(within(card).getByRole('button', { name: 'Cancel' }));
    expect(within(card).queryByRole('alert')).toBeNull();
  });
});

describe('Hover summary in the task list', () => {
  const longAnswer = `${'New: author talk on 25 October. '.repeat(12)}END`;

  it("shows the brief's goal and current state on hover", async () => {
    setup([newsTask({ brief: brief({ goal: 'Only new library news.', current_focus: 'Reading the news page.', open: 'Ask about hours' }) })]);
    const row = await screen.findByRole('button', { name: /Library news/ });
    await userEvent.hover(row);
    const tip = await screen.findByRole('tooltip');
    expect(tip).toHaveTextContent('Goal: Only new library news.');
    expect(tip).toHaveTextContent('Now: Reading the news page.');
    expect(row).toHaveAccessibleDescription(/Only new library news/);
    await userEvent.unhover(row);
    expect(screen.queryByRole('tooltip')).toBeNull();
  });

  it('without a brief, shows the first 300 characters of the latest answer, also on keyboard focus', async () => {
    setup([
      newsTask({
        runs: [
          makeRun({ run_id: 'r1', status: 'completed', result: { summary: 'Old answer', links_created: [], links_found: [], files_created: [], tools_used: [] } }),
          makeRun({ run_id: 'r2', status: 'completed', result: { summary: longAnswer, links_created: [], links_found: [], files_created: [], tools_used: [] } }),
        ],
      }),
    ]);
    const row = await screen.findByRole('button', { name: /Library news/ });
    act(() => row.focus());
    const tip = await screen.findByRole('tooltip');
    expect(tip.textContent?.startsWith('Last result: New: author talk on 25 October.')).toBe(true);
    expect(tip).not.toHaveTextContent('END');
    expect(tip).not.toHaveTextContent('Old answer');
    expect(tip.textContent?.endsWith('…')).toBe(true);
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('tooltip')).toBeNull();
  });

  it('is never empty: the description, or a plain line, when nothing has run', async () => {
    setup([
      makeTask({ task_id: 'a', name: 'Fresh task', status: 'approval_pending', description: 'Check the weather.' }),
      makeTask({ task_id: 'b', name: 'Bare task', status: 'approval_pending' }),
    ]);
    await userEvent.hover(await screen.findByRole('button', { name: /Fresh task/ }));
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Check the weather.');
    await userEvent.unhover(screen.getByRole('button', { name: /Fresh task/ }));
    await userEvent.hover(screen.getByRole('button', { name: /Bare task/ }));
    expect(await screen.findByRole('tooltip')).toHaveTextContent("This task hasn't run yet.");
  });

  it('falls back from the brief when it has no goal or state, and uses what is open when nothing is in focus', () => {
    const base = { description: 'desc', runs: [] as Task['runs'] };
    expect(taskSummary({ ...base, brief: brief({ risks: 'none' }) }).from).toBe('description');
    expect(taskSummary({ ...base, brief: brief({ goal: 'G', open: 'O' }) }).lines).toEqual([
      { label: 'Goal', text: 'G' },
      { label: 'Still open', text: 'O' },
    ]);
    const clipped = taskSummary({ ...base, brief: null, runs: [makeRun({ run_id: 'x', result: { summary: 'é'.repeat(400), links_created: [], links_found: [], files_created: [], tools_used: [] } })] });
    expect([...clipped.lines[0].text].length).toBe(301);
  });
});

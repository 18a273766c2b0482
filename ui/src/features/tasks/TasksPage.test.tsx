import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import { ApiError } from '../../api/errors';
import type { Schedule, Task } from '../../api';
import { fakeApi, makeBootstrap, makeRun, makeTask } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { BLOCKED_WORDS } from './NewTaskForm';
import { PLAN_FAILED_LEAD } from './detail/PlanFailed';
import { PLAN_AGAIN_MESSAGE, planningFailed } from './words';

const WEEKDAYS: Schedule = {
  type: 'recurring',
  frequency: 'weekly',
  days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  time: '09:00',
  timezone: 'Europe/Lisbon',
};

function setup(tasks: Task[] = []) {
  window.location.hash = '#/tasks';
  const engine = fakeApi(makeBootstrap());
  engine.setTasks(tasks);
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

describe('Tasks page', () => {
  it('says so when there are no tasks', async () => {
    setup();
    expect(await screen.findByText('No tasks yet — describe one above.')).toBeInTheDocument();
  });

  it('groups tasks by what they need, with the schedule in words and the next run', async () => {
    setup([
      makeTask({ task_id: 'a', name: 'Plan approval', status: 'approval_pending' }),
      makeTask({ task_id: 'b', name: 'Busy one', status: 'processing' }),
      makeTask({ task_id: 'c', name: 'Morning digest', status: 'active', schedule: WEEKDAYS, next_execution_at: '2030-05-06T08:00:00Z' }),
      makeTask({ task_id: 'd', name: 'Old errand', status: 'completed' }),
      makeTask({ task_id: 'e', name: 'Question time', status: 'waiting_for_user' }),
    ]);
    const needs = await screen.findByTestId('task-group-needs_you');
    expect(within(needs).getAllByTestId('task-row').map((r) => r.querySelector('strong')?.textContent)).toEqual([
      'Plan approval',
      'Question time',
    ]);
    expect(within(screen.getByTestId('task-group-running')).getByText('Busy one')).toBeInTheDocument();
    const scheduled = screen.getByTestId('task-group-scheduled');
    expect(scheduled).toHaveTextContent('Morning digest');
    expect(scheduled).toHaveTextContent(/Every weekday at 09:00/);
    // The next run is in the task's zone (Lisbon, 09:00 there), like its schedule, and says so.
    const when = new Date('2030-05-06T08:00:00Z').toLocaleString(undefined, {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'Europe/Lisbon',
    });
    expect(when).toMatch(/09:00/);
    expect(scheduled).toHaveTextContent(`Next run: ${when} (Europe/Lisbon time)`);
    expect(within(screen.getByTestId('task-group-other')).getByText('Old errand')).toBeInTheDocument();
  });

  it('previews a prompt, then creates the task and opens it', async () => {
    const { engine } = setup();
    await screen.findByText('No tasks yet — describe one above.');
    engine.setPreview({ name: 'Weekday page summary', description: 'Summarise the page.', priority: 1, schedule: WEEKDAYS, model_error: null });
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), 'every weekday at 9, summarise a page');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    const preview = await screen.findByTestId('task-preview');
    expect(engine.api.previewTask).toHaveBeenCalledWith('every weekday at 9, summarise a page');
    expect(preview).toHaveTextContent('Weekday page summary');
    expect(within(preview).getByTestId('preview-schedule')).toHaveTextContent('Every weekday at 09:00');
    expect(engine.api.createTask).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole('button', { name: 'Create task' }));
    expect(engine.api.createTask).toHaveBeenCalledWith({ prompt: 'every weekday at 9, summarise a page' });
    const detail = await screen.findByTestId('task-detail');
    expect(within(detail).getByTestId('task-status')).toHaveTextContent('Planning…');
    expect(screen.queryByTestId('task-preview')).toBeNull();
    expect(screen.getByRole('textbox', { name: 'Describe a task' })).toHaveValue('');
    expect(within(screen.getByTestId('task-group-running')).getByText('every weekday at 9,')).toBeInTheDocument();
  });

  it("shows the engine's own sentence when the preview fails", async () => {
    const { engine } = setup();
    await screen.findByText('No tasks yet — describe one above.');
    engine.setPreview(new ApiError(503, 'The planner model is not available. Start Ollama, then try again.'));
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), 'water the plants');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("Couldn't preview it. The planner model is not available. Start Ollama, then try again.");
  });

  it('a failed Preview keeps Create off, with the fix and Try again; once a preview works, Create works', async () => {
    const { engine } = setup();
    await screen.findByText('No tasks yet — describe one above.');
    engine.setPreview(new ApiError(503, "Ollama isn't answering. Start Ollama (or install it from ollama.com), then try again."));
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), 'water the plants');
    const create = screen.getByRole('button', { name: 'Create task' });
    expect(create).toBeEnabled();
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    const failed = await screen.findByTestId('preview-error');
    expect(failed).toHaveTextContent("Couldn't preview it. Ollama isn't answering.");
    expect(within(failed).getByRole('link', { name: 'Get Ollama' })).toHaveAttribute('href', 'https://ollama.com/download');
    expect(create).toBeDisabled();
    expect(create).toHaveAccessibleDescription(BLOCKED_WORDS);
    // Enter in the form can't create it either, and editing the words doesn't bring the model back.
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), ' daily');
    expect(create).toBeDisabled();
    await userEvent.click(create);
    expect(engine.api.createTask).not.toHaveBeenCalled();

    // The model is back: Try again previews the words as they are now, and Create works.
    engine.setPreview({ name: 'Water the plants', description: 'Water them.', priority: 1, schedule: null, model_error: null });
    await userEvent.click(within(failed).getByRole('button', { name: 'Try again' }));
    expect(engine.api.previewTask).toHaveBeenLastCalledWith('water the plants daily');
    await screen.findByTestId('task-preview');
    expect(screen.queryByTestId('preview-error')).toBeNull();
    expect(create).toBeEnabled();
    await userEvent.click(create);
    expect(engine.api.createTask).toHaveBeenCalledWith({ prompt: 'water the plants daily' });
  });

  it('a preview that failed for any reason offers Try again even when its sentence does not say so', async () => {
    const { engine } = setup();
    await screen.findByText('No tasks yet — describe one above.');
    engine.setPreview(new ApiError(502, 'The planner model answered in the wrong shape.'));
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), 'water the plants');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    const failed = await screen.findByTestId('preview-error');
    expect(within(failed).getAllByRole('button', { name: 'Try again' })).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Create task' })).toBeDisabled();
  });

  it('a preview read from the words alone (the model slow or down) never blocks Create', async () => {
    const { engine } = setup();
    await screen.findByText('No tasks yet — describe one above.');
    engine.setPreview({ name: 'Water the plants', description: 'every day at 8 water the plants', priority: 1, schedule: WEEKDAYS, model_error: null });
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), 'every day at 8 water the plants');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    await screen.findByTestId('task-preview');
    expect(screen.getByRole('button', { name: 'Create task' })).toBeEnabled();
    expect(screen.queryByTestId('preview-error')).toBeNull();
  });

  it('a new task whose planning failed: the failure in plain words with its buttons; Try again plans it afresh and opens it', async () => {
    const wrongShape = 'The planner model answered in the wrong shape. Try again, or pick another planner model in Settings > Models.';
    const { engine } = setup([makeTask({ task_id: 't1', name: 'News digest', status: 'error', error: wrongShape, plan: [] })]);
    const detail = await openTask('News digest');
    const failed = within(detail).getByTestId('task-error');
    expect(failed).toHaveTextContent(`${PLAN_FAILED_LEAD} ${wrongShape}`);
    expect(within(failed).getByRole('link', { name: 'Open Settings > Models' })).toHaveAttribute('href', '#/settings/models');
    expect(within(failed).getAllByRole('button', { name: 'Try again' })).toHaveLength(1);

    await userEvent.click(within(failed).getByRole('button', { name: 'Try again' }));
    expect(engine.api.rerunTask).toHaveBeenCalledWith('t1');
    // The failed one held nothing: it goes, and the new one is open, planning.
    await waitFor(() => expect(engine.api.deleteTask).toHaveBeenCalledWith('t1'));
    const fresh = await screen.findByTestId('task-detail');
    expect(await within(fresh).findByText('Sentient is working out a plan for this task…')).toBeInTheDocument();
    expect(within(fresh).queryByTestId('task-error')).toBeNull();
    await waitFor(() => expect(screen.getAllByTestId('task-row')).toHaveLength(1));
  });

  it('a task whose re-planning after a change failed is asked to plan again in its own chat, keeping its runs', async () => {
    const { engine } = setup([
      makeTask({
        task_id: 't1',
        name: 'Digest',
        status: 'error',
        error: 'Planning was stopped. Ask for a change to plan it again.',
        plan: [{ tool: 'time_now', description: 'Check the time' }],
        runs: [makeRun({ run_id: 'r1', status: 'completed' })],
        chat_history: [{ role: 'user', content: 'Make it shorter', timestamp: '2030-05-04T10:00:00Z' }],
      }),
    ]);
    const detail = await openTask('Digest');
    const failed = within(detail).getByTestId('task-error');
    expect(failed).toHaveTextContent(PLAN_FAILED_LEAD);
    // The sentence names no Try again; the card adds one.
    await userEvent.click(within(failed).getByRole('button', { name: 'Try again' }));
    expect(engine.api.taskChat).toHaveBeenCalledWith('t1', PLAN_AGAIN_MESSAGE);
    expect(engine.api.rerunTask).not.toHaveBeenCalled();
    expect(engine.api.deleteTask).not.toHaveBeenCalled();
    expect(await within(detail).findByText('Sentient is working out a plan for this task…')).toBeInTheDocument();
  });

  it("opening a row closes its hover card, so it can't cover the task that opens", async () => {
    setup([makeTask({ task_id: 'a', name: 'First', description: 'The first one.' }), makeTask({ task_id: 'b', name: 'Second', description: 'The second one.' })]);
    const row = await screen.findByRole('button', { name: /First/ });
    await userEvent.hover(row);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('The first one.');
    await userEvent.click(row);
    await screen.findByTestId('task-detail');
    expect(screen.queryByRole('tooltip')).toBeNull();
    // Another row still explains itself on hover.
    await userEvent.hover(screen.getByRole('button', { name: /Second/ }));
    expect(await screen.findByRole('tooltip')).toHaveTextContent('The second one.');
  });

  it('a failed run is not a failed plan: no plan Try again on it', () => {
    const run = makeRun({ run_id: 'r1', status: 'error', error: 'The page could not be read.' });
    expect(planningFailed(makeTask({ task_id: 't1', status: 'error', runs: [run] }))).toBe(false);
    expect(planningFailed(makeTask({ task_id: 't2', status: 'error', runs: [] }))).toBe(true);
    expect(planningFailed(makeTask({ task_id: 't3', status: 'approval_pending', runs: [] }))).toBe(false);
  });

  it('a plan arrives live; Approve schedules it and Decline declines another', async () => {
    const { engine } = setup([
      makeTask({ task_id: 't1', name: 'Digest', status: 'planning', schedule: WEEKDAYS }),
      makeTask({ task_id: 't2', name: 'Other', status: 'approval_pending', plan: [{ tool: 'web_fetch', description: 'Read it' }] }),
    ]);
    const detail = await openTask('Digest');
    expect(within(detail).getByText('Sentient is working out a plan for this task…')).toBeInTheDocument();
    const planned = makeTask({
      ...engine.tasks()[0],
      status: 'approval_pending',
      plan: [{ tool: 'time_now', description: 'Check the time' }],
    });
    engine.setTasks([planned, engine.tasks()[1]]);
    act(() => engine.emit('task.updated', planned));
    const plan = await within(detail).findByTestId('plan-card');
    expect(plan).toHaveTextContent('Check the time');
    expect(within(screen.getByTestId('task-group-needs_you')).getByText('Digest')).toBeInTheDocument();

    await userEvent.click(within(plan).getByRole('button', { name: 'Approve' }));
    expect(engine.api.approveTask).toHaveBeenCalledWith('t1');
    await waitFor(() => expect(within(screen.getByTestId('task-detail')).getByTestId('task-status')).toHaveTextContent('Scheduled'));
    expect(within(screen.getByTestId('task-group-scheduled')).getByText('Digest')).toBeInTheDocument();

    const other = await openTask('Other');
    await userEvent.click(within(other).getByRole('button', { name: 'Decline' }));
    expect(engine.api.declineTask).toHaveBeenCalledWith('t2');
    await waitFor(() => expect(within(screen.getByTestId('task-detail')).getByTestId('task-status')).toHaveTextContent('Declined'));
  });

  it('Run now starts a run whose progress lines appear live; Cancel ends it', async () => {
    const { engine } = setup([
      makeTask({ task_id: 't1', name: 'Digest', status: 'active', schedule: WEEKDAYS, plan: [{ tool: 'time_now', description: 'Check the time' }] }),
    ]);
    const detail = await openTask('Digest');
    await userEvent.click(within(detail).getByRole('button', { name: 'Run now' }));
    expect(engine.api.runTaskNow).toHaveBeenCalledWith('t1');
    const card = await within(detail).findByTestId('run-card');
    expect(within(card).getByTestId('run-status')).toHaveTextContent('Running');

    act(() => {
      engine.emit('task.run_progress', { task_id: 't1', run_id: 'r1', update: { timestamp: '2030-05-04T10:00:01Z', message: { type: 'info', content: 'Run started.' } } });
      engine.emit('task.run_progress', {
        task_id: 't1',
        run_id: 'r1',
        update: { timestamp: '2030-05-04T10:00:02Z', message: { type: 'tool_call', content: '', tool_name: 'time_now', parameters: { zone: 'Europe/Lisbon' } } },
      });
      engine.emit('task.run_progress', {
        task_id: 't1',
        run_id: 'r1',
        update: { timestamp: '2030-05-04T10:00:03Z', message: { type: 'tool_result', content: '', tool_name: 'time_now', result: '{"time":"10:00"}', is_error: false } },
      });
      // The same line twice (a task.updated may have brought it already) shows once.
      engine.emit('task.run_progress', { task_id: 't1', run_id: 'r1', update: { timestamp: '2030-05-04T10:00:01Z', message: { type: 'info', content: 'Run started.' } } });
    });
    await waitFor(() => expect(within(card).getAllByTestId('log-line')).toHaveLength(3));
    const lines = within(card).getAllByTestId('log-line');
    expect(lines[0]).toHaveTextContent('Run started.');
    expect(lines[1]).toHaveTextContent('Using Time now');
    expect(lines[1]).toHaveTextContent('"zone": "Europe/Lisbon"');
    expect(lines[2]).toHaveTextContent('Time now answered');
    expect(lines[2]).toHaveTextContent('{"time":"10:00"}');

    await userEvent.click(within(card).getByRole('button', { name: 'Cancel' }));
    expect(engine.api.cancelRun).toHaveBeenCalledWith('t1', 'r1');
    await waitFor(() => expect(within(screen.getByTestId('run-card')).getByTestId('run-status')).toHaveTextContent('Cancelled'));
    // A cancelled run can be tried again.
    await userEvent.click(within(screen.getByTestId('run-card')).getByRole('button', { name: 'Retry' }));
    expect(engine.api.retryRun).toHaveBeenCalledWith('t1', 'r1');
    await waitFor(() => expect(screen.getAllByTestId('run-card')).toHaveLength(2));
  });

  it('shows a finished run with its result and a failed one with its error', async () => {
    setup([
      makeTask({
        task_id: 't1',
        name: 'Digest',
        status: 'error',
        error: 'The page could not be read.',
        runs: [
          makeRun({
            run_id: 'r1',
            status: 'completed',
            result: { summary: 'It is 10:00 in Lisbon.', links_created: [], links_found: [{ url: 'https://example.org', description: 'Example' }], files_created: [], tools_used: ['time'] },
          }),
          makeRun({ run_id: 'r2', status: 'error', error: 'The page could not be read.' }),
        ],
      }),
    ]);
    const detail = await openTask('Digest');
    expect(within(detail).getByTestId('task-error')).toHaveTextContent('The page could not be read.');
    await userEvent.click(within(detail).getByRole('tab', { name: /Runs/ }));
    const [newest, oldest] = within(detail).getAllByTestId('run-card');
    expect(within(newest).getByTestId('run-error')).toHaveTextContent('The page could not be read.');
    expect(within(newest).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(within(oldest).getByTestId('run-result')).toHaveTextContent('It is 10:00 in Lisbon.');
    expect(within(oldest).getByRole('link', { name: 'Example' })).toHaveAttribute('href', 'https://example.org');
    expect(within(oldest).queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('answers a waiting question with an option button, or in free words', async () => {
    const question = { question: 'Which flight should I book?', options: ['IndiGo 07:10', 'Air India 09:40'], asked_at: '2030-05-04T10:00:00Z', kind: 'question', reason: null };
    const { engine } = setup([
      makeTask({ task_id: 't1', name: 'Flights', status: 'waiting_for_user', runs: [makeRun({ run_id: 'r1', status: 'waiting_for_user', pending_question: question })] }),
      makeTask({ task_id: 't2', name: 'Hotels', status: 'waiting_for_user', runs: [makeRun({ run_id: 'r9', status: 'waiting_for_user', pending_question: { ...question, question: 'Which hotel?', options: [] } })] }),
    ]);
    let detail = await openTask('Flights');
    const card = within(detail).getByTestId('question-card');
    expect(card).toHaveTextContent('Which flight should I book?');
    await userEvent.click(within(card).getByRole('button', { name: 'Air India 09:40' }));
    expect(engine.api.answerRun).toHaveBeenCalledWith('t1', 'r1', 'Air India 09:40');
    await waitFor(() => expect(screen.queryByTestId('question-card')).toBeNull());

    detail = await openTask('Hotels');
    const hotel = within(detail).getByTestId('question-card');
    await userEvent.type(within(hotel).getByRole('textbox', { name: 'Your answer' }), 'The one near the beach');
    await userEvent.click(within(hotel).getByRole('button', { name: 'Answer' }));
    expect(engine.api.answerRun).toHaveBeenCalledWith('t2', 'r9', 'The one near the beach');
    await waitFor(() => expect(screen.queryByTestId('question-card')).toBeNull());
  });

  it('answers the planner questions, saves a schedule, pauses and asks for a change', async () => {
    const { engine } = setup([
      makeTask({
        task_id: 't1',
        name: 'Trip',
        status: 'clarification_pending',
        clarifying_questions: [{ question_id: 'q1', text: 'Where to?', answer: null }],
      }),
      makeTask({ task_id: 't2', name: 'Digest', status: 'active', schedule: WEEKDAYS, plan: [{ tool: 'time_now', description: 'Check' }] }),
    ]);
    let detail = await openTask('Trip');
    await userEvent.type(within(detail).getByRole('textbox', { name: 'Where to?' }), 'Lisbon');
    await userEvent.click(within(detail).getByRole('button', { name: 'Send answers' }));
    expect(engine.api.answerClarifications).toHaveBeenCalledWith('t1', [{ question_id: 'q1', answer_text: 'Lisbon' }]);

    detail = await openTask('Digest');
    await userEvent.click(within(detail).getByRole('button', { name: 'Change schedule' }));
    await userEvent.selectOptions(within(detail).getByRole('combobox', { name: 'How often' }), 'daily');
    const time = within(detail).getByLabelText('Time');
    await userEvent.clear(time);
    await userEvent.type(time, '07:30');
    await userEvent.click(within(detail).getByRole('button', { name: 'Save schedule' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('t2', {
      schedule: { type: 'recurring', frequency: 'daily', time: '07:30', timezone: 'Europe/Lisbon' },
    });
    expect(await within(detail).findByTestId('task-schedule')).toHaveTextContent('Every day at 07:30');

    await userEvent.click(within(detail).getByRole('button', { name: 'Pause' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('t2', { enabled: false });
    expect(await within(detail).findByRole('button', { name: 'Resume' })).toBeInTheDocument();

    await userEvent.type(within(detail).getByRole('textbox', { name: 'Ask for a change' }), 'Skip Fridays');
    await userEvent.click(within(detail).getByRole('button', { name: 'Send' }));
    expect(engine.api.taskChat).toHaveBeenCalledWith('t2', 'Skip Fridays');
    expect(await within(detail).findByText('Skip Fridays')).toBeInTheDocument();
  });

  it('saves the model and where results go, and archives the task', async () => {
    const { engine } = setup([makeTask({ task_id: 't1', name: 'Digest', status: 'completed', plan: [{ tool: 'time_now', description: 'Check' }] })]);
    const detail = await openTask('Digest');
    expect(within(detail).getByText('The task model from Settings > Models')).toBeInTheDocument();
    await userEvent.click(within(detail).getByRole('button', { name: 'Change settings' }));
    await userEvent.type(within(detail).getByRole('textbox', { name: 'Model' }), 'anthropic/claude-sonnet-5');
    await userEvent.selectOptions(within(detail).getByRole('combobox', { name: 'Results go to' }), 'desktop');
    await userEvent.click(within(detail).getByRole('button', { name: 'Save settings' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('t1', { model: 'anthropic/claude-sonnet-5', deliver_to: 'desktop' });
    expect(await within(detail).findByText('Only this app')).toBeInTheDocument();
    expect(within(detail).getByText('anthropic/claude-sonnet-5')).toBeInTheDocument();

    await userEvent.click(within(detail).getByRole('button', { name: 'Archive' }));
    expect(engine.api.archiveTask).toHaveBeenCalledWith('t1');
    await waitFor(() => expect(within(screen.getByTestId('task-detail')).getByTestId('task-status')).toHaveTextContent('Archived'));
    expect(within(screen.getByTestId('task-detail')).queryByRole('button', { name: 'Archive' })).toBeNull();
  });

  it('shows why an action failed in plain words', async () => {
    const { engine } = setup([
      makeTask({ task_id: 't1', name: 'Digest', status: 'active', schedule: WEEKDAYS, plan: [{ tool: 'time_now', description: 'Check' }] }),
    ]);
    engine.api.runTaskNow.mockRejectedValueOnce(new ApiError(409, 'This task is already running.'));
    const detail = await openTask('Digest');
    await userEvent.click(within(detail).getByRole('button', { name: 'Run now' }));
    expect(await within(detail).findByRole('alert')).toHaveTextContent('This task is already running.');
  });

  it('Delete asks first; Keep it keeps it, and yes removes it (also when deleted elsewhere)', async () => {
    const { engine } = setup([
      makeTask({ task_id: 't1', name: 'Digest', status: 'completed' }),
      makeTask({ task_id: 't2', name: 'Another', status: 'completed' }),
    ]);
    const detail = await openTask('Digest');
    await userEvent.click(within(detail).getByRole('button', { name: 'Delete' }));
    expect(within(detail).getByText(/This can't be undone/)).toBeInTheDocument();
    expect(engine.api.deleteTask).not.toHaveBeenCalled();
    await userEvent.click(within(detail).getByRole('button', { name: 'Keep it' }));
    await userEvent.click(within(detail).getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(detail).getByRole('button', { name: 'Yes, delete it' }));
    expect(engine.api.deleteTask).toHaveBeenCalledWith('t1');
    await waitFor(() => expect(screen.queryByTestId('task-detail')).toBeNull());
    expect(screen.queryByText('Digest')).toBeNull();

    act(() => engine.emit('task.deleted', { task_id: 't2' }));
    expect(await screen.findByText('No tasks yet — describe one above.')).toBeInTheDocument();
  });
});

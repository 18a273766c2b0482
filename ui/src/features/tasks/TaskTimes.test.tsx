// Times and states on a task's card that agree (issue 32): a task in Asia/Tokyo on a computer in
// Europe/Berlin shows Tokyo times, saying so; a scheduled task is "Paused by Stop everything"
// while stopped; a run that waits for the busy local model says why; a preview the model didn't
// answer warns before Create; a deleted task says so with nothing to retry.
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../App';
import type { Schedule, Task } from '../../api';
import { fakeApi, IDLE, makeBootstrap, makeRun, makeTask } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { NO_MODEL_WORDS } from './NewTaskForm';
import { inTaskZone, modelWaitWords, PAUSED_BY_STOP, taskTime } from './words';

const TOKYO_WEEKDAYS: Schedule = {
  type: 'recurring',
  frequency: 'weekly',
  days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  time: '09:00',
  timezone: 'Asia/Tokyo',
};

// 09:00 in Tokyo is 00:00 UTC and 02:00 in Berlin (summer time).
const NEXT = '2030-05-06T00:00:00Z';

let zoneBefore: string | undefined;
beforeAll(() => {
  zoneBefore = process.env.TZ;
  process.env.TZ = 'Europe/Berlin';
});
afterAll(() => {
  if (zoneBefore === undefined) delete process.env.TZ;
  else process.env.TZ = zoneBefore;
});

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

describe('times in the task zone', () => {
  it('runs on a computer in Europe/Berlin', () => {
    expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe('Europe/Berlin');
    expect(new Date(NEXT).getHours()).toBe(2);
  });

  it('words a moment in the task zone and names the zone only when it is not this computer', () => {
    expect(inTaskZone(NEXT, 'Asia/Tokyo')).toMatch(/09:00/);
    expect(taskTime(NEXT, 'Asia/Tokyo')).toMatch(/09:00.*\(Asia\/Tokyo time\)$/);
    expect(taskTime(NEXT, 'Europe/Berlin')).toMatch(/02:00/);
    expect(taskTime(NEXT, 'Europe/Berlin')).not.toMatch(/time\)/);
    // No zone (a one-off task with no schedule): this computer's.
    expect(taskTime(NEXT, null)).toMatch(/02:00/);
    expect(taskTime(NEXT, null)).not.toMatch(/time\)/);
    // A zone the browser doesn't know falls back to this computer's instead of failing.
    expect(inTaskZone(NEXT, 'Mars/Olympus')).toMatch(/02:00/);
  });

  it('shows a Tokyo task with Tokyo times on the list, the schedule and its runs, labelled', async () => {
    setup([
      makeTask({
        task_id: 't1',
        name: 'Tokyo digest',
        status: 'active',
        schedule: TOKYO_WEEKDAYS,
        next_execution_at: NEXT,
        last_execution_at: '2030-05-03T00:00:00Z',
        plan: [{ tool: 'time_now', description: 'Check the time' }],
        runs: [
          makeRun({
            run_id: 'r1',
            status: 'completed',
            execution_start_time: '2030-05-03T00:00:00Z',
            finished_at: '2030-05-03T00:05:00Z',
            progress_updates: [{ timestamp: '2030-05-03T00:00:01Z', message: { type: 'info', content: 'Run started.' } }],
          }),
        ],
      }),
    ]);
    const row = (await screen.findAllByTestId('task-row'))[0];
    expect(row).toHaveTextContent('Every weekday at 09:00 (Asia/Tokyo time)');
    expect(row).toHaveTextContent(/Next run: .*09:00.*\(Asia\/Tokyo time\)/);
    expect(row).not.toHaveTextContent(/02:00/);

    const detail = await openTask('Tokyo digest');
    expect(within(detail).getByTestId('task-next-run')).toHaveTextContent(/09:00.*\(Asia\/Tokyo time\)/);
    expect(within(detail).getByTestId('task-last-run')).toHaveTextContent(/Fri.*09:00.*\(Asia\/Tokyo time\)/);
    await userEvent.click(within(detail).getByRole('tab', { name: /Runs/ }));
    const card = within(detail).getByTestId('run-card');
    expect(within(card).getByTestId('run-times')).toHaveTextContent(/Started .*09:00.* · ended .*09:05.*\(Asia\/Tokyo time\)/);
    expect(within(card).getByTestId('log-line')).toHaveTextContent(/09:00:01/);
  });
});

describe('states that agree', () => {
  it('says a scheduled task is paused by Stop everything while stopped, and scheduled after Resume', async () => {
    const { engine } = setup([
      makeTask({ task_id: 't1', name: 'Morning digest', status: 'active', schedule: TOKYO_WEEKDAYS, next_execution_at: NEXT }),
      makeTask({ task_id: 't2', name: 'Waiting one', status: 'approval_pending' }),
    ]);
    const row = (await screen.findAllByTestId('task-row')).find((r) => r.textContent?.includes('Morning digest'));
    expect(row).toHaveTextContent('Scheduled');
    act(() => engine.emit('stop.updated', { stopped: true, stopped_at: '2030-05-04T10:00:00Z', source: 'desktop' }));
    expect(await within(row as HTMLElement).findByText(PAUSED_BY_STOP)).toBeInTheDocument();
    const detail = await openTask('Morning digest');
    expect(within(detail).getByTestId('task-status')).toHaveTextContent(PAUSED_BY_STOP);
    expect(within(detail).getByText(/once you choose Resume/)).toBeInTheDocument();
    // A task that isn't scheduled keeps its own state.
    const other = (await screen.findAllByTestId('task-row')).find((r) => r.textContent?.includes('Waiting one'));
    expect(other).toHaveTextContent('Waiting for your approval');
    act(() => engine.emit('stop.updated', { stopped: false, stopped_at: null, source: 'desktop' }));
    expect(await within(detail).findByText('Scheduled')).toBeInTheDocument();
    expect(screen.queryByText(PAUSED_BY_STOP)).toBeNull();
  });

  it('a run waiting for the busy local model says what the model is busy with', async () => {
    const { engine } = setup([
      makeTask({ task_id: 't1', name: 'Digest', status: 'processing', runs: [makeRun({ run_id: 'r1', status: 'processing' })] }),
    ]);
    const detail = await openTask('Digest');
    expect(within(detail).getByTestId('task-status')).toHaveTextContent('Running');
    act(() => engine.emit('model.busy', { ...IDLE, busy: true, job: 'chat', model: 'ollama_chat/qwen3:8b', since: '2030-05-04T10:00:00Z', waiting: 1 }));
    expect(await within(detail).findByText('Waiting for the model (busy with a chat reply)')).toBeInTheDocument();
    await userEvent.click(within(detail).getByRole('tab', { name: /Runs/ }));
    expect(within(detail).getByTestId('run-status')).toHaveTextContent('Waiting for the model (busy with a chat reply)');
    // The model is free again: it is simply running.
    act(() => engine.emit('model.busy', { ...IDLE, busy: true, job: 'task', model: 'ollama_chat/qwen3:8b', since: '2030-05-04T10:00:05Z' }));
    expect(await within(detail).findByTestId('run-status')).toHaveTextContent('Running');
    expect(within(detail).getByTestId('task-status')).toHaveTextContent('Running');
  });

  it('says nothing about the model when it may be the run itself using it', () => {
    expect(modelWaitWords(undefined)).toBeNull();
    expect(modelWaitWords(IDLE)).toBeNull();
    expect(modelWaitWords({ ...IDLE, busy: true, job: 'task', waiting: 2 })).toBeNull();
    expect(modelWaitWords({ ...IDLE, busy: true, job: 'chat', waiting: 0 })).toBeNull();
    expect(modelWaitWords({ ...IDLE, busy: true, job: 'memory', waiting: 1 })).toBe('Waiting for the model (busy with memory notes)');
    expect(modelWaitWords({ ...IDLE, deferred: 1, deferred_reason: 'chat' })).toBe('Waiting for the model (kept free for your chat)');
  });

  it('a preview the model did not answer warns before Create, with the fix', async () => {
    const { engine } = setup();
    await screen.findByText('No tasks yet — describe one above.');
    const down = "Sentient couldn't reach Ollama. Start Ollama, or pick another model in Settings > Models.";
    engine.setPreview({ name: 'Water the plants', description: 'every day at 8 water the plants', priority: 1, schedule: TOKYO_WEEKDAYS, model_error: down });
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), 'every day at 8 water the plants');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    const warning = await screen.findByTestId('preview-no-model');
    expect(warning).toHaveTextContent(NO_MODEL_WORDS);
    expect(warning).toHaveTextContent(down);
    expect(screen.getByRole('button', { name: 'Create task' })).toHaveAccessibleDescription(NO_MODEL_WORDS);
  });

  it('a preview the model answered has no warning', async () => {
    const { engine } = setup();
    await screen.findByText('No tasks yet — describe one above.');
    engine.setPreview({ name: 'Water the plants', description: 'Water them.', priority: 1, schedule: TOKYO_WEEKDAYS, model_error: null });
    await userEvent.type(screen.getByRole('textbox', { name: 'Describe a task' }), 'every day at 8 water the plants');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    await screen.findByTestId('task-preview');
    expect(screen.queryByTestId('preview-no-model')).toBeNull();
  });

  it('a link to a deleted task says it was deleted and offers only Close', async () => {
    window.location.hash = '#/tasks/gone';
    const engine = fakeApi(makeBootstrap());
    engine.setTasks([]);
    renderWithApi(<App />, engine.api);
    const gone = await screen.findByTestId('task-gone');
    expect(gone).toHaveTextContent('This task was deleted');
    expect(within(gone).queryByRole('button', { name: 'Try again' })).toBeNull();
    await userEvent.click(within(gone).getByRole('button', { name: 'Close' }));
    expect(screen.queryByTestId('task-gone')).toBeNull();
  });
});

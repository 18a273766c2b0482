// A script job's Script card against the fake engine: what it watches and does, what the last
// check found or why it failed, editing with the engine's compile check, and Test.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import type { Schedule, Task } from '../../api';
import { fakeApi, makeBootstrap, makeTask } from '../../test/fakes';
import { renderWithApi } from '../../test/render';

const HOURLY: Schedule = { type: 'recurring', frequency: 'interval', interval_minutes: 60, timezone: 'Europe/Lisbon' };
const CODE = "from sentient_tools import tools, result\npage = tools.web_fetch(url='http://shop.test/kettle')\nresult(page['content'])";

function watch(overrides: Partial<NonNullable<Task['script']>> = {}, task: Partial<Task> = {}): Task {
  return makeTask({
    task_id: 's1',
    name: 'Kettle back in stock',
    status: 'active',
    task_type: 'script',
    schedule: HOURLY,
    script: { code: CODE, condition: 'changed', then: 'notify', last_result: null, last_run_at: null, last_error: null, ...overrides },
    ...task,
  });
}

function setup(tasks: Task[]) {
  window.location.hash = '#/tasks';
  const engine = fakeApi(makeBootstrap());
  engine.setTasks(tasks);
  renderWithApi(<App />, engine.api);
  return engine;
}

afterEach(() => {
  window.location.hash = '';
});

async function scriptCard() {
  await userEvent.click(await screen.findByRole('button', { name: /Kettle back in stock/ }));
  const detail = await screen.findByTestId('task-detail');
  return within(detail).getByTestId('script-card');
}

describe('The Script card', () => {
  it('shows the code, when it acts and what follows, and that it has not checked yet', async () => {
    setup([watch()]);
    const card = await scriptCard();
    expect(within(card).getByTestId('script-job-code').textContent).toBe(CODE);
    expect(within(card).getByTestId('script-condition')).toHaveTextContent('When what it finds changes');
    expect(within(card).getByTestId('script-then')).toHaveTextContent('Tell me');
    expect(within(card).getByTestId('script-not-checked')).toHaveTextContent('Not checked yet.');
    expect(card).toHaveTextContent('without the model');
  });

  it('shows what the last check found, or why it failed', async () => {
    setup([watch({ last_result: 'Out of stock', last_run_at: '2030-05-04T10:00:00Z' })]);
    const card = await scriptCard();
    expect(within(card).getByTestId('script-last-result')).toHaveTextContent('Out of stock');
    expect(within(card).queryByTestId('script-last-error')).toBeNull();
  });

  it('says why the last check failed and keeps the value before it', async () => {
    setup([watch({ last_result: 'Out of stock', last_run_at: '2030-05-04T10:00:00Z', last_error: "The page didn't answer." })]);
    const card = await scriptCard();
    expect(within(card).getByTestId('script-last-error')).toHaveTextContent("The last check failed (");
    expect(within(card).getByTestId('script-last-error')).toHaveTextContent("The page didn't answer.");
    expect(within(card).getByTestId('script-last-result')).toHaveTextContent('Out of stock');
  });

  it('edits the code, condition and what follows; code that does not compile is not saved', async () => {
    const engine = setup([watch({ last_result: 'Out of stock' })]);
    const card = await scriptCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    const box = within(card).getByRole('textbox', { name: 'Script code' });
    expect(box).toHaveValue(CODE);
    await userEvent.clear(box);
    await userEvent.type(box, 'print(SYNTAX');
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('syntax error on line 1');
    expect(within(card).getByRole('textbox', { name: 'Script code' })).toBeInTheDocument();

    await userEvent.clear(box);
    await userEvent.type(box, 'print(1)');
    await userEvent.selectOptions(within(card).getByRole('combobox', { name: 'Act' }), 'alert');
    await userEvent.selectOptions(within(card).getByRole('combobox', { name: 'Then' }), 'run');
    await userEvent.click(within(card).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(within(card).queryByRole('textbox', { name: 'Script code' })).toBeNull());
    expect(engine.api.patchTask).toHaveBeenLastCalledWith('s1', { script: { code: 'print(1)', condition: 'alert', then: 'run' } });
    expect(within(card).getByTestId('script-job-code').textContent).toBe('print(1)');
    expect(within(card).getByTestId('script-condition')).toHaveTextContent('When the script raises an alert');
    expect(within(card).getByTestId('script-then')).toHaveTextContent('Let the assistant work on it');
    expect(within(card).getByTestId('script-not-checked')).toBeInTheDocument();
  });

  it('tests the saved script, or the code being edited, and shows what it gave', async () => {
    const engine = setup([watch()]);
    const card = await scriptCard();
    await userEvent.click(within(card).getByRole('button', { name: 'Test' }));
    const test = await within(card).findByTestId('script-test');
    expect(test).toHaveTextContent('nothing was saved or sent');
    expect(test).toHaveTextContent('In stock');
    expect(engine.api.testTaskScript).toHaveBeenLastCalledWith('s1', null);

    await userEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    const box = within(card).getByRole('textbox', { name: 'Script code' });
    await userEvent.clear(box);
    await userEvent.type(box, 'x = SYNTAX');
    await userEvent.click(within(card).getByRole('button', { name: 'Test' }));
    expect(await within(card).findByTestId('script-test-error')).toHaveTextContent('syntax error on line 1');
    expect(engine.api.testTaskScript).toHaveBeenLastCalledWith('s1', 'x = SYNTAX');
  });

  it('calls Run now "Check now" and keeps the Script card in view after it', async () => {
    const engine = setup([watch({}, { plan: [{ tool: 'execute_code', description: 'Check the page with a short script' }] })]);
    const card = await scriptCard();
    const detail = screen.getByTestId('task-detail');
    await userEvent.click(within(detail).getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(engine.api.runTaskNow).toHaveBeenCalledWith('s1'));
    expect(card).toBeInTheDocument();
    expect(within(detail).getByRole('tab', { name: 'Overview' })).toHaveAttribute('aria-selected', 'true');
    await userEvent.click(within(detail).getByRole('tab', { name: 'Runs (0)' }));
    expect(detail).toHaveTextContent('Its checks run without the model and show on the Script card');
  });

  it('leaves out the notes between runs for a watch that only tells, but keeps them when the assistant works on it', async () => {
    setup([watch(), watch({ then: 'run' }, { task_id: 's2', name: 'Kettle deals' })]);
    const card = await scriptCard();
    expect(within(screen.getByTestId('task-detail')).queryByTestId('notes-card')).toBeNull();
    expect(card).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: /Kettle deals/ }));
    await waitFor(() => expect(within(screen.getByTestId('task-detail')).getByTestId('notes-card')).toBeInTheDocument());
  });

  it('is not on a normal task', async () => {
    setup([makeTask({ task_id: 'n1', name: 'Kettle back in stock', status: 'active' })]);
    await userEvent.click(await screen.findByRole('button', { name: /Kettle back in stock/ }));
    const detail = await screen.findByTestId('task-detail');
    expect(within(detail).queryByTestId('script-card')).toBeNull();
  });
});

// The task editor's webhook trigger: pick a hook, add a filter as name=value lines, save it as a
// triggered schedule; the task then names its hook.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../App';
import type { Hook, Task } from '../../../api';
import { fakeApi, makeBootstrap, makeHook, makeTask } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { filterText, parseFilter } from './ScheduleEditor';

function setup(tasks: Task[], hooks: Hook[]) {
  window.location.hash = '#/tasks';
  const engine = fakeApi(makeBootstrap());
  engine.setTasks(tasks);
  engine.setHooks(hooks);
  renderWithApi(<App />, engine.api);
  return engine;
}

afterEach(() => {
  window.location.hash = '';
});

async function openTask(name: string) {
  await userEvent.click(await screen.findByRole('button', { name: new RegExp(name) }));
  return screen.findByTestId('task-detail');
}

describe('schedule editor: webhook trigger', () => {
  it('reads filters as name=value lines', () => {
    expect(parseFilter('status = failed\n\nbody.branch=main')).toEqual({ status: 'failed', 'body.branch': 'main' });
    expect(parseFilter('')).toEqual({});
    expect(parseFilter('nonsense')).toMatch(/name=value/);
    expect(parseFilter('=x')).toMatch(/name=value/);
    expect(filterText({ status: 'failed', name: 'ci' })).toBe('status=failed\nname=ci');
  });

  it('picks a hook and a filter, and saves a triggered schedule', async () => {
    const engine = setup(
      [makeTask({ task_id: 't1', name: 'Triage', status: 'active', schedule: { type: 'once', run_at: null, timezone: 'Europe/Lisbon' } })],
      [makeHook({ id: 'h1', name: 'Build server' }), makeHook({ id: 'h2', name: 'Home hub' })],
    );
    const detail = await openTask('Triage');
    await userEvent.click(within(detail).getByRole('button', { name: 'Change schedule' }));
    await userEvent.selectOptions(within(detail).getByRole('combobox', { name: 'How often' }), 'webhook');
    const picker = await within(detail).findByRole('combobox', { name: 'Webhook' });
    expect(within(picker).getAllByRole('option').map((o) => o.textContent)).toEqual(['Pick a webhook', 'Build server', 'Home hub']);

    await userEvent.click(within(detail).getByRole('button', { name: 'Save schedule' }));
    expect(within(detail).getByRole('alert')).toHaveTextContent('Pick the webhook that starts this task.');
    expect(engine.api.patchTask).not.toHaveBeenCalled();

    await userEvent.selectOptions(picker, 'h1');
    await userEvent.type(within(detail).getByRole('textbox', { name: /Only when/ }), 'status=failed');
    await userEvent.click(within(detail).getByRole('button', { name: 'Save schedule' }));
    expect(engine.api.patchTask).toHaveBeenCalledWith('t1', {
      schedule: { type: 'triggered', source: 'webhook', event: 'h1', filter: { status: 'failed' }, timezone: 'Europe/Lisbon' },
    });
    expect(await within(detail).findByTestId('task-trigger')).toHaveTextContent('Webhook: Build server · only when status=failed');
    expect(within(detail).getByTestId('task-schedule')).toHaveTextContent('When its web address (webhook) is called');
  });

  it('points to Settings when there are no hooks yet', async () => {
    setup([makeTask({ task_id: 't1', name: 'Triage', status: 'active' })], []);
    const detail = await openTask('Triage');
    await userEvent.click(within(detail).getByRole('button', { name: 'Change schedule' }));
    await userEvent.selectOptions(within(detail).getByRole('combobox', { name: 'How often' }), 'webhook');
    expect(await within(detail).findByRole('link', { name: 'Settings > Webhooks' })).toHaveAttribute('href', '#/settings/webhooks');
  });
});

// Settings' tabs: the tabs made from settings sections show only when the schema has the section
// and doesn't hide it; the Chats, Tasks, Approvals & safety and Scripts tabs are forms generated
// from the schema, and Webhooks shows its limits from it too.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import type { ConfigSchema } from '../../api/calls';
import { CONFIG_SCHEMA, fakeApi, makeBootstrap } from '../../test/fakes';
import { renderWithApi } from '../../test/render';

afterEach(() => {
  window.location.hash = '';
});

function open(hash: string, schema: ConfigSchema = CONFIG_SCHEMA, setUp: (engine: ReturnType<typeof fakeApi>) => void = () => {}) {
  window.location.hash = hash;
  const engine = fakeApi(makeBootstrap());
  engine.api.configSchema.mockResolvedValue(schema);
  setUp(engine);
  renderWithApi(<App />, engine.api);
  return engine;
}

describe('Settings tabs', () => {
  it('lists every tab, and leaves out one whose section the schema marks not used yet', async () => {
    open('#/settings');
    const tabs = await screen.findByRole('navigation', { name: 'Settings' });
    await within(tabs).findByRole('link', { name: 'Approvals & safety' });
    expect(within(tabs).getAllByRole('link').map((a) => a.textContent)).toEqual([
      'General',
      'Models',
      'Chats',
      'Tasks',
      'Approvals & safety',
      'Scripts',
      'Terminal',
      'Browser',
      'Webhooks',
      'Devices',
    ]);
  });

  it('hides a tab whose section is not used yet, and its address shows General', async () => {
    const hidden = structuredClone(CONFIG_SCHEMA);
    (hidden.properties as Record<string, ConfigSchema>).tools.description = 'Not used yet (it arrives in a later version). Tools.';
    open('#/settings/safety', hidden);
    const tabs = await screen.findByRole('navigation', { name: 'Settings' });
    await within(tabs).findByRole('link', { name: 'Chats' });
    await screen.findByRole('heading', { name: 'Appearance' });
    expect(within(tabs).queryByRole('link', { name: 'Approvals & safety' })).toBeNull();
    expect(within(tabs).getByRole('link', { name: 'General' })).toHaveAttribute('aria-current', 'page');
  });

  it('Tasks is a form from the schema: a limit out of range is refused, a good one saved alone', async () => {
    const engine = open('#/settings/tasks');
    const runs = await screen.findByRole('spinbutton', { name: 'Tasks working at the same time' });
    expect(runs).toHaveAccessibleDescription('How many task runs may work at the same time.');
    await userEvent.clear(runs);
    await userEvent.type(runs, '40{Enter}');
    expect(await screen.findByText('Use a whole number of runs from 1 to 16.')).toBeInTheDocument();
    expect(engine.api.patchConfig).not.toHaveBeenCalled();
    await userEvent.clear(runs);
    await userEvent.type(runs, '3{Enter}');
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ tasks: { max_concurrent_runs: 3 } });
    // A nested section's field patches only its own path.
    await userEvent.click(screen.getByRole('switch', { name: 'Repeating tasks remember their earlier runs' }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ tasks: { continuity: { enabled: false } } });
  });

  it('Approvals & safety offers the approval modes in the schema’s words', async () => {
    const engine = open('#/settings/safety');
    const mode = await screen.findByRole('combobox', { name: 'When to ask before acting' });
    expect(within(mode).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Never ask (purchases and your own Ask rules still ask)',
      'Ask before changing things outside Sentient, sending, deleting or running code',
      'Ask before every tool use',
    ]);
    await userEvent.selectOptions(mode, 'always');
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ tools: { approvals: { mode: 'always' } } });
  });

  it('Scripts is a form from the schema: limits in their units, containment and Docker', async () => {
    const engine = open('#/settings/scripts');
    expect((await screen.findByTestId('scripts-status')).textContent).toBe(
      'Scripts run with Python 3.11.7 inside bubblewrap: they see only their own folder, none of your files, and have no network.',
    );
    const timeout = await screen.findByRole('spinbutton', { name: 'Stop a script after' });
    expect(timeout).toHaveAccessibleDescription('A script is stopped after running this many seconds.');
    await userEvent.clear(timeout);
    await userEvent.type(timeout, '2{Enter}');
    expect(await screen.findByText('Use a whole number of seconds from 5 to 3600.')).toBeInTheDocument();
    expect(engine.api.patchConfig).not.toHaveBeenCalled();
    await userEvent.clear(timeout);
    await userEvent.type(timeout, '60{Enter}');
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ sandbox: { timeout_s: 60 } });
    await userEvent.click(screen.getByRole('switch', { name: 'Let the assistant write and run short Python scripts' }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ sandbox: { enabled: false } });
    expect(screen.getByRole('spinbutton', { name: 'Largest file saved' })).toBeInTheDocument();
    const where = screen.getByRole('combobox', { name: 'Where scripts run' });
    expect(within(where).getAllByRole('option').map((o) => o.getAttribute('value'))).toEqual(['auto', 'process', 'docker']);
    const uncontained = screen.getByRole('switch', { name: "Run scripts uncontained when they can't be contained" });
    expect(uncontained).toHaveAccessibleDescription(/can read your files and reach the internet/);
    await userEvent.click(uncontained);
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ sandbox: { allow_uncontained: true } });
    expect(screen.getByRole('spinbutton', { name: 'Memory for a script in Docker' })).toBeInTheDocument();
    expect(screen.getByRole('spinbutton', { name: 'Most processes one script may run' })).toBeInTheDocument();
  });

  it('Scripts says what to install when they cannot be contained, and checks again', async () => {
    const note =
      "bubblewrap isn't installed, so scripts can't be kept away from your files and the network. Install it: sudo apt install bubblewrap. Until then scripts don't run.";
    const engine = open('#/settings/scripts', CONFIG_SCHEMA, (engine) =>
      engine.api.sandboxStatus.mockResolvedValue({ enabled: true, backend: 'process', docker_available: false, python_version: '3.11.7', contained: false, note }),
    );
    const line = await screen.findByTestId('scripts-status');
    expect(line).toHaveAttribute('role', 'alert');
    expect(line.textContent).toContain(note);
    const calls = engine.api.sandboxStatus.mock.calls.length;
    await userEvent.click(within(line).getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(engine.api.sandboxStatus.mock.calls.length).toBeGreaterThan(calls));
  });

  it('Scripts says how to get Python when this computer has none', async () => {
    open('#/settings/scripts', CONFIG_SCHEMA, (engine) =>
      engine.api.sandboxStatus.mockResolvedValue({
        enabled: true,
        backend: 'process',
        docker_available: false,
        python_version: null,
        contained: true,
        note: null,
      }),
    );
    expect((await screen.findByTestId('scripts-status')).textContent).toContain('sudo apt install python3');
  });

  it('General lets the personality onboarding left at its default be changed, in the schema’s words', async () => {
    const engine = open('#/settings');
    const style = await screen.findByRole('combobox', { name: 'How your assistant talks' });
    expect(within(style).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Warm and conversational',
      'Polished and businesslike',
      'Short, to-the-point answers',
      'Your own description of how the assistant should behave',
    ]);
    await userEvent.selectOptions(style, 'concise');
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ assistant: { persona: 'concise' } });
  });

  it('Chats and Webhooks show their settings from the schema', async () => {
    open('#/settings/chats');
    expect(await screen.findByRole('switch', { name: /Name new chats automatically/ })).toBeInTheDocument();
    window.location.hash = '#/settings/webhooks';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    const body = await screen.findByRole('spinbutton', { name: 'Largest message a webhook accepts' });
    expect(body).toHaveAttribute('max', '10240');
    expect(screen.getByRole('region', { name: 'Limits for every webhook' })).toHaveTextContent('KB');
  });
});

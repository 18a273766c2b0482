// Settings > Terminal: the status line, the switch with its warning, the folders and commands,
// and what runs now with Stop.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../App';
import { CONFIG_SCHEMA, fakeApi, makeBootstrap } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';

afterEach(() => {
  window.location.hash = '';
});

function open(configure?: (engine: ReturnType<typeof fakeApi>) => void) {
  window.location.hash = '#/settings/terminal';
  const engine = fakeApi(makeBootstrap());
  engine.api.configSchema.mockResolvedValue(CONFIG_SCHEMA);
  configure?.(engine);
  renderWithApi(<App />, engine.api);
  return engine;
}

describe('Settings > Terminal', () => {
  it('is off at first, says so, and turns on with its warning in view', async () => {
    const engine = open();
    expect((await screen.findByTestId('terminal-status')).textContent).toBe('Commands are off. When on, they run in bash.');
    expect(screen.getByTestId('terminal-form')).toHaveTextContent('Commands not listed ask first');
    await userEvent.click(await screen.findByRole('switch', { name: 'Let the assistant run commands on this computer' }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ terminal: { enabled: true } });
    expect(screen.getByTestId('terminal-running')).toHaveTextContent('Sentient never runs commands for formatting or wiping disks');
  });

  it('saves the folders and the commands, one a line', async () => {
    const engine = open();
    const lists = await screen.findByTestId('terminal-lists');
    const folders = within(lists).getByLabelText('Folders commands may run in, one a line');
    await userEvent.type(folders, '/home/me/site{Enter}/home/me/notes');
    await userEvent.click(within(lists).getByRole('button', { name: 'Save folders and commands' }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({
      terminal: { allowed_folders: ['/home/me/site', '/home/me/notes'], allowed_commands: expect.any(Array) as unknown },
    });
  });

  it('warns when on without a folder, and lists a running command with Stop', async () => {
    const engine = open((engine) =>
      engine.api.terminalStatus.mockResolvedValue({
        enabled: true,
        shell: 'zsh',
        shell_path: '/bin/zsh',
        allowed_folders: [],
        default_folder: null,
        blocked: ['fork bombs'],
        running: [{ id: 'r1', call_id: 'c1', command: 'npm test', cwd: '/home/me/site', started_at: '2026-12-07T10:00:00Z' }],
      }),
    );
    const status = await screen.findByTestId('terminal-status');
    expect(status).toHaveAttribute('role', 'alert');
    expect(status.textContent).toBe('Commands are on, but no folder is allowed yet, so nothing runs. Add a folder below.');
    const row = await screen.findByTestId('terminal-running-command');
    expect(row).toHaveTextContent('npm test');
    await userEvent.click(within(row).getByRole('button', { name: 'Stop' }));
    expect(engine.api.terminalStop).toHaveBeenCalledWith({ id: 'r1' });
  });
});

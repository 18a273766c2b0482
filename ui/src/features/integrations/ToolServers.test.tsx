// The Tool servers section against the fake engine: empty and error states, Add a server (a
// program with its arguments and settings, or a web address with headers) with its progress
// and the engine's refusal, the values a server still needs behind its key button, on/off, Read
// only, Test and Remove after a confirm.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import type { McpServerInfo } from '../../api/calls';
import { ApiError } from '../../api/errors';
import { fakeApi, makeBootstrap } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { installIntegrations, makeApp, makeServer } from './fakeIntegrations';
import { NO_SERVERS } from './ToolServers';

function setup(servers: McpServerInfo[] = []) {
  window.location.hash = '#/integrations';
  const engine = fakeApi(makeBootstrap());
  const world = installIntegrations(engine, { servers });
  const view = renderWithApi(<App />, engine.api);
  return { engine, world, ...view };
}

afterEach(() => {
  window.location.hash = '';
});

/**
 * A refresh of the list starts (an event for the server) and is answered only when the returned
 * function is called, with the list as it was when it was asked for.
 */
async function startLateListRead(engine: ReturnType<typeof fakeApi>): Promise<() => void> {
  const real = engine.api.listMcpServers.getMockImplementation();
  let answer: () => void = () => {};
  engine.api.listMcpServers.mockImplementationOnce(async () => {
    const before = await real!();
    await new Promise<void>((resolve) => {
      answer = resolve;
    });
    return before;
  });
  const reads = engine.api.listMcpServers.mock.calls.length;
  engine.emit('integration.updated', makeApp({ id: 'mcp_everything' }));
  await waitFor(() => expect(engine.api.listMcpServers).toHaveBeenCalledTimes(reads + 1));
  return () => answer();
}

const server = async (name: string) => within(await screen.findByRole('list', { name: 'Tool servers' })).findByRole('listitem', { name });

describe('Tool servers', () => {
  it('says when there are none, and when they cannot be read', async () => {
    window.location.hash = '#/integrations';
    const engine = fakeApi(makeBootstrap());
    installIntegrations(engine);
    engine.api.listMcpServers.mockRejectedValueOnce(new ApiError(500, 'Something went wrong inside Sentient. Try again in a moment.'));
    renderWithApi(<App />, engine.api);
    expect(
      await screen.findByText("Couldn't load the tool servers. Something went wrong inside Sentient. Try again in a moment."),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText(NO_SERVERS)).toBeInTheDocument();
  });

  it('adds a program with its arguments and settings, saying it connects meanwhile', async () => {
    const { engine } = setup();
    let finish: () => void = () => {};
    const real = engine.api.addMcpServer.getMockImplementation();
    engine.api.addMcpServer.mockImplementationOnce(
      (body) =>
        new Promise((resolve, reject) => {
          finish = () => void real?.(body).then(resolve, reject);
        }),
    );
    await userEvent.click(await screen.findByRole('button', { name: 'Add a server' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a tool server' });
    expect(within(dialog).getByLabelText('Name')).toHaveFocus();
    await userEvent.type(within(dialog).getByLabelText('Name'), 'everything');
    await userEvent.type(within(dialog).getByLabelText('Command'), 'node');
    await userEvent.type(within(dialog).getByLabelText(/Arguments/), '/opt/my server/index.js stdio');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add a setting' }));
    await userEvent.type(within(dialog).getByLabelText('Name of setting 1'), 'API_KEY');
    await userEvent.type(within(dialog).getByLabelText('Value of setting 1'), 'k-123');
    expect(within(dialog).getByLabelText('Value of setting 1')).toHaveAttribute('type', 'password');
    await userEvent.click(within(dialog).getByRole('switch', { name: /Read only/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));

    expect(await within(dialog).findByText(/Connecting… Sentient starts it and asks for its tools/)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Connecting…' })).toBeDisabled();
    expect(engine.api.addMcpServer).toHaveBeenCalledWith({
      name: 'everything',
      transport: 'stdio',
      command: 'node',
      // Unquoted spaces split arguments.
      args: ['/opt/my', 'server/index.js', 'stdio'],
      env: { API_KEY: 'k-123' },
      access: 'read',
    });
    finish();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const card = await server('everything');
    expect(within(card).getByTestId('status')).toHaveTextContent('Connected · 2 tools');
    expect(within(card).getByRole('switch', { name: /Read only/ })).toBeChecked();
    await userEvent.click(within(card).getByRole('button', { name: 'Its tools (2)' }));
    expect(within(card).getAllByTestId('tool').map((t) => t.getAttribute('data-tool'))).toEqual([
      'mcp_everything_echo',
      'mcp_everything_write',
    ]);
  });

  it('adds a web address with headers', async () => {
    const { engine } = setup();
    await userEvent.click(await screen.findByRole('button', { name: 'Add a server' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a tool server' });
    await userEvent.type(within(dialog).getByLabelText('Name'), 'remote');
    await userEvent.click(within(dialog).getByRole('radio', { name: 'A web address' }));
    expect(within(dialog).queryByLabelText('Command')).toBeNull();
    await userEvent.type(within(dialog).getByLabelText('Web address'), 'https://tools.example.com/mcp');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add a header' }));
    await userEvent.type(within(dialog).getByLabelText('Name of header 1'), 'Authorization');
    await userEvent.type(within(dialog).getByLabelText('Value of header 1'), 'Bearer x');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));
    expect(engine.api.addMcpServer).toHaveBeenCalledWith({
      name: 'remote',
      transport: 'http',
      url: 'https://tools.example.com/mcp',
      headers: { Authorization: 'Bearer x' },
      access: 'read_write',
    });
    expect(within(await server('remote')).getByText('https://tools.example.com/mcp')).toBeInTheDocument();
  });

  it("shows the engine's refusal under the form", async () => {
    setup();
    await userEvent.click(await screen.findByRole('button', { name: 'Add a server' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a tool server' });
    await userEvent.type(within(dialog).getByLabelText('Name'), 'bad name');
    await userEvent.type(within(dialog).getByLabelText('Command'), 'node');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add server' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Give the server a short name made of letters, digits, - or _ (at most 40).',
    );
  });

  it('marks the values a server still needs and saves them behind its key button', async () => {
    const { engine } = setup([
      makeServer({
        name: 'files',
        env_keys: ['API_KEY', 'ROOT'],
        missing_values: ['API_KEY'],
        status: 'error',
        error: 'This server needs API_KEY before it can start. Fill them in with the key button on the server.',
        tools: [],
      }),
    ]);
    const card = await server('files');
    expect(within(card).getByTestId('missing')).toHaveTextContent('Needs API_KEY.');
    expect(within(card).getByTestId('server-error')).toHaveTextContent('This server needs API_KEY before it can start.');
    await userEvent.click(within(card).getByRole('button', { name: 'Keys for files' }));
    const dialog = await screen.findByRole('dialog', { name: 'Keys for files' });
    const key = within(dialog).getByLabelText(/API_KEY/);
    expect(key).toHaveAttribute('type', 'password');
    expect(key).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByLabelText(/ROOT/)).not.toHaveAttribute('aria-invalid');
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
    await userEvent.type(key, 'k-1');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(engine.api.setMcpValues).toHaveBeenCalledWith('files', { API_KEY: 'k-1' }, undefined);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(within(await server('files')).queryByTestId('missing')).toBeNull();
    expect(within(await server('files')).getByTestId('status')).toHaveTextContent('Connected');
  });

  it('turns a server off and on, and to Read only', async () => {
    const { engine } = setup([makeServer({ name: 'everything' })]);
    const card = await server('everything');
    await userEvent.click(within(card).getByRole('switch', { name: /^On/ }));
    expect(engine.api.setMcpEnabled).toHaveBeenCalledWith('everything', false);
    await waitFor(() => expect(within(card).getByTestId('status')).toHaveTextContent('Off'));
    expect(within(card).getByRole('button', { name: 'Test everything' })).toBeDisabled();
    await userEvent.click(within(card).getByRole('switch', { name: /^On/ }));
    expect(engine.api.setMcpEnabled).toHaveBeenLastCalledWith('everything', true);
    await userEvent.click(within(card).getByRole('switch', { name: /Read only/ }));
    expect(engine.api.setMcpAccess).toHaveBeenCalledWith('everything', 'read');
    await waitFor(() => expect(within(card).getByRole('switch', { name: /Read only/ })).toBeChecked());
  });

  it('keeps Read only on when a list read before the change arrives after it', async () => {
    const { engine } = setup([makeServer({ name: 'everything' })]);
    const card = await server('everything');
    const answer = await startLateListRead(engine);
    await userEvent.click(within(card).getByRole('switch', { name: /Read only/ }));
    expect(engine.api.setMcpAccess).toHaveBeenCalledWith('everything', 'read');
    await waitFor(() => expect(within(card).getByRole('switch', { name: /Read only/ })).not.toBeDisabled());
    answer();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(within(card).getByRole('switch', { name: /Read only/ })).toBeChecked();
  });

  it('keeps a removed server gone when a list read before the removal arrives after it', async () => {
    const { engine } = setup([makeServer({ name: 'everything' })]);
    await server('everything');
    const answer = await startLateListRead(engine);
    await userEvent.click(within(await server('everything')).getByRole('button', { name: 'Remove everything' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Remove everything?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(NO_SERVERS)).toBeInTheDocument();
    answer();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.getByText(NO_SERVERS)).toBeInTheDocument();
  });

  it('tests a server', async () => {
    const { engine } = setup([makeServer({ name: 'everything' })]);
    await userEvent.click(within(await server('everything')).getByRole('button', { name: 'Test everything' }));
    expect(engine.api.testMcpServer).toHaveBeenCalledWith('everything');
    expect(await screen.findByTestId('test-result')).toHaveTextContent('Works: 2 tools.');
  });

  it('removes a server after a confirm', async () => {
    const { engine } = setup([makeServer({ name: 'everything' })]);
    await userEvent.click(within(await server('everything')).getByRole('button', { name: 'Remove everything' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Remove everything?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Remove' }));
    expect(engine.api.removeMcpServer).toHaveBeenCalledWith('everything');
    expect(await screen.findByText(NO_SERVERS)).toBeInTheDocument();
  });
});

// Settings > Webhooks against the fake engine: make a hook and see its address, secret and a
// curl line once; the list with calls and the last call; delete after a confirm.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../App';
import { ApiError } from '../../../api/errors';
import type { Hook } from '../../../api';
import { fakeApi, makeBootstrap, makeHook } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { settingsTabFromHash } from '../tabs';
import { curlLine } from './curl';

function setup(hooks: Hook[] = []) {
  window.location.hash = '#/settings/webhooks';
  const engine = fakeApi(makeBootstrap());
  engine.setHooks(hooks);
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

afterEach(() => {
  window.location.hash = '';
  vi.unstubAllGlobals();
});

describe('Settings > Webhooks', () => {
  it('has its own tab in the address', () => {
    expect(settingsTabFromHash('#/settings/webhooks')).toBe('webhooks');
    expect(settingsTabFromHash('#/settings/models')).toBe('models');
    expect(settingsTabFromHash('#/settings/nope')).toBe('general');
  });

  it('builds a curl line that survives quotes', () => {
    expect(curlLine('http://127.0.0.1:1/hooks/h1', 's3cret')).toBe(
      `curl -X POST -H 'X-Sentient-Secret: s3cret' -H 'Content-Type: application/json' -d '{"status":"failed"}' 'http://127.0.0.1:1/hooks/h1'`,
    );
    expect(curlLine('u', "a'b")).toContain(`'X-Sentient-Secret: a'\\''b'`);
  });

  it('makes a hook and shows its secret once, with copy buttons and a curl line', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(window.navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { engine } = setup();
    expect(await screen.findByText(/No webhooks yet/)).toBeInTheDocument();
    await userEvent.type(screen.getByRole('textbox', { name: 'Name' }), '  Build server ');
    await userEvent.click(screen.getByRole('button', { name: 'Create webhook' }));
    expect(engine.api.createHook).toHaveBeenCalledWith('Build server');

    const made = await screen.findByTestId('hook-secret');
    expect(within(made).getByTestId('hook-url')).toHaveTextContent('http://127.0.0.1:4321/hooks/h1');
    expect(within(made).getByTestId('hook-secret-value')).toHaveTextContent('secret-h1');
    expect(within(made).getByTestId('hook-curl')).toHaveTextContent(
      `curl -X POST -H 'X-Sentient-Secret: secret-h1' -H 'Content-Type: application/json' -d '{"status":"failed"}' 'http://127.0.0.1:4321/hooks/h1'`,
    );
    await userEvent.click(within(made).getByRole('button', { name: 'Copy the secret' }));
    expect(writeText).toHaveBeenCalledWith('secret-h1');
    expect(await within(made).findByText('Copied')).toBeInTheDocument();

    // Listed, never with its secret.
    const row = await screen.findByTestId('hook-row');
    expect(row).toHaveTextContent('Build server');
    expect(row).toHaveTextContent('Not called yet');
    expect(row).not.toHaveTextContent('secret-h1');

    await userEvent.click(within(made).getByRole('button', { name: "I've copied it" }));
    expect(screen.queryByTestId('hook-secret')).toBeNull();
    expect(screen.queryByText('secret-h1')).toBeNull();
  });

  it('says why a hook could not be made, and refuses names over 80 characters', async () => {
    const { engine } = setup();
    await screen.findByText(/No webhooks yet/);
    await userEvent.type(screen.getByRole('textbox', { name: 'Name' }), 'x'.repeat(81));
    expect(screen.getByRole('button', { name: 'Create webhook' })).toBeDisabled();
    expect(screen.getByText('A name can be at most 80 characters.')).toBeInTheDocument();
    await userEvent.clear(screen.getByRole('textbox', { name: 'Name' }));
    engine.api.createHook.mockRejectedValueOnce(new ApiError(400, 'A hook needs a name.'));
    await userEvent.type(screen.getByRole('textbox', { name: 'Name' }), 'CI');
    await userEvent.click(screen.getByRole('button', { name: 'Create webhook' }));
    expect(await screen.findByText("Couldn't make the webhook. A hook needs a name.")).toBeInTheDocument();
  });

  it('lists hooks with their calls and last call, and deletes one after a confirm', async () => {
    const { engine } = setup([
      makeHook({ id: 'h1', name: 'CI', calls: 3, last_called_at: '2030-05-04T09:30:00Z' }),
      makeHook({ id: 'h2', name: 'Home hub', calls: 1 }),
    ]);
    const rows = await screen.findAllByTestId('hook-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByTestId('hook-calls')).toHaveTextContent(/^3 calls · last /);
    expect(within(rows[1]).getByTestId('hook-calls')).toHaveTextContent('1 call');

    await userEvent.click(screen.getByRole('button', { name: 'Delete CI' }));
    expect(engine.api.deleteHook).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Yes, delete it' }));
    expect(engine.api.deleteHook).toHaveBeenCalledWith('h1');
    await waitFor(() => expect(screen.getAllByTestId('hook-row')).toHaveLength(1));
    expect(screen.getByTestId('hook-row')).toHaveTextContent('Home hub');
  });
});

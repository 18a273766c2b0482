// Settings > Browser: the status line in plain words, every browser setting from the schema, the
// site lists, and the profiles: add (attach needs its address), rename, delete with a confirm,
// and Open to sign in.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../App';
import { ApiError } from '../../../api/errors';
import { CONFIG_SCHEMA, fakeApi, makeBootstrap } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';

afterEach(() => {
  window.location.hash = '';
});

function open() {
  window.location.hash = '#/settings/browser';
  const engine = fakeApi(makeBootstrap());
  engine.api.configSchema.mockResolvedValue(CONFIG_SCHEMA);
  renderWithApi(<App />, engine.api);
  return engine;
}

describe('Settings > Browser', () => {
  it('says which browser it uses, and saves a setting from the schema and the site lists', async () => {
    const engine = open();
    expect((await screen.findByTestId('browser-status')).textContent).toBe(
      'The assistant uses Chromium when a site has no app of its own. It opens on first use and closes when idle.',
    );
    await userEvent.click(await screen.findByRole('switch', { name: 'Keep the browser window hidden' }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ browser: { headless: false } });
    expect(screen.getByRole('spinbutton', { name: 'Close the hidden browser after' })).toBeInTheDocument();
    const sites = screen.getByTestId('browser-sites');
    await userEvent.type(within(sites).getByLabelText('Never these sites'), 'example.com{Enter}ads.example.net');
    await userEvent.click(within(sites).getByRole('button', { name: 'Save the site lists' }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ browser: { allow_domains: [], block_domains: ['example.com', 'ads.example.net'] } });
  });

  it('says in plain words why the browser cannot be used', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.configSchema.mockResolvedValue(CONFIG_SCHEMA);
    engine.api.browserStatus.mockResolvedValue({
      available: false,
      running: false,
      engine: null,
      headless: true,
      tabs: [],
      error: 'No supported browser is installed. Install Microsoft Edge, Google Chrome or Chromium, then try again.',
      profile: 'default',
      attached: false,
      needs_you: null,
    });
    window.location.hash = '#/settings/browser';
    renderWithApi(<App />, engine.api);
    const line = await screen.findByTestId('browser-status');
    expect(line).toHaveAttribute('role', 'alert');
    expect(line).toHaveTextContent('No supported browser is installed.');
  });

  it('adds, renames, opens and deletes profiles, and shows why one was refused', async () => {
    const engine = open();
    const card = await screen.findByTestId('browser-profiles');
    await within(card).findByText('default');
    // default can be opened but not renamed or deleted.
    expect(within(card).queryByRole('button', { name: 'Delete default' })).toBeNull();

    const form = within(card).getByRole('form', { name: 'Add a profile' });
    await userEvent.type(within(form).getByLabelText('Name'), 'X growth');
    await userEvent.type(within(form).getByLabelText('Notes'), 'the second account');
    await userEvent.click(within(form).getByRole('button', { name: 'Add profile' }));
    expect(engine.api.addBrowserProfile).toHaveBeenCalledWith({ name: 'X growth', kind: 'launch', endpoint: null, notes: 'the second account', engine: null });
    const row = await within(card).findByText('x-growth');
    expect(row.closest('li')).toHaveTextContent('the second account');

    // An attach profile asks for its address; the engine's refusal is shown as said.
    await userEvent.selectOptions(within(form).getByLabelText('Kind'), 'attach');
    engine.api.addBrowserProfile.mockRejectedValueOnce(new ApiError(409, "192.168.1.5 isn't on this computer. Sentient only connects to a browser running here (localhost or 127.0.0.1)."));
    await userEvent.type(within(form).getByLabelText('Name'), 'Mine');
    await userEvent.type(within(form).getByLabelText('Debugging address on this computer'), '192.168.1.5:9222');
    await userEvent.click(within(form).getByRole('button', { name: 'Add profile' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent("192.168.1.5 isn't on this computer.");

    await userEvent.click(within(card).getByRole('button', { name: 'Rename x-growth' }));
    const name = within(card).getByLabelText('New name');
    await userEvent.clear(name);
    await userEvent.type(name, 'growth');
    await userEvent.click(within(card).getByRole('button', { name: 'Rename' }));
    expect(engine.api.changeBrowserProfile).toHaveBeenCalledWith('x-growth', { name: 'growth' });
    await within(card).findByText('growth');

    const growth = within(card).getAllByTestId('browser-profile').find((li) => li.dataset.profile === 'growth');
    if (!growth) throw new Error('no growth row');
    await userEvent.click(within(growth).getByRole('button', { name: 'Open to sign in' }));
    expect(engine.api.openBrowser).toHaveBeenCalledWith('growth');
    expect(await screen.findByTestId('browser-status')).toHaveTextContent('Chromium is open with the growth profile, 1 tab.');

    await userEvent.click(within(growth).getByRole('button', { name: 'Delete growth' }));
    await userEvent.click(within(growth).getByRole('button', { name: 'Yes, delete it' }));
    expect(engine.api.deleteBrowserProfile).toHaveBeenCalledWith('growth');
    await screen.findByTestId('browser-profiles');
    expect(within(card).queryByText('growth')).toBeNull();
  });
});

// The Integrations page against the fake engine: apps grouped with their badges; loading and
// error states; the connect dialog made from the setup fields, the engine's sentence under it, a
// browser sign-in and GitHub's device code with Copy; Read only, Test, Disconnect after a confirm,
// tools with their risks, the feed's Sync now, privacy filter chips, and a live update.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../App';
import type { FeedStatus, Integration } from '../../api/calls';
import { ApiError } from '../../api/errors';
import { fakeApi, makeBootstrap } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { ACCUWEATHER, GITHUB, GMAIL, IMAP, installIntegrations, makeFeed, SLACK, WEATHER, WEB } from './fakeIntegrations';

function setup(initial: Parameters<typeof installIntegrations>[1] = {}) {
  window.location.hash = '#/integrations';
  const engine = fakeApi(makeBootstrap());
  const world = installIntegrations(engine, initial);
  const view = renderWithApi(<App />, engine.api);
  return { engine, world, ...view };
}

afterEach(() => {
  window.location.hash = '';
});

/** An app's card, found by its name. */
const card = async (name: string) => screen.findByRole('listitem', { name });

describe('the Integrations page', () => {
  it('groups the apps by kind, each with its state', async () => {
    setup({
      apps: [
        { ...IMAP, connected: true, status: 'connected', account_label: 'ada@example.com' },
        { ...GITHUB, status: 'error', error: 'GitHub refused the token. Paste a new one.' },
        GMAIL,
        SLACK,
        WEB,
        { ...GITHUB, id: 'mcp_files', display_name: 'files', auth_type: 'mcp', category: 'utilities' },
      ],
    });
    const communication = await screen.findByRole('list', { name: 'Communication' });
    expect(within(communication).getAllByRole('listitem').map((li) => li.getAttribute('aria-label'))).toEqual([
      'Email (IMAP)',
      'Gmail',
      'Slack',
    ]);
    expect(screen.getByRole('heading', { name: 'Development' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Built in' })).toBeInTheDocument();
    // Tool servers are listed in their own section, not among the apps.
    expect(screen.queryByRole('listitem', { name: 'files' })).toBeNull();

    expect(within(await card('Email (IMAP)')).getByTestId('status')).toHaveTextContent('Connected · ada@example.com');
    expect(within(await card('Gmail')).getByTestId('status')).toHaveTextContent('Not connected');
    expect(within(await card('Web pages')).getByTestId('status')).toHaveTextContent('Always on');
    const github = await card('GitHub');
    expect(within(github).getByTestId('status')).toHaveTextContent('Error');
    expect(within(github).getByRole('alert')).toHaveTextContent('GitHub refused the token. Paste a new one.');
    expect(within(github).getByRole('button', { name: 'Try again to connect GitHub' })).toHaveTextContent('Try again');
    expect(screen.getByTestId('summary')).toHaveTextContent('1 app connected.');
  });

  it('shows apps this version cannot connect as Not available yet, with no Connect', async () => {
    setup();
    const slack = await card('Slack');
    expect(within(slack).getByTestId('status')).toHaveTextContent('Not available yet');
    expect(within(slack).getByTestId('not-available')).toHaveTextContent("Slack isn't available in this version of Sentient yet.");
    expect(within(slack).queryByRole('button')).toBeNull();
    expect(within(slack).queryByRole('switch')).toBeNull();
  });

  it('says when the apps are loading, and when they cannot be read', async () => {
    window.location.hash = '#/integrations';
    const engine = fakeApi(makeBootstrap());
    installIntegrations(engine);
    engine.api.listIntegrations.mockImplementationOnce(() => new Promise(() => {}));
    const first = renderWithApi(<App />, engine.api);
    expect(await screen.findByText('Loading apps…')).toBeInTheDocument();
    first.unmount();

    engine.api.listIntegrations.mockRejectedValueOnce(new ApiError(500, 'Something went wrong inside Sentient. Try again in a moment.'));
    renderWithApi(<App />, engine.api);
    expect(await screen.findByText("Couldn't load your apps. Something went wrong inside Sentient. Try again in a moment.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await card('Gmail')).toBeInTheDocument();
  });
});

describe('connecting an app', () => {
  it('builds the dialog from the setup fields', async () => {
    setup();
    await userEvent.click(within(await card('Email (IMAP)')).getByRole('button', { name: 'Connect Email (IMAP)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect Email (IMAP)' });
    // Email starts with two fields, the first one focused; the full form is one click away.
    expect(within(dialog).getByLabelText('Email address')).toHaveFocus();
    await userEvent.click(within(dialog).getByRole('button', { name: 'More settings' }));
    const host = within(dialog).getByLabelText(/IMAP server/);
    expect(host).toHaveAttribute('type', 'text');
    expect(host).not.toHaveAttribute('aria-required');
    expect(host).toHaveAccessibleDescription('Left empty, Sentient finds it from your address.');
    expect(within(dialog).getByLabelText(/Email address/)).toHaveAttribute('aria-required', 'true');
    const port = within(dialog).getByLabelText(/Port/);
    expect(port).not.toHaveAttribute('aria-required');
    expect(within(dialog).getAllByText('(optional)', { exact: false })).toHaveLength(2);
    // Secrets are masked.
    expect(within(dialog).getByLabelText(/App password/)).toHaveAttribute('type', 'password');
    // The setup steps, as a list, with a link that opens elsewhere (code stays code).
    const steps = within(dialog).getAllByRole('listitem');
    expect(steps.map((s) => s.textContent)).toEqual(['Find your server names.', 'Create an app password.']);
    expect(within(dialog).getByRole('link', { name: 'the guide' })).toHaveAttribute('target', '_blank');
    expect(within(dialog).getByText('imap.example.com').tagName).toBe('CODE');
    // Escape closes it.
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('links to the provider guide in a new tab and masks secrets', async () => {
    setup();
    await userEvent.click(within(await card('Gmail')).getByRole('button', { name: 'Connect Gmail' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect Gmail' });
    const guide = within(dialog).getByRole('link', { name: "Open Gmail's setup guide" });
    expect(guide).toHaveAttribute('href', 'https://developers.google.com/gmail/api/quickstart');
    expect(guide).toHaveAttribute('target', '_blank');
    expect(within(dialog).getByText('Desktop app').tagName).toBe('STRONG');
    expect(within(dialog).getByLabelText(/OAuth Client secret/)).toHaveAttribute('type', 'password');
  });

  it("shows the engine's sentence under the form", async () => {
    const { engine } = setup();
    await userEvent.click(within(await card('Email (IMAP)')).getByRole('button', { name: 'Connect Email (IMAP)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect Email (IMAP)' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'More settings' }));
    await userEvent.type(within(dialog).getByLabelText(/Email address/), 'ada@example.com');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Enter the App password.');
    expect(engine.api.connectIntegration).toHaveBeenCalledWith(
      'email_imap',
      { host: '', port: '', username: 'ada@example.com', password: '' },
      'read_write',
    );
    // Still open, to fix and try again.
    expect(screen.getByRole('dialog', { name: 'Connect Email (IMAP)' })).toBeInTheDocument();
  });

  it('connects with the fields and Read only, and says so', async () => {
    const { engine } = setup();
    await userEvent.click(within(await card('Email (IMAP)')).getByRole('button', { name: 'Connect Email (IMAP)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect Email (IMAP)' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'More settings' }));
    await userEvent.type(within(dialog).getByLabelText(/IMAP server/), 'imap.example.com');
    await userEvent.type(within(dialog).getByLabelText(/Email address/), 'ada@example.com');
    await userEvent.type(within(dialog).getByLabelText(/App password/), 'secret');
    await userEvent.click(within(dialog).getByRole('switch', { name: /Read only/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await screen.findByRole('dialog', { name: 'Email (IMAP) is connected' })).toHaveTextContent(
      'Sentient is signed in as ada@example.com.',
    );
    expect(engine.api.connectIntegration).toHaveBeenCalledWith(
      'email_imap',
      { host: 'imap.example.com', port: '', username: 'ada@example.com', password: 'secret' },
      'read',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    const imap = await card('Email (IMAP)');
    expect(within(imap).getByTestId('status')).toHaveTextContent('Connected · ada@example.com');
    expect(within(imap).getByRole('switch', { name: /Read only/ })).toBeChecked();
  });

  it('opens a browser sign-in and waits for it, with Cancel', async () => {
    const { engine, world } = setup();
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    engine.api.connectIntegration.mockImplementationOnce(async () => {
      world.setApp({ ...GMAIL, status: 'connecting' });
      return { auth_url: 'https://accounts.google.com/o/oauth2/auth?x=1', state: 's1' };
    });
    await userEvent.click(within(await card('Gmail')).getByRole('button', { name: 'Connect Gmail' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect Gmail' });
    await userEvent.type(within(dialog).getByLabelText(/OAuth Client ID/), 'id');
    await userEvent.type(within(dialog).getByLabelText(/OAuth Client secret/), 'secret');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    const signIn = await screen.findByRole('dialog', { name: 'Sign in to Gmail' });
    expect(signIn).toHaveTextContent('Finish signing in in your browser.');
    expect(open).toHaveBeenCalledWith('https://accounts.google.com/o/oauth2/auth?x=1', '_blank', 'noopener,noreferrer');
    expect(within(signIn).getByRole('link', { name: 'open the sign-in page' })).toHaveAttribute(
      'href',
      'https://accounts.google.com/o/oauth2/auth?x=1',
    );
    // The card behind says it is connecting; Cancel stops waiting and puts it back.
    await waitFor(() => expect(screen.getByRole('listitem', { name: 'Gmail' })).toHaveAttribute('data-status', 'connecting'));
    await userEvent.click(within(signIn).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(engine.api.cancelConnect).toHaveBeenCalledWith('gmail');
    expect(engine.api.disconnectIntegration).not.toHaveBeenCalled();
    await waitFor(() => expect(within(screen.getByRole('listitem', { name: 'Gmail' })).getByTestId('status')).toHaveTextContent('Not connected'));
    expect(screen.getByRole('listitem', { name: 'Gmail' })).toHaveAttribute('data-status', 'disconnected');
  });

  it("shows GitHub's device code with Copy, and turns connected live", async () => {
    const user = userEvent.setup();
    const { engine } = setup();
    engine.api.connectIntegration.mockImplementationOnce(async () => ({
      auth_url: 'https://github.com/login/device',
      state: 's2',
      user_code: 'WDJB-MJHT',
    }));
    await user.click(within(await card('GitHub')).getByRole('button', { name: 'Connect GitHub' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect GitHub' });
    await user.click(within(dialog).getByRole('button', { name: 'Connect' }));
    const signIn = await screen.findByRole('dialog', { name: 'Sign in to GitHub' });
    expect(within(signIn).getByTestId('user-code')).toHaveTextContent('WDJB-MJHT');
    expect(within(signIn).getByRole('link', { name: 'Open github.com/login/device' })).toHaveAttribute(
      'href',
      'https://github.com/login/device',
    );
    await user.click(within(signIn).getByRole('button', { name: 'Copy the code' }));
    expect(await navigator.clipboard.readText()).toBe('WDJB-MJHT');
    expect(within(signIn).getByRole('button', { name: 'Copy the code' })).toHaveTextContent('Copied');

    // The sign-in finishes in the background: the app arrives as integration.updated.
    const connected: Integration = { ...GITHUB, connected: true, status: 'connected', account_label: 'octocat' };
    act(() => engine.emit('integration.updated', connected));
    expect(await screen.findByRole('dialog', { name: 'GitHub is connected' })).toHaveTextContent('Sentient is signed in as octocat.');
  });
  it("says why a sign-in failed, once the engine says so, and lets you try again", async () => {
    const { engine, world } = setup({ apps: [{ ...GITHUB, status: 'error', error: 'The GitHub sign-in code expired. Connect again to get a new one.' }] });
    engine.api.connectIntegration.mockImplementationOnce(async () => {
      world.setApp({ ...GITHUB, status: 'connecting' });
      return { auth_url: 'https://github.com/login/device', state: 's3', user_code: 'AAAA-BBBB' };
    });
    await userEvent.click(within(await card('GitHub')).getByRole('button', { name: 'Try again to connect GitHub' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Connect GitHub' })).getByRole('button', { name: 'Connect' }));
    const signIn = await screen.findByRole('dialog', { name: 'Sign in to GitHub' });
    // The error from before this attempt is not this attempt's.
    expect(within(signIn).queryByRole('alert')).toBeNull();
    expect(within(signIn).getByText('Waiting for GitHub…')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('listitem', { name: 'GitHub' })).toHaveAttribute('data-status', 'connecting'));
    act(() => engine.emit('integration.updated', { ...GITHUB, status: 'error', error: 'The GitHub sign-in was cancelled.' }));
    expect(await within(signIn).findByRole('alert')).toHaveTextContent('The GitHub sign-in was cancelled.');
    await userEvent.click(within(signIn).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('dialog', { name: 'Connect GitHub' })).toBeInTheDocument();
  });
});

describe("a connected app's controls", () => {
  const connectedGithub: Integration = { ...GITHUB, connected: true, status: 'connected', account_label: 'octocat' };

  it('turns Read only on and off through the engine', async () => {
    const { engine } = setup({ apps: [connectedGithub] });
    const github = await card('GitHub');
    const toggle = within(github).getByRole('switch', { name: /Read only/ });
    expect(toggle).not.toBeChecked();
    expect(toggle).toHaveAccessibleDescription("Sentient can look things up but can't change, send or delete anything.");
    await userEvent.click(toggle);
    expect(engine.api.setIntegrationAccess).toHaveBeenCalledWith('github', 'read');
    await waitFor(() => expect(within(github).getByRole('switch', { name: /Read only/ })).toBeChecked());
    await userEvent.click(within(github).getByRole('switch', { name: /Read only/ }));
    expect(engine.api.setIntegrationAccess).toHaveBeenLastCalledWith('github', 'read_write');
  });

  it("shows the engine's refusal of Read only", async () => {
    const { engine } = setup({ apps: [connectedGithub] });
    engine.api.setIntegrationAccess.mockRejectedValueOnce(new ApiError(422, 'access must be read or read_write.'));
    await userEvent.click(within(await card('GitHub')).getByRole('switch', { name: /Read only/ }));
    expect(await screen.findByText("Couldn't change Read only. access must be read or read_write.")).toBeInTheDocument();
  });

  it('lists the tools with what each may do; under Read only the others are off', async () => {
    setup({ apps: [{ ...connectedGithub, access: 'read' }] });
    const github = await card('GitHub');
    await userEvent.click(within(github).getByRole('button', { name: 'What Sentient can do here (4)' }));
    const tools = within(github).getAllByTestId('tool');
    expect(tools.map((t) => within(t).getByTestId('risk').textContent)).toEqual([
      'Looks things up',
      'Changes things',
      'Sends',
      'Runs code',
    ]);
    expect(tools[0]).not.toHaveTextContent('Off while Read only is on.');
    expect(tools[1]).toHaveTextContent('Off while Read only is on.');
  });

  it('shows a built-in as always on with its tools, and its keyed alternative as a key to add', async () => {
    const { engine } = setup({ apps: [WEATHER, ACCUWEATHER] });
    const weather = await card('Weather');
    expect(within(weather).getByTestId('status')).toHaveTextContent('Always on');
    expect(within(weather).queryByRole('button', { name: /Connect/ })).toBeNull();
    await userEvent.click(within(weather).getByRole('button', { name: /What Sentient can do here \(2\)/ }));
    expect(within(weather).getAllByTestId('tool').map((t) => t.getAttribute('data-tool'))).toEqual(['weather_current', 'weather_forecast']);

    const accu = await card('AccuWeather');
    expect(within(accu).getByTestId('alternative-for')).toHaveTextContent('Weather works without it');
    expect(within(accu).queryByRole('switch', { name: /Read only/ })).toBeNull();
    await userEvent.click(within(accu).getByRole('button', { name: 'Connect AccuWeather' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect AccuWeather' });
    expect(within(dialog).queryByRole('switch', { name: /Read only/ })).toBeNull();
    await userEvent.type(within(dialog).getByLabelText(/API key/), 'k-123');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    await screen.findByRole('dialog', { name: 'AccuWeather is connected' });
    expect(engine.api.connectIntegration).toHaveBeenCalledWith('accuweather', { api_key: 'k-123' }, 'read_write');
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    const connected = await card('AccuWeather');
    expect(within(connected).getByTestId('alternative-for')).toHaveTextContent('Weather uses AccuWeather now');
    await userEvent.click(within(connected).getByRole('button', { name: 'Test AccuWeather' }));
    expect(engine.api.testIntegration).toHaveBeenCalledWith('accuweather');
  });

  it('tests the connection and shows the answer', async () => {
    const { engine } = setup({ apps: [connectedGithub] });
    await userEvent.click(within(await card('GitHub')).getByRole('button', { name: 'Test GitHub' }));
    expect(engine.api.testIntegration).toHaveBeenCalledWith('github');
    expect(await screen.findByTestId('test-result')).toHaveTextContent('Works: Signed in as octocat.');
  });

  it('disconnects after a confirm that says its tasks are turned off', async () => {
    const { engine } = setup({ apps: [connectedGithub] });
    const github = await card('GitHub');
    await userEvent.click(within(github).getByRole('button', { name: 'Disconnect GitHub' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Disconnect GitHub?' });
    expect(confirm).toHaveTextContent('Tasks that use GitHub will be turned off.');
    // Cancel keeps it.
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(engine.api.disconnectIntegration).not.toHaveBeenCalled();
    await userEvent.click(within(github).getByRole('button', { name: 'Disconnect GitHub' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Disconnect' }));
    expect(engine.api.disconnectIntegration).toHaveBeenCalledWith('github');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(within(await card('GitHub')).getByTestId('status')).toHaveTextContent('Not connected');
  });

  it('shows when the feed was checked, and Sync now', async () => {
    const now = Date.now();
    const feed: FeedStatus = makeFeed({ source: 'email_imap', display_name: 'Email (IMAP)', last_sync_at: new Date(now - 125_000).toISOString() });
    const { engine } = setup({ apps: [{ ...IMAP, connected: true, status: 'connected', account_label: 'ada' }], feeds: [feed] });
    const imap = await card('Email (IMAP)');
    expect(await within(imap).findByTestId('feed-status')).toHaveTextContent('Checked 2 min ago');
    await userEvent.click(within(imap).getByRole('button', { name: 'Sync now Email (IMAP)' }));
    expect(engine.api.syncFeed).toHaveBeenCalledWith('email_imap');
    expect(await within(imap).findByTestId('sync-result')).toHaveTextContent('Checked: 2 new items.');
  });

  it('adds and removes privacy filter chips, saving each change', async () => {
    const { engine } = setup({ apps: [{ ...IMAP, connected: true, status: 'connected' }] });
    const imap = await card('Email (IMAP)');
    await userEvent.click(within(imap).getByRole('button', { name: 'Privacy filters' }));
    const words = await within(imap).findByLabelText('Words');
    await userEvent.type(words, 'salary{Enter}');
    expect(engine.api.setPrivacyFilters).toHaveBeenCalledWith('email_imap', { keywords: ['salary'], emails: [], labels: [] });
    await userEvent.type(within(imap).getByLabelText('People'), 'doctor@example.com');
    await userEvent.click(within(within(imap).getByTestId('filter-emails')).getByRole('button', { name: 'Add' }));
    expect(engine.api.setPrivacyFilters).toHaveBeenLastCalledWith('email_imap', {
      keywords: ['salary'],
      emails: ['doctor@example.com'],
      labels: [],
    });
    await userEvent.click(within(imap).getByRole('button', { name: 'Remove salary' }));
    expect(engine.api.setPrivacyFilters).toHaveBeenLastCalledWith('email_imap', {
      keywords: [],
      emails: ['doctor@example.com'],
      labels: [],
    });
    await waitFor(() => expect(within(imap).queryByRole('button', { name: 'Remove salary' })).toBeNull());
  });

  it('follows integration.updated live', async () => {
    const { engine } = setup();
    const imap = await card('Email (IMAP)');
    expect(within(imap).getByTestId('status')).toHaveTextContent('Not connected');
    act(() =>
      engine.emit('integration.updated', { ...IMAP, status: 'error', error: 'The IMAP server refused the password. Make a new app password.' }),
    );
    expect(await within(imap).findByRole('alert')).toHaveTextContent('The IMAP server refused the password. Make a new app password.');
    expect(within(imap).getByTestId('status')).toHaveTextContent('Error');
  });
});

// Email (IMAP) in two fields: the address finds the servers and the provider's app-password page,
// Connect sends the address and the password only, "More settings" opens the full form filled
// with what was found, and a connect given up on leaves the card "Not connected", never Error.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../App';
import { fakeApi, makeBootstrap } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { GMAIL, IMAP, installIntegrations } from './fakeIntegrations';

function setup(initial: Parameters<typeof installIntegrations>[1] = {}) {
  window.location.hash = '#/integrations';
  const engine = fakeApi(makeBootstrap());
  const world = installIntegrations(engine, initial);
  renderWithApi(<App />, engine.api);
  return { engine, world };
}

afterEach(() => {
  window.location.hash = '';
});

const imapCard = () => screen.findByRole('listitem', { name: 'Email (IMAP)' });

async function openDialog() {
  await userEvent.click(within(await imapCard()).getByRole('button', { name: 'Connect Email (IMAP)' }));
  return screen.findByRole('dialog', { name: 'Connect Email (IMAP)' });
}

describe('connecting Email (IMAP)', () => {
  it('takes the address and an app password, shows what was found and sends the two fields only', async () => {
    const { engine } = setup();
    const dialog = await openDialog();
    // Two fields, no server names.
    expect(within(dialog).queryByLabelText(/IMAP server/)).toBeNull();
    expect(within(dialog).getAllByRole('textbox')).toHaveLength(1);
    await userEvent.type(within(dialog).getByLabelText('Email address'), 'ada@fastmail.com');
    await userEvent.click(within(dialog).getByLabelText('App password'));
    expect(engine.api.discoverEmail).toHaveBeenCalledWith('ada@fastmail.com');
    const found = await within(dialog).findByTestId('mail-servers');
    expect(found).toHaveTextContent('Fastmail: Sentient will sign in to imap.fastmail.com and send through smtp.fastmail.com.');
    const link = within(found).getByRole('link', { name: 'Make an app password for Fastmail' });
    expect(link).toHaveAttribute('href', 'https://app.fastmail.com/settings/security/apps');
    expect(link).toHaveAttribute('target', '_blank');
    expect(within(dialog).getByLabelText('App password')).toHaveAttribute('type', 'password');

    await userEvent.type(within(dialog).getByLabelText('App password'), 'abcd efgh');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await screen.findByRole('dialog', { name: 'Email (IMAP) is connected' })).toHaveTextContent(
      'Sentient is signed in as ada@fastmail.com.',
    );
    expect(engine.api.connectIntegration).toHaveBeenCalledTimes(1);
    expect(engine.api.connectIntegration).toHaveBeenCalledWith(
      'email_imap',
      { username: 'ada@fastmail.com', password: 'abcd efgh' },
      'read_write',
    );
    expect(engine.api.cancelConnect).not.toHaveBeenCalled();
  });

  it('opens the full form filled with the servers found under More settings', async () => {
    const { engine } = setup();
    const dialog = await openDialog();
    await userEvent.type(within(dialog).getByLabelText('Email address'), 'ada@fastmail.com');
    await userEvent.type(within(dialog).getByLabelText('App password'), 'pw');
    await within(dialog).findByTestId('mail-servers');
    await userEvent.click(within(dialog).getByRole('button', { name: 'More settings' }));
    expect(within(dialog).getByLabelText(/IMAP server/)).toHaveValue('imap.fastmail.com');
    expect(within(dialog).getByLabelText(/Port/)).toHaveValue('993');
    expect(within(dialog).getByLabelText(/Email address/)).toHaveValue('ada@fastmail.com');
    expect(within(dialog).getByLabelText(/App password/)).toHaveValue('pw');
    // A server changed by hand is what is sent.
    await userEvent.clear(within(dialog).getByLabelText(/IMAP server/));
    await userEvent.type(within(dialog).getByLabelText(/IMAP server/), 'imap.example.net');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    await screen.findByRole('dialog', { name: 'Email (IMAP) is connected' });
    expect(engine.api.connectIntegration).toHaveBeenCalledWith(
      'email_imap',
      { host: 'imap.example.net', port: '993', username: 'ada@fastmail.com', password: 'pw' },
      'read_write',
    );
  });

  it('says when no servers were found and offers to enter them', async () => {
    setup();
    const dialog = await openDialog();
    await userEvent.type(within(dialog).getByLabelText('Email address'), 'ada@nowhere.example');
    await userEvent.tab();
    const notFound = await within(dialog).findByTestId('mail-not-found');
    expect(notFound).toHaveTextContent("Sentient couldn't find the mail servers for nowhere.example. Enter them under More settings.");
    await userEvent.click(within(notFound).getByRole('button', { name: 'Enter the servers' }));
    expect(within(dialog).getByLabelText(/IMAP server/)).toHaveValue('');
    expect(within(dialog).getByLabelText(/Email address/)).toHaveValue('ada@nowhere.example');
  });

  it('puts the card back to Not connected when a failed connect is cancelled', async () => {
    const { engine } = setup();
    const dialog = await openDialog();
    await userEvent.type(within(dialog).getByLabelText('Email address'), 'ada@nowhere.example');
    await userEvent.type(within(dialog).getByLabelText('App password'), 'pw');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await within(dialog).findByText(/couldn't find the mail servers for nowhere\.example/, { selector: '.notice-error p' })).toBeInTheDocument();
    // Behind the dialog the failed attempt shows as an error…
    await waitFor(async () => expect(await imapCard()).toHaveAttribute('data-status', 'error'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(engine.api.cancelConnect).toHaveBeenCalledWith('email_imap');
    // …and Cancel puts it back as it was.
    await waitFor(async () => expect(await imapCard()).toHaveAttribute('data-status', 'disconnected'));
    expect(within(await imapCard()).getByTestId('status')).toHaveTextContent('Not connected');
    expect(within(await imapCard()).queryByTestId('app-error')).toBeNull();
  });

  it('leaves an error it did not cause alone when the dialog is closed untried', async () => {
    const { engine } = setup({ apps: [{ ...IMAP, status: 'error', error: 'The email server refused the password.' }] });
    await userEvent.click(within(await imapCard()).getByRole('button', { name: 'Try again to connect Email (IMAP)' }));
    await screen.findByRole('dialog', { name: 'Connect Email (IMAP)' });
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(engine.api.cancelConnect).not.toHaveBeenCalled();
    expect(await imapCard()).toHaveAttribute('data-status', 'error');
  });

  it('closes with Escape after a failed attempt as Cancel does', async () => {
    const { engine } = setup();
    const dialog = await openDialog();
    await userEvent.type(within(dialog).getByLabelText('Email address'), 'ada@nowhere.example');
    await userEvent.type(within(dialog).getByLabelText('App password'), 'pw');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));
    await waitFor(async () => expect(await imapCard()).toHaveAttribute('data-status', 'error'));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(engine.api.cancelConnect).toHaveBeenCalledWith('email_imap');
    await waitFor(async () => expect(await imapCard()).toHaveAttribute('data-status', 'disconnected'));
  });
});

describe('connecting Gmail with its client already there', () => {
  it('offers the sign-in first and keeps the client fields folded away', async () => {
    const builtIn = {
      ...GMAIL,
      setup: {
        ...GMAIL.setup,
        fields: GMAIL.setup.fields.map((f) => ({ ...f, required: false })),
        instructions_md: '1. Press Connect and sign in with your Google account in the browser.',
      },
    };
    const { engine } = setup({ apps: [builtIn] });
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    engine.api.connectIntegration.mockImplementationOnce(async () => ({ auth_url: 'https://accounts.google.com/o/oauth2/auth?x=2', state: 's' }));
    await userEvent.click(within(await screen.findByRole('listitem', { name: 'Gmail' })).getByRole('button', { name: 'Connect Gmail' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect Gmail' });
    expect(dialog).toHaveTextContent('Press Connect and sign in with your Google account in the browser.');
    const connect = within(dialog).getByRole('button', { name: 'Connect' });
    expect(connect).toHaveFocus();
    const clientId = within(dialog).getByLabelText(/OAuth Client ID/);
    expect(clientId.closest('details')).not.toHaveAttribute('open');
    expect(within(dialog).getByText('Use your own OAuth client').tagName).toBe('SUMMARY');
    await userEvent.click(connect);
    await screen.findByRole('dialog', { name: 'Sign in to Gmail' });
    expect(engine.api.connectIntegration).toHaveBeenCalledWith('gmail', { client_id: '', client_secret: '' }, 'read_write');
    expect(open).toHaveBeenCalledWith('https://accounts.google.com/o/oauth2/auth?x=2', '_blank', 'noopener,noreferrer');
    open.mockRestore();
  });
});

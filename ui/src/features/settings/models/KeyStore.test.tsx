// Where keys are kept: on a computer with no keychain the first save offers the choice (install
// one, with its command and Check again, or keep keys in a private file), and the save goes
// through once chosen, in Settings > Models and onboarding's cloud-key path alike; Settings shows
// the store in use and moves the keys to a keychain that appeared.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ApiError, type StoreStatus } from '../../../api';
import { fakeApi, KEYCHAIN_STORE, makeBootstrap } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { App } from '../../../App';
import { ACCUWEATHER, installIntegrations, makeServer, WEATHER } from '../../integrations/fakeIntegrations';
import { ModelStep } from '../../onboarding/ModelStep';
import { ModelsSettings } from './ModelsSettings';

const NO_KEYCHAIN: StoreStatus = {
  store: 'keychain',
  keychain: 'missing',
  file: null,
  file_possible: true,
  install_command: 'sudo apt-get install gnome-keyring',
  can_move_to_keychain: false,
};

const IN_FILE: StoreStatus = {
  store: 'file',
  keychain: 'missing',
  file: '/home/ada/.sentient/secrets.enc',
  file_possible: true,
  install_command: 'sudo apt-get install gnome-keyring',
  can_move_to_keychain: false,
};

const NO_KEYCHAIN_SENTENCE = "Sentient can't reach this computer's keychain, so it can't store keys there.";

/** An engine with no keychain: saves fail until the file is chosen or a keychain appears. */
function noKeychain() {
  const engine = fakeApi(makeBootstrap());
  let status: StoreStatus = NO_KEYCHAIN;
  engine.api.secretsStore.mockImplementation(async () => status);
  engine.api.setSecret.mockImplementation(async () => {
    if (status.store === 'keychain' && status.keychain !== 'available') throw new ApiError(500, NO_KEYCHAIN_SENTENCE);
    return { ok: true };
  });
  engine.api.chooseSecretsStore.mockImplementation(async (store) => {
    status = store === 'file' ? IN_FILE : KEYCHAIN_STORE;
    return { moved: 0, status };
  });
  return {
    engine,
    set: (next: StoreStatus) => {
      status = next;
    },
  };
}

async function saveOpenAiKey(value: string) {
  const picker = await screen.findByRole('combobox', { name: 'Add another provider' });
  await userEvent.selectOptions(picker, within(picker).getByRole('option', { name: 'OpenAI' }));
  await userEvent.click(within(screen.getByTestId('add-provider')).getByRole('button', { name: 'Add' }));
  const card = await screen.findByTestId('key-openai');
  await userEvent.type(within(card).getByLabelText('OpenAI key'), value);
  await userEvent.click(within(card).getByRole('button', { name: 'Save key' }));
  return card;
}

describe('the first save on a computer with no keychain', () => {
  it('offers the two ways forward, and saves the key in the private file once chosen', async () => {
    const { engine } = noKeychain();
    const { container } = renderWithApi(<ModelsSettings />, engine.api);
    const card = await saveOpenAiKey('sk-proj-SECRET-1');

    const choice = await within(card).findByTestId('key-store-choice');
    expect(within(choice).getByRole('heading', { name: 'Where should Sentient keep your keys?' })).toBeInTheDocument();
    expect(within(choice).getByTestId('install-command')).toHaveTextContent('sudo apt-get install gnome-keyring');
    expect(within(choice).getByRole('button', { name: 'Copy the command' })).toBeInTheDocument();
    expect(within(choice).getByRole('button', { name: 'Check again' })).toBeInTheDocument();
    // The choice replaces the dead end: the raw error is not shown beside it.
    expect(within(card).queryByRole('alert')).toBeNull();

    await userEvent.click(within(choice).getByRole('button', { name: 'Keep keys in a private file' }));
    expect(engine.api.chooseSecretsStore).toHaveBeenCalledWith('file');
    // The same key is saved again, now into the file.
    await waitFor(() => expect(engine.api.setSecret).toHaveBeenCalledTimes(2));
    expect(engine.api.setSecret).toHaveBeenLastCalledWith('openai', 'sk-proj-SECRET-1');
    await within(card).findByText('Saved.');
    expect(within(card).queryByTestId('key-store-choice')).toBeNull();
    // Settings now says where the keys are.
    await waitFor(() =>
      expect(screen.getByTestId('key-store-card')).toHaveTextContent('In a private file on this computer'),
    );
    expect(container.innerHTML).not.toContain('SECRET');
  });

  it('checks again, says when there is still no keychain, and saves once one answers', async () => {
    const { engine, set } = noKeychain();
    renderWithApi(<ModelsSettings />, engine.api);
    const card = await saveOpenAiKey('sk-proj-2');
    const choice = await within(card).findByTestId('key-store-choice');

    await userEvent.click(within(choice).getByRole('button', { name: 'Check again' }));
    expect(await within(choice).findByText('Still no keychain on this computer.')).toBeInTheDocument();
    expect(engine.api.setSecret).toHaveBeenCalledTimes(1);

    set(KEYCHAIN_STORE);
    await userEvent.click(within(choice).getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(engine.api.setSecret).toHaveBeenCalledTimes(2));
    await within(card).findByText('Saved.');
    expect(engine.api.chooseSecretsStore).not.toHaveBeenCalled();
  });

  it('asks to unlock a locked keychain and offers no file beside it', async () => {
    const { engine, set } = noKeychain();
    set({ ...NO_KEYCHAIN, keychain: 'locked', file_possible: false, install_command: null });
    renderWithApi(<ModelsSettings />, engine.api);
    const card = await saveOpenAiKey('sk-proj-3');
    const choice = await within(card).findByTestId('key-store-choice');
    expect(choice).toHaveTextContent("This computer's keychain is locked");
    expect(within(choice).queryByRole('button', { name: 'Keep keys in a private file' })).toBeNull();
    expect(within(choice).getByRole('button', { name: 'Check again' })).toBeInTheDocument();
  });

  it('leaves other failures as they are', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.setSecret.mockRejectedValueOnce(new ApiError(500, 'Something went wrong inside Sentient.'));
    renderWithApi(<ModelsSettings />, engine.api);
    const card = await saveOpenAiKey('sk-proj-4');
    expect(await within(card).findByRole('alert')).toHaveTextContent("Couldn't save the key. Something went wrong inside Sentient.");
    expect(within(card).queryByTestId('key-store-choice')).toBeNull();
  });

  it("gives onboarding's cloud-key path the same choice, and goes on to check the key", async () => {
    const { engine } = noKeychain();
    engine.api.localModels.mockResolvedValue({ ollama: { reachable: false, models: [] }, lm_studio: { reachable: false, models: [] } });
    renderWithApi(<ModelStep />, engine.api);
    await userEvent.click(await screen.findByRole('radio', { name: /With a cloud key/ }));
    const panel = await screen.findByTestId('cloud-setup');
    await userEvent.type(within(panel).getByLabelText('Anthropic key'), 'sk-ant-5');
    await userEvent.click(within(panel).getByRole('button', { name: 'Check' }));

    const choice = await within(panel).findByTestId('key-store-choice');
    expect(engine.api.testModel).not.toHaveBeenCalled();
    await userEvent.click(within(choice).getByRole('button', { name: 'Keep keys in a private file' }));
    await waitFor(() => expect(engine.api.setSecret).toHaveBeenCalledTimes(2));
    expect(engine.api.setSecret).toHaveBeenLastCalledWith('anthropic', 'sk-ant-5');
    await waitFor(() => expect(engine.api.testModel).toHaveBeenCalled());
  });

  it('gives a keyed app the same choice instead of an error, and connects once chosen', async () => {
    const { engine } = noKeychain();
    installIntegrations(engine, { apps: [WEATHER, ACCUWEATHER] });
    engine.api.connectIntegration.mockRejectedValueOnce(new ApiError(500, NO_KEYCHAIN_SENTENCE));
    window.location.hash = '#/integrations';
    try {
      renderWithApi(<App />, engine.api);
      const accu = await screen.findByRole('listitem', { name: 'AccuWeather' });
      await userEvent.click(within(accu).getByRole('button', { name: 'Connect AccuWeather' }));
      const dialog = await screen.findByRole('dialog', { name: 'Connect AccuWeather' });
      await userEvent.type(within(dialog).getByLabelText(/API key/), 'k-123');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Connect' }));

      const choice = await within(dialog).findByTestId('key-store-choice');
      expect(within(dialog).queryByRole('alert')).toBeNull();
      await userEvent.click(within(choice).getByRole('button', { name: 'Keep keys in a private file' }));
      await screen.findByRole('dialog', { name: 'AccuWeather is connected' });
      expect(engine.api.connectIntegration).toHaveBeenCalledTimes(2);
      expect(engine.api.connectIntegration).toHaveBeenLastCalledWith('accuweather', { api_key: 'k-123' }, 'read_write');
    } finally {
      window.location.hash = '';
    }
  });

  it("gives a tool server's keys the same choice, and saves them once chosen", async () => {
    const { engine } = noKeychain();
    installIntegrations(engine, { servers: [makeServer({ name: 'files', env_keys: ['API_KEY'], missing_values: ['API_KEY'], tools: [] })] });
    engine.api.setMcpValues.mockRejectedValueOnce(new ApiError(500, NO_KEYCHAIN_SENTENCE));
    window.location.hash = '#/integrations';
    try {
      renderWithApi(<App />, engine.api);
      const servers = await screen.findByRole('list', { name: 'Tool servers' });
      const files = await within(servers).findByRole('listitem', { name: 'files' });
      await userEvent.click(within(files).getByRole('button', { name: 'Keys for files' }));
      const dialog = await screen.findByRole('dialog', { name: 'Keys for files' });
      await userEvent.type(within(dialog).getByLabelText(/API_KEY/), 'k-1');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

      const choice = await within(dialog).findByTestId('key-store-choice');
      await userEvent.click(within(choice).getByRole('button', { name: 'Keep keys in a private file' }));
      await waitFor(() => expect(engine.api.setMcpValues).toHaveBeenCalledTimes(2));
      expect(engine.api.setMcpValues).toHaveBeenLastCalledWith('files', { API_KEY: 'k-1' }, undefined);
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    } finally {
      window.location.hash = '';
    }
  });
});

describe('Settings > Models: where keys are kept', () => {
  it('says the keychain when it works', async () => {
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<ModelsSettings />, engine.api);
    const card = await screen.findByTestId('key-store-card');
    expect(await within(card).findByTestId('key-store')).toHaveTextContent("In this computer's keychain.");
    expect(within(card).queryByRole('button', { name: 'Move keys to the keychain' })).toBeNull();
  });

  it('shows the private file, and moves the keys once a keychain appears', async () => {
    const engine = fakeApi(makeBootstrap());
    let status: StoreStatus = IN_FILE;
    engine.api.secretsStore.mockImplementation(async () => status);
    engine.api.chooseSecretsStore.mockImplementation(async () => {
      status = KEYCHAIN_STORE;
      return { moved: 2, status };
    });
    renderWithApi(<ModelsSettings />, engine.api);
    const card = await screen.findByTestId('key-store-card');
    expect(await within(card).findByTestId('key-store')).toHaveTextContent('In a private file on this computer');
    expect(card).toHaveTextContent('/home/ada/.sentient/secrets.enc');
    expect(within(card).queryByRole('button', { name: 'Move keys to the keychain' })).toBeNull();

    // A keychain is installed: Check for a keychain finds it and offers the move.
    status = { ...IN_FILE, keychain: 'available', file_possible: false, install_command: null, can_move_to_keychain: true };
    await userEvent.click(within(card).getByRole('button', { name: 'Check for a keychain' }));
    await userEvent.click(await within(card).findByRole('button', { name: 'Move keys to the keychain' }));
    expect(engine.api.chooseSecretsStore).toHaveBeenCalledWith('keychain');
    expect(await within(card).findByText('Moved 2 keys to the keychain.')).toBeInTheDocument();
    expect(within(card).getByTestId('key-store')).toHaveTextContent("In this computer's keychain.");
  });

  it('offers the choice in Settings too while no keychain and no file', async () => {
    const { engine } = noKeychain();
    renderWithApi(<ModelsSettings />, engine.api);
    const card = await screen.findByTestId('key-store-card');
    expect(await within(card).findByTestId('install-command')).toHaveTextContent('sudo apt-get install gnome-keyring');
    await userEvent.click(within(card).getByRole('button', { name: 'Keep keys in a private file' }));
    expect(await within(card).findByTestId('key-store')).toHaveTextContent('In a private file on this computer');
  });

  it("says plainly when the keys can't move", async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.secretsStore.mockResolvedValue({ ...IN_FILE, keychain: 'available', can_move_to_keychain: true, file_possible: false });
    engine.api.chooseSecretsStore.mockRejectedValue(
      new ApiError(409, "This computer's keychain still can't be used, so the keys stay in the private file."),
    );
    renderWithApi(<ModelsSettings />, engine.api);
    const card = await screen.findByTestId('key-store-card');
    await userEvent.click(await within(card).findByRole('button', { name: 'Move keys to the keychain' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent("Couldn't move the keys. This computer's keychain still can't be used");
  });
});

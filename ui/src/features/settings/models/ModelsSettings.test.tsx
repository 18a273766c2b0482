import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../App';
import { ApiError } from '../../../api';
import { fakeApi, LOCAL_MODELS, makeBootstrap, makeHardware, PROVIDERS, ROLES } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { ADVANCED_KEY, ModelsSettings } from './ModelsSettings';

// Roles, downloads and the queue sit under Advanced (closed by default); these tests open it as a
// person would. Keys are on the top level.
function setup() {
  const engine = fakeApi(makeBootstrap());
  return engine;
}

async function openAdvanced() {
  const toggle = await screen.findByRole('button', { name: 'Advanced' });
  expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await userEvent.click(toggle);
  expect(toggle).toHaveAttribute('aria-expanded', 'true');
}

async function addProvider(label: string) {
  const picker = await screen.findByRole('combobox', { name: 'Add another provider' });
  await userEvent.selectOptions(picker, within(picker).getByRole('option', { name: label }));
  await userEvent.click(within(screen.getByTestId('add-provider')).getByRole('button', { name: 'Add' }));
}

function role(name: string) {
  return screen.getByRole('region', { name });
}

function optionValues(select: HTMLElement): string[] {
  return Array.from((select as HTMLSelectElement).options).map((o) => o.value);
}

afterEach(() => {
  window.history.replaceState(null, '', '/');
  window.localStorage.clear();
});

describe('Settings > Models: roles', () => {
  it('shows a section per role with the model it uses, and offers installed and suggested models', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();

    await screen.findByRole('region', { name: 'Main model' });
    for (const title of ['Main model', 'Quick jobs', 'Planning tasks', 'Running tasks', 'Memory search', 'Pictures', 'Voice']) {
      expect(role(title)).toBeInTheDocument();
    }
    expect(role('Main model')).toHaveTextContent('Uses ollama_chat/qwen3:8b');
    expect(role('Quick jobs')).toHaveTextContent('Uses the main model');
    expect(role('Memory search')).toHaveTextContent('Uses ollama/nomic-embed-text');

    // The main model can't "use the main model"; the others can.
    const main = within(role('Main model')).getByLabelText('Model');
    expect(optionValues(main)).not.toContain('');
    expect(main).toHaveValue('ollama_chat/qwen3:8b');
    const fast = within(role('Quick jobs')).getByLabelText('Model');
    expect(fast).toHaveValue('');
    expect(within(fast).getByRole('option', { name: 'Use the main model' })).toBeInTheDocument();

    // Installed chat models, suggestions, and free text; no embedding models for chat jobs.
    expect(optionValues(fast)).toEqual(
      expect.arrayContaining(['ollama_chat/qwen3:8b', 'ollama_chat/qwen3:4b', 'anthropic/claude-sonnet-5', 'openai/gpt-5-mini', '__type__']),
    );
    expect(optionValues(fast).some((v) => v.includes('embed'))).toBe(false);
    expect(within(fast).getByRole('option', { name: 'qwen3:4b (not downloaded yet)' })).toBeInTheDocument();
    expect(within(fast).getByRole('option', { name: 'gpt-5-mini (needs a key)' })).toBeInTheDocument();

    // The embedding job only offers embedding models; the installed one matches the saved one.
    const embedding = within(role('Memory search')).getByLabelText('Model');
    expect(embedding).toHaveValue('ollama/nomic-embed-text');
    expect(optionValues(embedding).filter((v) => v !== '' && v !== '__type__')).toEqual(['ollama/nomic-embed-text']);
  });

  it('saves a picked model with set_roles, naming only that role', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Quick jobs' });
    const save = within(section).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await userEvent.selectOptions(within(section).getByLabelText('Model'), 'anthropic/claude-haiku-4-5');
    await userEvent.click(save);

    expect(engine.api.setRoles).toHaveBeenCalledTimes(1);
    expect(engine.api.setRoles).toHaveBeenCalledWith({ fast: 'anthropic/claude-haiku-4-5' });
    await waitFor(() => expect(role('Quick jobs')).toHaveTextContent('Uses anthropic/claude-haiku-4-5'));
    expect(within(role('Quick jobs')).getByRole('status')).toHaveTextContent('Saved.');

    // Back to the main model: null.
    await userEvent.selectOptions(within(role('Quick jobs')).getByLabelText('Model'), '');
    await userEvent.click(within(role('Quick jobs')).getByRole('button', { name: 'Save' }));
    expect(engine.api.setRoles).toHaveBeenLastCalledWith({ fast: null });
    await waitFor(() => expect(role('Quick jobs')).toHaveTextContent('Uses the main model'));
  });

  it('says which jobs followed a new main model because their model is not downloaded', async () => {
    const engine = setup();
    engine.api.setRoles.mockImplementationOnce(async (changes) => ({
      ...ROLES,
      primary: changes.primary ?? ROLES.primary,
      fast: null,
      followed: [{ role: 'fast', from: 'ollama_chat/qwen3:14b', to: null }],
    }));
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const main = await screen.findByRole('region', { name: 'Main model' });
    await userEvent.selectOptions(within(main).getByLabelText('Model'), 'anthropic/claude-haiku-4-5');
    await userEvent.click(within(main).getByRole('button', { name: 'Save' }));
    expect(engine.api.setRoles).toHaveBeenCalledWith({ primary: 'anthropic/claude-haiku-4-5' });
    expect(await within(main).findByTestId('role-followed')).toHaveTextContent(
      "Quick jobs used qwen3:14b, which isn't downloaded, so it now uses the main model.",
    );
  });

  it('saves a typed provider/model, and asks for that shape first', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Pictures' });

    await userEvent.selectOptions(within(section).getByLabelText('Model'), '__type__');
    const input = within(section).getByLabelText('Model name');
    await userEvent.type(input, 'llava');
    expect(section).toHaveTextContent('Write it as provider/model');
    expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled();

    await userEvent.clear(input);
    await userEvent.type(input, 'openrouter/qwen/qwen3-vl');
    await userEvent.click(within(section).getByRole('button', { name: 'Save' }));
    expect(engine.api.setRoles).toHaveBeenCalledWith({ vision: 'openrouter/qwen/qwen3-vl' });
  });

  it("shows the engine's sentence when saving fails", async () => {
    const engine = setup();
    engine.api.setRoles.mockRejectedValueOnce(new ApiError(422, 'The main model can’t be empty.'));
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Main model' });

    await userEvent.selectOptions(within(section).getByLabelText('Model'), 'anthropic/claude-sonnet-5');
    await userEvent.click(within(section).getByRole('button', { name: 'Save' }));

    expect(await within(section).findByRole('alert')).toHaveTextContent("Couldn't save that. The main model can’t be empty.");
    expect(section).toHaveTextContent('Uses ollama_chat/qwen3:8b');
  });
});

describe('Settings > Models: testing a model', () => {
  it('shows the time, the reply and that it can use tools', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Main model' });

    await userEvent.click(within(section).getByRole('button', { name: 'Test' }));

    expect(engine.api.testModel).toHaveBeenCalledWith({ model: 'ollama_chat/qwen3:8b', role: 'primary' });
    const result = await within(section).findByTestId('test-result');
    expect(result).toHaveTextContent('Answered in 0.8 s.');
    expect(result).toHaveTextContent('Can use tools.');
    expect(result).toHaveTextContent('Called find_city with {"name":"Pune"}');
  });

  it("says plainly when a model can't use tools", async () => {
    const engine = setup();
    engine.api.testModel.mockResolvedValueOnce({ ok: true, latency_ms: 2300, reply: 'Pune is in India.', error: null, supports_tools: false });
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Quick jobs' });

    await userEvent.selectOptions(within(section).getByLabelText('Model'), 'ollama_chat/qwen3:4b');
    await userEvent.click(within(section).getByRole('button', { name: 'Test' }));

    // It tests what is picked, before saving.
    expect(engine.api.testModel).toHaveBeenCalledWith({ model: 'ollama_chat/qwen3:4b', role: 'fast' });
    const result = await within(section).findByTestId('test-result');
    expect(result).toHaveTextContent("Can't use tools");
    expect(result).toHaveTextContent('Pune is in India.');
  });

  it("shows the sentence when the test fails", async () => {
    const engine = setup();
    engine.api.testModel.mockResolvedValueOnce({
      ok: false,
      latency_ms: 15,
      reply: null,
      error: 'No key is set for Anthropic. Add one in Settings > Models.',
      supports_tools: null,
    });
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Running tasks' });

    await userEvent.selectOptions(within(section).getByLabelText('Model'), 'anthropic/claude-sonnet-5');
    await userEvent.click(within(section).getByRole('button', { name: 'Test' }));

    expect(await within(section).findByRole('alert')).toHaveTextContent('No key is set for Anthropic. Add one in Settings > Models.');
    expect(within(section).queryByTestId('test-result')).toBeNull();
  });

  it("shows the engine's sentence when the test call itself is refused", async () => {
    const engine = setup();
    engine.api.testModel.mockRejectedValueOnce(new ApiError(422, '"x" is not a model name. Write it as provider/model.'));
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Main model' });
    await userEvent.click(within(section).getByRole('button', { name: 'Test' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent('"x" is not a model name. Write it as provider/model.');
  });

  it('tests the memory search model with an embedding', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const section = await screen.findByRole('region', { name: 'Memory search' });
    await userEvent.click(within(section).getByRole('button', { name: 'Test' }));

    expect(engine.api.testEmbedding).toHaveBeenCalledWith({ model: 'ollama/nomic-embed-text' });
    expect(engine.api.testModel).not.toHaveBeenCalled();
    expect(await within(section).findByTestId('test-result')).toHaveTextContent('It works.');
  });
});

describe('Settings > Models: Ollama and downloads', () => {
  it('the progress bar advances with the progress lines, then says it is downloaded', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const card = await screen.findByTestId('ollama-card');
    await within(card).findByText('Ollama is running.');

    await userEvent.type(within(card).getByLabelText('Download a model'), 'llama3.2:3b');
    await userEvent.click(within(card).getByRole('button', { name: 'Download' }));

    expect(engine.api.pullModel).toHaveBeenCalledWith('llama3.2:3b', expect.any(Function));
    const pull = engine.lastPull();
    const bar = () => within(card).getByRole('progressbar', { name: 'Downloading llama3.2:3b' }) as HTMLProgressElement;

    act(() => pull.progress({ status: 'pulling manifest' }));
    expect(within(card).getByTestId('pull-status')).toHaveTextContent('pulling manifest');
    expect(bar().hasAttribute('value')).toBe(false);

    act(() => pull.progress({ status: 'pulling dde5aa3fc5ff', completed: 500, total: 2000 }));
    expect(bar().value).toBe(25);
    expect(within(card).getByTestId('pull-progress')).toHaveTextContent('pulling dde5aa3fc5ff (25%)');

    act(() => pull.progress({ status: 'pulling dde5aa3fc5ff', completed: 1500, total: 2000 }));
    expect(bar().value).toBe(75);

    act(() => pull.progress({ status: 'success' }));
    await act(async () => pull.finish());
    expect(await within(card).findByTestId('pull-done')).toHaveTextContent('llama3.2:3b is downloaded.');
    // The list of installed models is fetched again.
    await waitFor(() => expect(engine.api.localModels).toHaveBeenCalledTimes(2));
  });

  it('says clearly when the download fails', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const card = await screen.findByTestId('ollama-card');
    await within(card).findByText('Ollama is running.');
    await userEvent.type(within(card).getByLabelText('Download a model'), 'nope:1b');
    await userEvent.click(within(card).getByRole('button', { name: 'Download' }));

    const pull = engine.lastPull();
    act(() => pull.progress({ status: 'pulling manifest' }));
    act(() => pull.progress({ status: 'error', error: 'Ollama could not download it: file does not exist' }));
    await act(async () => pull.finish());

    expect(await within(card).findByTestId('pull-error')).toHaveTextContent(
      "Couldn't download nope:1b. Ollama could not download it: file does not exist",
    );
  });

  it("says to start or install Ollama when it isn't running, and offers no download", async () => {
    const engine = setup();
    engine.api.localModels.mockResolvedValue({ ollama: { reachable: false, models: [] }, lm_studio: { reachable: false, models: [] } });
    engine.api.modelProviders.mockResolvedValue(PROVIDERS.map((p) => ({ ...p, key_set: false })));
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();

    const status = await screen.findByTestId('ollama-status');
    expect(status).toHaveTextContent("Ollama isn't running. Start Ollama, or install it from ollama.com to run models on this computer.");
    expect(screen.getByLabelText('Download a model')).toBeDisabled();
    expect(screen.queryByRole('button', { name: /^Download qwen3/ })).toBeNull();
    // Nothing installed and no key: one sentence on what to do next.
    expect(await screen.findByTestId('nothing-installed')).toHaveTextContent('No model is ready yet');
  });

  it('recommends a model for this computer with a one-click download when it is missing', async () => {
    const engine = setup();
    engine.api.hardware.mockResolvedValue(
      makeHardware({ name: 'qwen3:14b', model: 'ollama_chat/qwen3:14b', context_length: 16384, summary: 'qwen3:14b, reading 16,384 tokens at a time' }),
    );
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();

    const rec = await screen.findByTestId('recommended');
    expect(rec).toHaveTextContent('Recommended for this computer: qwen3:14b, reading 16,384 tokens at a time');
    await userEvent.click(await within(rec).findByRole('button', { name: 'Download qwen3:14b' }));
    expect(engine.api.pullModel).toHaveBeenCalledWith('qwen3:14b', expect.any(Function));
  });

  it('has no download button for the recommended model once it is installed', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const rec = await screen.findByTestId('recommended');
    expect(rec).toHaveTextContent('Recommended for this computer: qwen3:8b, reading 8,192 tokens at a time');
    await within(rec).findByText('qwen3:8b is downloaded.');
    expect(within(rec).queryByRole('button')).toBeNull();
    expect(LOCAL_MODELS.ollama.models[0].name).toBe('qwen3:8b');
  });

  it('shows live what the local model is busy with (model.busy), from the Models tab of Settings', async () => {
    window.history.replaceState(null, '', '/#/settings/models');
    window.localStorage.setItem(ADVANCED_KEY, 'open');
    const engine = setup();
    renderWithApi(<App />, engine.api);

    const line = await screen.findByTestId('model-busy');
    expect(line).toHaveTextContent('Local model: idle');
    expect(screen.getByRole('link', { name: 'Models' })).toHaveAttribute('aria-current', 'page');

    act(() =>
      engine.emit('model.busy', {
        busy: true,
        job: 'task',
        model: 'ollama_chat/qwen3:8b',
        since: '2030-05-04T10:00:00Z',
        waiting: 1,
        deferred: 0,
        deferred_reason: null,
      }),
    );
    await waitFor(() => expect(screen.getByTestId('model-busy')).toHaveTextContent('Local model: busy with a task (1 more waiting)'));

    act(() => engine.emit('model.busy', { busy: false, job: null, model: null, since: null, waiting: 0, deferred: 0, deferred_reason: null }));
    await waitFor(() => expect(screen.getByTestId('model-busy')).toHaveTextContent('Local model: idle'));
    expect(engine.api.modelBusy).toHaveBeenCalledTimes(1);
  });

  it('fetches the roles again when the models settings change elsewhere', async () => {
    window.history.replaceState(null, '', '/#/settings/models');
    window.localStorage.setItem(ADVANCED_KEY, 'open');
    const engine = setup();
    renderWithApi(<App />, engine.api);
    await screen.findByRole('region', { name: 'Quick jobs' });
    engine.api.getRoles.mockResolvedValueOnce({ ...(await engine.api.getRoles()), fast: 'openai/gpt-5-mini' });

    act(() => engine.emit('config.updated', { sections: ['models'] }));

    await waitFor(() => expect(role('Quick jobs')).toHaveTextContent('Uses openai/gpt-5-mini'));
  });
});

describe('Settings > Models: keys', () => {
  it('shows each cloud provider with its key state, and never a value', async () => {
    const engine = setup();
    const { container } = renderWithApi(<ModelsSettings />, engine.api);

    const anthropic = await screen.findByTestId('key-anthropic');
    expect(anthropic).toHaveTextContent('Key saved');
    // Only the providers you chose are listed (Anthropic has a key); OpenAI is added by hand.
    expect(screen.queryByTestId('key-openai')).toBeNull();
    await addProvider('OpenAI');
    const openai = await screen.findByTestId('key-openai');
    await waitFor(() => expect(within(openai).getByLabelText('OpenAI key')).toHaveFocus());
    expect(await within(openai).findByText('No key yet')).toBeInTheDocument();
    // Local providers have no key card.
    expect(screen.queryByTestId('key-ollama_chat')).toBeNull();

    const field = within(openai).getByLabelText('OpenAI key');
    expect(field).toHaveAttribute('type', 'password');
    await userEvent.type(field, 'sk-proj-SECRET-123');
    await userEvent.click(within(openai).getByRole('button', { name: 'Save key' }));

    expect(engine.api.setSecret).toHaveBeenCalledWith('openai', 'sk-proj-SECRET-123');
    await within(openai).findByText('Saved.');
    expect(field).toHaveValue('');
    expect(container.innerHTML).not.toContain('SECRET');
    // The list and providers are asked again, so the state follows.
    await waitFor(() => expect(engine.api.listSecrets).toHaveBeenCalledTimes(2));
  });

  it('checks a saved key and says what the provider answered', async () => {
    const engine = setup();
    engine.api.checkProviderKey.mockResolvedValueOnce({ ok: false, error: "Anthropic didn't accept this key. Copy it again from your Anthropic account and save it." });
    renderWithApi(<ModelsSettings />, engine.api);
    const anthropic = await screen.findByTestId('key-anthropic');
    await userEvent.click(within(anthropic).getByRole('button', { name: 'Check key' }));
    expect(engine.api.checkProviderKey).toHaveBeenCalledWith('anthropic');
    expect(await within(anthropic).findByRole('status')).toHaveTextContent("Anthropic didn't accept this key.");
    // A provider without a key, or without a check, has no button.
    await addProvider('OpenAI');
    expect(within(screen.getByTestId('key-openai')).queryByRole('button', { name: 'Check key' })).toBeNull();
  });

  it('connects OpenRouter by signing in and follows the sign-in until it is connected', async () => {
    const engine = setup();
    const openrouter = { ...PROVIDERS[3], id: 'openrouter', label: 'OpenRouter', key_set: false, docs_url: 'https://openrouter.ai/keys', suggested: [] };
    engine.api.modelProviders.mockResolvedValue([...PROVIDERS, openrouter]);
    const opened = vi.spyOn(window, 'open').mockImplementation(() => null);
    engine.api.openrouterSignInStatus
      .mockResolvedValueOnce({ status: 'waiting', error: null })
      .mockResolvedValue({ status: 'connected', error: null });
    renderWithApi(<ModelsSettings />, engine.api);
    await addProvider('OpenRouter');
    const card = await screen.findByTestId('key-openrouter');
    await userEvent.click(within(card).getByRole('button', { name: 'Connect by signing in to OpenRouter' }));
    expect(engine.api.connectOpenrouter).toHaveBeenCalled();
    expect(opened).toHaveBeenCalledWith('https://openrouter.ai/auth?code_challenge=x', '_blank', 'noopener,noreferrer');
    expect(await within(card).findByText('Waiting for you to finish in the browser…')).toBeInTheDocument();
    expect(await within(card).findByText('Connected. Your OpenRouter key is saved.', {}, { timeout: 4000 })).toBeInTheDocument();
    expect(engine.api.openrouterSignInStatus).toHaveBeenCalledWith('st1');
    opened.mockRestore();
  });

  it('removes a saved key', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    const anthropic = await screen.findByTestId('key-anthropic');
    await userEvent.click(await within(anthropic).findByRole('button', { name: 'Remove' }));
    expect(engine.api.deleteSecret).toHaveBeenCalledWith('anthropic');
    // No Remove for a key with nothing saved.
    await addProvider('OpenAI');
    expect(within(screen.getByTestId('key-openai')).queryByRole('button', { name: 'Remove' })).toBeNull();
  });

  it("shows the engine's sentence when the keychain can't be used", async () => {
    const engine = setup();
    engine.api.setSecret.mockRejectedValueOnce(
      new ApiError(500, "Sentient can't reach this computer's keychain, so it can't store keys."),
    );
    renderWithApi(<ModelsSettings />, engine.api);
    await addProvider('OpenAI');
    const openai = await screen.findByTestId('key-openai');
    await userEvent.type(within(openai).getByLabelText('OpenAI key'), 'sk-x');
    await userEvent.click(within(openai).getByRole('button', { name: 'Save key' }));
    expect(await within(openai).findByRole('alert')).toHaveTextContent("Couldn't save the key. Sentient can't reach this computer's keychain");
  });
});

// The top level of Settings > Models: one sentence on what is in use (local, cloud, mixed); the
// three setups as cards, where a setup whose model is missing says what and offers its fix; a key
// field only for the providers chosen; no jargon; and Advanced closed by default, remembered, and
// showing the per-job models once opened.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Roles } from '../../../api';
import { fakeApi, LOCAL_MODELS, makeBootstrap, PRESETS, PROVIDERS, ROLES } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { ApiError } from '../../../api/errors';
import { ADVANCED_KEY, ModelsSettings } from './ModelsSettings';
import { inUseSentence, needOf, presetNeeds } from './summary';

afterEach(() => window.localStorage.clear());

const NOTHING_DOWNLOADED = { ...LOCAL_MODELS, ollama: { reachable: true, models: [] } };

function roles(over: Partial<Roles>): Roles {
  return { ...ROLES, ...over };
}

describe('the sentence on what is in use', () => {
  it('says it in one sentence for a local, a cloud and a mixed setup', () => {
    expect(inUseSentence(roles({ primary: 'ollama_chat/qwen3:8b' }), PROVIDERS)).toBe('Sentient thinks with qwen3:8b on this computer.');
    expect(inUseSentence(roles({ primary: 'anthropic/claude-sonnet-5', fast: 'anthropic/claude-haiku-4-5' }), PROVIDERS)).toBe(
      'Sentient thinks with claude-sonnet-5 from Anthropic.',
    );
    expect(inUseSentence(roles({ primary: 'anthropic/claude-sonnet-5', fast: 'ollama_chat/qwen3:8b' }), PROVIDERS)).toBe(
      'Sentient thinks with claude-sonnet-5 from Anthropic and does quick jobs with qwen3:8b on this computer.',
    );
    expect(inUseSentence(roles({ primary: 'ollama_chat/qwen3:8b:latest' }), PROVIDERS, 'Jarvis')).toBe(
      'Jarvis thinks with qwen3:8b on this computer.',
    );
  });

  it('knows what a model still needs', () => {
    expect(needOf('ollama_chat/qwen3:8b', PROVIDERS, LOCAL_MODELS)).toBeNull();
    expect(needOf('ollama_chat/qwen3:14b', PROVIDERS, LOCAL_MODELS)).toMatchObject({ kind: 'pull', name: 'qwen3:14b' });
    expect(needOf('ollama_chat/qwen3:8b', PROVIDERS, { ...LOCAL_MODELS, ollama: { reachable: false, models: [] } })).toMatchObject({
      kind: 'ollama',
    });
    expect(needOf('openai/gpt-5', PROVIDERS, LOCAL_MODELS)).toMatchObject({ kind: 'key', provider: 'openai', label: 'OpenAI' });
    expect(needOf('anthropic/claude-sonnet-5', PROVIDERS, LOCAL_MODELS)).toBeNull();
    // One line per model, even when two jobs use it.
    expect(presetNeeds(PRESETS.presets[0], PROVIDERS, NOTHING_DOWNLOADED)).toHaveLength(1);
  });

  it('shows the sentence at the top, with the Mixed words when quick jobs run elsewhere', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.getRoles.mockResolvedValue(roles({ primary: 'anthropic/claude-sonnet-5', fast: 'ollama_chat/qwen3:8b' }));
    renderWithApi(<ModelsSettings />, engine.api);
    expect(await screen.findByTestId('in-use-sentence')).toHaveTextContent(
      'Sentient thinks with claude-sonnet-5 from Anthropic and does quick jobs with qwen3:8b on this computer.',
    );
  });
});

describe('Settings > Models, top level', () => {
  it('shows the three setups as cards, the providers chosen, and no jargon', async () => {
    const engine = fakeApi(makeBootstrap());
    // The engine's own descriptions use expert words; the top level says it plainly instead.
    engine.api.modelPresets.mockResolvedValue({
      ...PRESETS,
      presets: PRESETS.presets.map((p) =>
        p.name === 'Local only'
          ? { ...p, description: 'Everything runs on this computer with qwen3:8b, reading 8,192 tokens at a time.' }
          : p.name === 'Cloud'
            ? { ...p, description: 'Memory search keeps its model, since changing it re-indexes your memories.' }
            : p,
      ),
    });
    renderWithApi(<ModelsSettings />, engine.api);
    expect(await screen.findByTestId('in-use-sentence')).toHaveTextContent('Sentient thinks with qwen3:8b on this computer.');
    const setups = screen.getByRole('region', { name: 'Setups' });
    await within(setups).findByTestId('preset-Local only');
    expect(within(setups).getAllByRole('heading', { level: 3 }).map((h) => h.textContent?.replace('In use', '').trim())).toEqual([
      'Local only',
      'Cloud',
      'Mixed',
    ]);
    // Your own setups are under Advanced, not among the three.
    expect(within(setups).queryByTestId('preset-Work')).toBeNull();
    // Anthropic has a key, so it is listed; OpenAI waits behind "Add another provider".
    expect(await screen.findByTestId('key-anthropic')).toBeInTheDocument();
    expect(screen.queryByTestId('key-openai')).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Add another provider' })).toHaveDisplayValue('OpenAI');
    expect(within(setups).getByTestId('preset-Local only')).toHaveTextContent(
      'Everything runs on this computer, so nothing you write leaves it. Main model: qwen3:8b.',
    );
    expect(within(setups).getByTestId('preset-Mixed')).toHaveTextContent('Chats and tasks use Anthropic; quick jobs and your memory stay');
    const text = screen.getByTestId('models-settings').textContent ?? '';
    expect(text).not.toMatch(/token|re-?index|context length|embedding/i);
  });

  it('a setup whose model is not downloaded says so and downloads it from its card', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.localModels.mockResolvedValue(NOTHING_DOWNLOADED);
    renderWithApi(<ModelsSettings />, engine.api);
    const local = await screen.findByTestId('preset-Local only');
    const need = await within(local).findByTestId('setup-need');
    expect(need).toHaveTextContent("qwen3:8b isn't downloaded yet.");
    await userEvent.click(within(need).getByRole('button', { name: 'Download qwen3:8b' }));
    expect(engine.api.pullModel).toHaveBeenCalledWith('qwen3:8b', expect.any(Function));
    // The model in use needs it too, and the top says so with the same fix.
    expect(screen.getByTestId('in-use-need')).toHaveTextContent("qwen3:8b isn't downloaded yet.");
  });

  it("a local setup says when Ollama isn't running, with where to get it and Check again", async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.localModels.mockResolvedValue({ ...LOCAL_MODELS, ollama: { reachable: false, models: [] } });
    renderWithApi(<ModelsSettings />, engine.api);
    const local = await screen.findByTestId('preset-Local only');
    const need = await within(local).findByTestId('setup-need');
    expect(need).toHaveTextContent("Ollama isn't running on this computer.");
    expect(within(need).getByRole('link', { name: 'Get Ollama' })).toHaveAttribute('href', 'https://ollama.com/download');
    const calls = engine.api.localModels.mock.calls.length;
    await userEvent.click(within(need).getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(engine.api.localModels.mock.calls.length).toBeGreaterThan(calls));
    // Or it runs elsewhere: its address, right there.
    await userEvent.click(within(need).getByRole('button', { name: 'Ollama runs on another computer?' }));
    await userEvent.type(within(need).getByLabelText("Ollama's address"), '{Control>}a{/Control}192.168.1.20:11434{Enter}');
    expect(engine.api.setLocalAddress).toHaveBeenCalledWith({ provider: 'ollama', api_base: '192.168.1.20:11434' });
  });

  it('a model that needs a key offers the key field of its provider', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.getRoles.mockResolvedValue(roles({ primary: 'openai/gpt-5' }));
    engine.api.modelProviders.mockResolvedValue(PROVIDERS);
    renderWithApi(<ModelsSettings />, engine.api);
    const need = await screen.findByTestId('in-use-need');
    expect(need).toHaveTextContent('gpt-5 needs a key from OpenAI.');
    // OpenAI is in use, so its key field is on the page already.
    expect(await screen.findByTestId('key-openai')).toBeInTheDocument();
    await userEvent.click(within(need).getByRole('button', { name: 'Add a key for OpenAI' }));
    await waitFor(() => expect(screen.getByLabelText('OpenAI key')).toHaveFocus());
  });
});

describe('switching to a setup that is not ready (issue 32)', () => {
  const CLOUD_IN_USE = {
    ...PRESETS,
    active: 'Mixed',
    presets: PRESETS.presets.map((p) => ({ ...p, active: p.name === 'Mixed' })),
  };

  it('asks first, naming what would change and what is missing, and switches only on "Switch anyway"', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.getRoles.mockResolvedValue(roles({ primary: 'anthropic/claude-sonnet-5', fast: 'ollama_chat/qwen3:8b' }));
    engine.api.modelPresets.mockResolvedValue(CLOUD_IN_USE);
    engine.api.localModels.mockResolvedValue(NOTHING_DOWNLOADED);
    renderWithApi(<ModelsSettings />, engine.api);
    const local = await screen.findByTestId('preset-Local only');
    await within(local).findByTestId('setup-need');

    await userEvent.click(within(local).getByRole('button', { name: 'Use Local only' }));
    const ask = within(local).getByTestId('setup-confirm');
    expect(ask).toHaveTextContent("Switch to Local only before its models are ready? Sentient couldn't answer until this is done: qwen3:8b isn't downloaded yet.");
    expect(within(ask).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Main model: claude-sonnet-5 → qwen3:8b']);
    expect(engine.api.applyModelPreset).not.toHaveBeenCalled();

    await userEvent.click(within(ask).getByRole('button', { name: 'Keep my current setup' }));
    expect(within(local).queryByTestId('setup-confirm')).toBeNull();
    expect(engine.api.applyModelPreset).not.toHaveBeenCalled();

    await userEvent.click(within(local).getByRole('button', { name: 'Use Local only' }));
    await userEvent.click(within(local).getByRole('button', { name: 'Switch anyway' }));
    await waitFor(() => expect(engine.api.applyModelPreset).toHaveBeenCalledWith('Local only'));
  });

  it('switches on one click when the setup is ready', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.getRoles.mockResolvedValue(roles({ primary: 'anthropic/claude-sonnet-5' }));
    engine.api.modelPresets.mockResolvedValue(CLOUD_IN_USE);
    renderWithApi(<ModelsSettings />, engine.api);
    const local = await screen.findByTestId('preset-Local only');
    await userEvent.click(within(local).getByRole('button', { name: 'Use Local only' }));
    await waitFor(() => expect(engine.api.applyModelPreset).toHaveBeenCalledWith('Local only'));
    expect(within(local).queryByTestId('setup-confirm')).toBeNull();
  });

  it('never says a model is in use when it is not ready', async () => {
    expect(inUseSentence(roles({ primary: 'ollama_chat/qwen3:8b' }), PROVIDERS, 'Sentient', false)).toBe(
      "Sentient is set to think with qwen3:8b on this computer, but it isn't ready yet.",
    );
    const engine = fakeApi(makeBootstrap());
    engine.api.localModels.mockResolvedValue(NOTHING_DOWNLOADED);
    renderWithApi(<ModelsSettings />, engine.api);
    await screen.findByTestId('in-use-need');
    expect(screen.getByTestId('in-use-sentence')).toHaveTextContent("Sentient is set to think with qwen3:8b on this computer, but it isn't ready yet.");
    const local = await screen.findByTestId('preset-Local only');
    expect(within(local).getByRole('heading', { level: 3 })).toHaveTextContent('Local only Picked, not ready');
    expect(within(local).queryByText('In use')).toBeNull();
  });
});

describe("Settings > Models: where Ollama and LM Studio run", () => {
  it('saves an address once the engine found the server there, and says why not otherwise', async () => {
    window.localStorage.setItem(ADVANCED_KEY, 'open');
    const engine = fakeApi(makeBootstrap());
    engine.api.setLocalAddress.mockRejectedValueOnce(
      new ApiError(400, "Something answered at http://box.lan:8080, but it isn't LM Studio: check the address and its port."),
    );
    renderWithApi(<ModelsSettings />, engine.api);
    const lm = await screen.findByTestId('address-lm_studio');
    const field = within(lm).getByLabelText("LM Studio's address");
    await userEvent.clear(field);
    await userEvent.type(field, 'http://box.lan:8080');
    await userEvent.click(within(lm).getByRole('button', { name: 'Save' }));
    expect(await within(lm).findByRole('alert')).toHaveTextContent("Not saved. Something answered at http://box.lan:8080, but it isn't LM Studio");

    await userEvent.clear(field);
    await userEvent.type(field, 'http://box.lan:1234{Enter}');
    expect(engine.api.setLocalAddress).toHaveBeenLastCalledWith({ provider: 'lm_studio', api_base: 'http://box.lan:1234' });
    expect(await within(lm).findByRole('status')).toHaveTextContent('LM Studio answers there and has 2 models.');
    expect(within(lm).queryByRole('alert')).toBeNull();
  });
});

describe('Settings > Models, Advanced', () => {
  it('is closed by default; opening it shows the job models, and it stays open next time', async () => {
    const engine = fakeApi(makeBootstrap());
    const first = renderWithApi(<ModelsSettings />, engine.api);
    const toggle = await screen.findByRole('button', { name: 'Advanced' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('region', { name: 'Main model' })).toBeNull();
    expect(screen.queryByTestId('checkup-card')).toBeNull();

    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(document.getElementById(toggle.getAttribute('aria-controls') ?? '')).not.toBeNull();
    for (const title of ['Main model', 'Quick jobs', 'Planning tasks', 'Running tasks', 'Memory search', 'Pictures', 'Voice']) {
      expect(await screen.findByRole('region', { name: title })).toBeInTheDocument();
    }
    for (const card of ['own-presets-card', 'fallbacks-card', 'reasoning-card', 'queue-card', 'ollama-card', 'checkup-card']) {
      expect(screen.getByTestId(card)).toBeInTheDocument();
    }
    expect(await screen.findByTestId('context-card')).toHaveTextContent('How much a local model reads at once');
    expect(window.localStorage.getItem(ADVANCED_KEY)).toBe('open');

    first.unmount();
    renderWithApi(<ModelsSettings />, fakeApi(makeBootstrap()).api);
    expect(await screen.findByRole('button', { name: 'Advanced' })).toHaveAttribute('aria-expanded', 'true');
    await userEvent.click(screen.getByRole('button', { name: 'Advanced' }));
    expect(window.localStorage.getItem(ADVANCED_KEY)).toBe('closed');
    expect(screen.queryByRole('region', { name: 'Main model' })).toBeNull();
  });

  it('saves backups, thinking and the reading length of one job only', async () => {
    window.localStorage.setItem(ADVANCED_KEY, 'open');
    const engine = fakeApi(makeBootstrap());
    engine.api.getConfig.mockResolvedValue({ models: { fallbacks: {}, reasoning: {}, context_length: 8192 } } as never);
    renderWithApi(<ModelsSettings />, engine.api);

    const backups = await screen.findByTestId('fallbacks-primary');
    await userEvent.type(within(backups).getByLabelText('Backups for Main model'), 'gpt5');
    expect(within(backups).getByRole('alert')).toHaveTextContent('Write each model as provider/model');
    expect(within(backups).getByRole('button', { name: 'Save' })).toBeDisabled();
    await userEvent.clear(within(backups).getByLabelText('Backups for Main model'));
    await userEvent.type(within(backups).getByLabelText('Backups for Main model'), 'anthropic/claude-haiku-4-5, openai/gpt-5-mini');
    await userEvent.click(within(backups).getByRole('button', { name: 'Save' }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({
      models: { fallbacks: { primary: ['anthropic/claude-haiku-4-5', 'openai/gpt-5-mini'] } },
    });

    await userEvent.selectOptions(within(screen.getByTestId('reasoning-planner')).getByLabelText('Planning tasks'), 'high');
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ models: { reasoning: { planner: 'high' } } });

    const length = await screen.findByRole('spinbutton', { name: /Reading length for local models/ });
    expect(length).toHaveAttribute('min', '2048');
    await userEvent.clear(length);
    await userEvent.type(length, '1000{Enter}');
    expect(await screen.findByText('Use a whole number of tokens from 2048 to 1048576.')).toBeInTheDocument();
    await userEvent.clear(length);
    await userEvent.type(length, '16384{Enter}');
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ models: { context_length: 16384 } });

    // One job's own length, checked against the same range; emptied, it is removed.
    await userEvent.click(screen.getByText('A different length for one job'));
    const planner = screen.getByRole('spinbutton', { name: 'Reading length for Planning tasks' });
    await userEvent.type(planner, '100{Enter}');
    expect(await screen.findByText('Use a whole number of tokens from 2048 to 1048576.')).toBeInTheDocument();
    await userEvent.clear(planner);
    await userEvent.type(planner, '4096{Enter}');
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ models: { context_length_per_role: { planner: 4096 } } });
  });
});

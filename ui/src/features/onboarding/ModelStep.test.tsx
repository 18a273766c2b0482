import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import type { CheckupLine, LocalModels, RoleResult } from '../../api';
import { fakeApi, LOCAL_MODELS, makeBootstrap, makeHardware } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { ApiError } from '../../api/errors';
import { checkupSummary, downloadLabel, ModelStep, oneClickRoles } from './ModelStep';
import { closeModelSetup, MODEL_SETUP_KEY, readModelSetup, writeModelSetup } from './modelSetup';

const NOTHING: LocalModels = { ollama: { reachable: true, models: [] }, lm_studio: { reachable: false, models: [] } };
const NO_OLLAMA: LocalModels = { ollama: { reachable: false, models: [] }, lm_studio: { reachable: false, models: [] } };

function primaryResult(checks: RoleResult['checks']): RoleResult {
  const worst = checks.some((c) => c.status === 'fail') ? 'fail' : checks.some((c) => c.status === 'warn') ? 'warn' : 'pass';
  return { role: 'primary', model: 'ollama_chat/qwen3:8b', provider: 'ollama_chat', local: true, inherits: null, status: worst, checks };
}

const PASS = (id: string, label: string) => ({ id, label, status: 'pass' as const, detail: 'Fine.' });

beforeEach(() => {
  closeModelSetup();
  window.localStorage.removeItem(MODEL_SETUP_KEY);
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  closeModelSetup();
  window.localStorage.removeItem(MODEL_SETUP_KEY);
});

/** Ollama with two downloaded models, the smaller one able to use tools, as the engine lists them. */
const TWO_MODELS: LocalModels = {
  ollama: {
    reachable: true,
    models: [
      { name: 'llama3.2:3b', size: 5e9, family: 'llama', parameter_size: '3.2B', is_embedding: false, capabilities: ['completion'] },
      { name: 'qwen3:4b', size: 2.5e9, family: 'qwen3', parameter_size: '4B', is_embedding: false, capabilities: ['completion', 'tools'] },
    ],
  },
  lm_studio: { reachable: false, models: [] },
  pick: { primary: 'ollama_chat/qwen3:4b', embedding: null, tools: true },
};

function setup(local: LocalModels = NOTHING) {
  const engine = fakeApi(makeBootstrap());
  engine.api.localModels.mockResolvedValue(local);
  writeModelSetup('pending');
  return engine;
}

describe('Onboarding: how should Sentient think?', () => {
  it('says how to install Ollama for this system when it is not running, and checks again', async () => {
    const engine = setup(NO_OLLAMA);
    engine.api.hardware.mockResolvedValue({ ...makeHardware(), os: 'windows' });
    renderWithApi(<ModelStep />, engine.api);

    const install = await screen.findByTestId('install-ollama');
    expect(install).toHaveTextContent("Ollama isn't running on this computer.");
    expect(install).toHaveTextContent('To install it on Windows:');
    expect(install).toHaveTextContent('Download the Windows installer from ollama.com.');
    expect(within(install).getByRole('link', { name: 'Get Ollama from ollama.com' })).toHaveAttribute('href', 'https://ollama.com/download');

    engine.api.localModels.mockResolvedValue(NOTHING);
    await userEvent.click(within(install).getByRole('button', { name: 'Check again' }));
    expect(await screen.findByTestId('local-setup')).toHaveTextContent('Ollama is running.');
    expect(engine.api.localModels).toHaveBeenCalledTimes(2);
  });

  it('gives Linux its own install steps', async () => {
    const engine = setup(NO_OLLAMA);
    renderWithApi(<ModelStep />, engine.api);
    expect(await screen.findByTestId('install-ollama')).toHaveTextContent('curl -fsSL https://ollama.com/install.sh | sh');
  });

  it('downloads the recommended model with a progress bar, switches to Local only, then checks it', async () => {
    const engine = setup(NOTHING);
    renderWithApi(<ModelStep />, engine.api);

    // The hardware recommendation picks "On this computer" and offers ONE download button.
    await waitFor(() => expect(screen.getByRole('radio', { name: /On this computer/ })).toBeChecked());
    const panel = await screen.findByTestId('local-setup');
    expect(panel).toHaveTextContent('Recommended for this computer: qwen3:8b.');
    expect(panel).not.toHaveTextContent(/tokens/);
    await userEvent.click(within(panel).getByRole('button', { name: 'Download qwen3:8b (5.2 GB)' }));
    expect(engine.api.pullModel).toHaveBeenCalledWith('qwen3:8b', expect.any(Function));

    act(() => engine.lastPull().progress({ status: 'pulling 6a0746a1ec1a', completed: 1, total: 4 }));
    expect(within(panel).getByRole('progressbar', { name: 'Downloading qwen3:8b' })).toHaveValue(25);
    expect(within(panel).getByRole('button', { name: 'Downloading…' })).toBeDisabled();
    expect(engine.api.applyModelPreset).not.toHaveBeenCalled();

    await act(async () => engine.lastPull().finish());
    await waitFor(() => expect(engine.api.applyModelPreset).toHaveBeenCalledWith('Local only'));
    expect(engine.api.applyModelPreset).toHaveBeenCalledTimes(1);

    // The check-up runs in the background for the main model, with one line about it.
    await waitFor(() => expect(engine.api.modelCheckup).toHaveBeenCalledWith({ roles: { primary: 'ollama_chat/qwen3:8b' } }, expect.any(Function)));
    expect(await screen.findByTestId('model-summary')).toHaveTextContent('Checking that qwen3:8b answers…');
    const run = engine.lastCheckup();
    const result = primaryResult([PASS('connection', 'Connection'), PASS('reply', 'Reply'), PASS('tools', 'Tools')]);
    await act(async () => {
      run.progress({ type: 'start', roles: [{ role: 'primary', model: 'ollama_chat/qwen3:8b' }], hardware: makeHardware() } as CheckupLine);
      run.progress({ type: 'done', status: 'pass', roles: [result] } as CheckupLine);
      run.finish();
    });
    expect(screen.getByTestId('model-summary')).toHaveTextContent(/^Your model is ready\.$/);

    await userEvent.click(screen.getByRole('button', { name: 'Start using Sentient' }));
    expect(readModelSetup()).toBeNull();
  });

  it('uses the recommended model already downloaded for every job with one click, and its embedding model', async () => {
    const engine = setup(LOCAL_MODELS);
    renderWithApi(<ModelStep />, engine.api);
    const panel = await screen.findByTestId('local-models');
    expect(panel).toHaveTextContent('Ollama is running and already has a model.');
    expect(panel).toHaveTextContent('Memory search will use nomic-embed-text, which is downloaded too.');
    expect(within(panel).queryByRole('button', { name: /Download/ })).toBeNull();
    await userEvent.click(within(panel).getByRole('button', { name: 'Use qwen3:8b for everything' }));
    expect(engine.api.setRoles).toHaveBeenCalledWith(oneClickRoles('ollama_chat/qwen3:8b', 'ollama/nomic-embed-text:latest'));
    expect(engine.api.pullModel).not.toHaveBeenCalled();
  });

  it('points a small computer at the cloud instead of a local model', async () => {
    const engine = setup(NOTHING);
    engine.api.hardware.mockResolvedValue(makeHardware({ tier: 'small', name: 'qwen3:4b', model: 'ollama_chat/qwen3:4b', cloud_first: true }));
    renderWithApi(<ModelStep />, engine.api);

    await waitFor(() => expect(screen.getByRole('radio', { name: /With a cloud key/ })).toBeChecked());
    await userEvent.click(screen.getByRole('radio', { name: /On this computer/ }));
    const panel = await screen.findByTestId('local-cloud-first');
    expect(within(panel).queryByRole('button', { name: /Download/ })).toBeNull();
    await userEvent.click(within(panel).getByRole('button', { name: 'Use a cloud key instead' }));
    expect(screen.getByRole('radio', { name: /With a cloud key/ })).toBeChecked();
    expect(await screen.findByTestId('cloud-setup')).toBeInTheDocument();
  });

  it('ends with the reason when the model answers but cannot use tools', () => {
    const state = {
      phase: 'done' as const,
      picks: [],
      steps: {},
      status: 'fail' as const,
      error: null,
      results: {
        primary: primaryResult([
          PASS('reply', 'Reply'),
          { id: 'tools', label: 'Tools', status: 'fail', detail: 'It answered in text instead of calling find_city.' },
        ]),
      },
    };
    expect(checkupSummary(state, 'ollama_chat/qwen3:8b')).toEqual({
      text: "qwen3:8b answered, but can't use tools: It answered in text instead of calling find_city.",
      ok: true,
    });
    const silent = { ...state, results: { primary: primaryResult([{ id: 'reply', label: 'Reply', status: 'fail', detail: 'Ollama isn\'t answering.' }]) } };
    expect(checkupSummary(silent, 'ollama_chat/qwen3:8b')?.text).toBe("qwen3:8b didn't answer: Ollama isn't answering.");
    expect(downloadLabel('mystery:1b')).toBe('Download mystery:1b');
  });
});

describe('Onboarding: with a cloud key', () => {
  it('saves the key, checks it with one short answer, then switches to Cloud', async () => {
    const engine = setup(NO_OLLAMA);
    renderWithApi(<ModelStep />, engine.api);
    await userEvent.click(await screen.findByRole('radio', { name: /With a cloud key/ }));
    const panel = await screen.findByTestId('cloud-setup');

    // Only the providers the Cloud setup can use.
    const provider = within(panel).getByLabelText('Provider');
    expect(within(provider).getAllByRole('option').map((o) => o.textContent)).toEqual(['Anthropic', 'OpenAI']);
    await userEvent.selectOptions(provider, 'openai');

    // Nothing is sent without a key.
    await userEvent.click(within(panel).getByRole('button', { name: 'Check' }));
    expect(within(panel).getByRole('alert')).toHaveTextContent('Paste your OpenAI key first.');
    expect(engine.api.setSecret).not.toHaveBeenCalled();

    const field = within(panel).getByLabelText('OpenAI key');
    expect(field).toHaveAttribute('type', 'password');
    await userEvent.type(field, 'sk-test-123');
    await userEvent.click(within(panel).getByRole('button', { name: 'Check' }));
    expect(engine.api.setSecret).toHaveBeenCalledWith('openai', 'sk-test-123');
    await waitFor(() => expect(engine.api.testModel).toHaveBeenCalledWith({ model: 'openai/gpt-5', role: 'primary' }));
    await waitFor(() => expect(engine.api.applyModelPreset).toHaveBeenCalledWith('Cloud'));
    await waitFor(() => expect(engine.api.modelCheckup).toHaveBeenCalled());

    // The key answered, so leaving before the check-up ends needs no reminder.
    await userEvent.click(await screen.findByRole('button', { name: 'Start using Sentient' }));
    expect(readModelSetup()).toBeNull();
  });

  it("says plainly when the key doesn't work, and switches nothing", async () => {
    const engine = setup(NO_OLLAMA);
    engine.api.testModel.mockResolvedValueOnce({
      ok: false,
      latency_ms: 120,
      reply: null,
      error: 'Anthropic turned down the saved key. Check or replace it in Settings > Models.',
      supports_tools: null,
    });
    renderWithApi(<ModelStep />, engine.api);
    await userEvent.click(await screen.findByRole('radio', { name: /With a cloud key/ }));
    const panel = await screen.findByTestId('cloud-setup');
    await userEvent.type(within(panel).getByLabelText('Anthropic key'), 'sk-ant-bad{Enter}');

    const result = await within(panel).findByTestId('key-result');
    expect(result).toHaveTextContent("That key didn't work. Anthropic turned down the saved key.");
    expect(result).toHaveAttribute('role', 'alert');
    expect(within(panel).getByLabelText('Anthropic key')).toHaveAttribute('aria-invalid', 'true');
    expect(engine.api.applyModelPreset).not.toHaveBeenCalled();
    expect(engine.api.modelCheckup).not.toHaveBeenCalled();
  });
});

describe('Onboarding: later', () => {
  it('finishes onboarding and shows the bar on Chat and Tasks until a model answers', async () => {
    const boot = makeBootstrap({ onboarding_complete: false });
    boot.assistant.user_name = '';
    const engine = fakeApi(boot);
    renderWithApi(<App />, engine.api);

    await userEvent.type(await screen.findByLabelText('Your name'), 'Grace');
    await userEvent.click(screen.getByRole('button', { name: 'Get started' }));
    expect(engine.api.onboarding).toHaveBeenCalled();

    // The model step comes next, and survives a reload (it is kept in storage).
    expect(await screen.findByRole('heading', { name: 'How should Sentient think?' })).toBeInTheDocument();
    expect(readModelSetup()).toBe('pending');
    await userEvent.click(screen.getByRole('radio', { name: /Later/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Finish and set it up later' }));

    expect(await screen.findByRole('heading', { name: 'Chat' })).toBeInTheDocument();
    const bar = await screen.findByTestId('model-bar');
    expect(bar).toHaveTextContent('No model set up yet');
    window.location.hash = '#/tasks';
    expect(await screen.findByRole('heading', { level: 1, name: 'Tasks' })).toBeInTheDocument();
    expect(await screen.findByTestId('model-bar')).toBeInTheDocument();
    window.location.hash = '#/memory';
    await screen.findByRole('heading', { level: 1, name: 'Memory' });
    expect(screen.queryByTestId('model-bar')).toBeNull();

    // "Set up now" opens the model step again.
    window.location.hash = '#/chat';
    await userEvent.click(await screen.findByRole('button', { name: 'Set up now' }));
    expect(await screen.findByRole('heading', { name: 'How should Sentient think?' })).toBeInTheDocument();
    expect(screen.queryByText('Step 2 of 2')).toBeNull();
  });
});

describe('Onboarding: the model you already have', () => {
  it('lists what Ollama has, marks the one that can use tools, and sets every job to it with one click', async () => {
    const engine = setup(TWO_MODELS);
    renderWithApi(<ModelStep />, engine.api);
    const panel = await screen.findByTestId('local-models');
    expect(panel).toHaveTextContent('Ollama is running and already has these models.');
    const qwen = within(panel).getByRole('radio', { name: /qwen3:4b/ });
    const llama = within(panel).getByRole('radio', { name: /llama3\.2:3b/ });
    // The one that can use tools is marked and picked, though the other is bigger.
    expect(qwen).toBeChecked();
    expect(qwen.closest('label')).toHaveTextContent('Can use tools');
    expect(llama.closest('label')).toHaveTextContent("Chats, but can't use tools");
    // The download is the fallback, not the only offer.
    expect(within(panel).getByRole('button', { name: 'Download qwen3:8b (5.2 GB)' })).toHaveClass('btn-quiet');

    await userEvent.click(within(panel).getByRole('button', { name: 'Use qwen3:4b for everything' }));
    expect(engine.api.setRoles).toHaveBeenCalledTimes(1);
    expect(engine.api.setRoles).toHaveBeenCalledWith({
      primary: 'ollama_chat/qwen3:4b',
      fast: null,
      planner: null,
      executor: null,
      vision: null,
      voice: null,
    });
    expect(engine.api.pullModel).not.toHaveBeenCalled();
    expect(engine.api.applyModelPreset).not.toHaveBeenCalled();
    expect(await screen.findByTestId('model-ready')).toHaveTextContent('qwen3:4b is set up for every job. Nothing was downloaded.');
    await waitFor(() => expect(engine.api.modelCheckup).toHaveBeenCalledWith({ roles: { primary: 'ollama_chat/qwen3:4b' } }, expect.any(Function)));
  });

  it('warns before using a model that cannot use tools, and still lets the person pick it', async () => {
    const engine = setup(TWO_MODELS);
    renderWithApi(<ModelStep />, engine.api);
    const panel = await screen.findByTestId('local-models');
    expect(within(panel).queryByText(/can't search, read mail/)).toBeNull();
    await userEvent.click(within(panel).getByRole('radio', { name: /llama3\.2:3b/ }));
    expect(panel).toHaveTextContent("llama3.2:3b can chat but can't use tools");
    await userEvent.click(within(panel).getByRole('button', { name: 'Use llama3.2:3b for everything' }));
    expect(engine.api.setRoles).toHaveBeenCalledWith(expect.objectContaining({ primary: 'ollama_chat/llama3.2:3b', fast: null }));
  });

  it('takes the address of an Ollama on another computer, checked before it is saved', async () => {
    const engine = setup(NO_OLLAMA);
    engine.api.setLocalAddress
      .mockRejectedValueOnce(
        new ApiError(400, 'Nothing answered at http://192.168.1.20:1143: check the address, and that Ollama is running there and accepts connections from this computer.'),
      )
      .mockImplementationOnce(async () => {
        engine.api.localModels.mockResolvedValue(TWO_MODELS);
        return TWO_MODELS.ollama;
      });
    renderWithApi(<ModelStep />, engine.api);
    const install = await screen.findByTestId('install-ollama');
    await userEvent.click(within(install).getByRole('button', { name: 'Ollama runs on another computer?' }));
    const field = within(install).getByLabelText("Ollama's address");
    expect(field).toHaveValue('http://localhost:11434');

    await userEvent.clear(field);
    await userEvent.type(field, 'http://192.168.1.20:1143');
    await userEvent.click(within(screen.getByTestId('address-ollama')).getByRole('button', { name: 'Save' }));
    expect(engine.api.setLocalAddress).toHaveBeenCalledWith({ provider: 'ollama', api_base: 'http://192.168.1.20:1143' });
    expect(await within(install).findByRole('alert')).toHaveTextContent('Not saved. Nothing answered at http://192.168.1.20:1143');
    expect(field).toHaveAttribute('aria-invalid', 'true');

    await userEvent.clear(field);
    await userEvent.type(field, '192.168.1.20:11434{Enter}');
    expect(engine.api.setLocalAddress).toHaveBeenLastCalledWith({ provider: 'ollama', api_base: '192.168.1.20:11434' });
    // Found there: the models it has are offered right away.
    expect(await screen.findByTestId('local-models')).toHaveTextContent('Ollama is running and already has these models.');
  });

  it('without Ollama the preselected choice still has a way forward', async () => {
    const engine = setup(NO_OLLAMA);
    const finished: string[] = [];
    renderWithApi(<ModelStep onFinish={() => finished.push('done')} />, engine.api);
    await waitFor(() => expect(screen.getByRole('radio', { name: /On this computer/ })).toBeChecked());
    const install = await screen.findByTestId('install-ollama');
    await userEvent.click(within(install).getByRole('button', { name: 'Continue' }));
    expect(readModelSetup()).toBe('later');
    expect(finished).toEqual(['done']);
  });
});

describe('"Set up now" opens the step again, and it closes', () => {
  async function openAgain() {
    writeModelSetup('later');
    const engine = fakeApi(makeBootstrap());
    engine.api.localModels.mockResolvedValue(NO_OLLAMA);
    renderWithApi(<App />, engine.api);
    await userEvent.click(await screen.findByRole('button', { name: 'Set up now' }));
    expect(await screen.findByRole('heading', { name: 'How should Sentient think?' })).toBeInTheDocument();
    return engine;
  }

  it('closes with Close, back to the bar', async () => {
    await openAgain();
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(await screen.findByTestId('model-bar')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'How should Sentient think?' })).toBeNull();
    expect(readModelSetup()).toBe('later');
  });

  it('closes with Escape', async () => {
    await openAgain();
    await userEvent.keyboard('{Escape}');
    expect(await screen.findByTestId('model-bar')).toBeInTheDocument();
    expect(readModelSetup()).toBe('later');
  });

  it('does not come back after a reload: only the reminder is kept on this computer', async () => {
    await openAgain();
    // What a reload reads: the storage, not this window's memory.
    expect(window.localStorage.getItem(MODEL_SETUP_KEY)).toBe('later');
    closeModelSetup();
    // A window from before this change kept 'reopened' in storage: it reads as the reminder.
    window.localStorage.setItem(MODEL_SETUP_KEY, 'reopened');
    expect(readModelSetup()).toBe('later');
  });

  it('the first run has no Close: its way out is Later', async () => {
    setup(NO_OLLAMA);
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<ModelStep />, engine.api);
    await screen.findByRole('heading', { name: 'How should Sentient think?' });
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
  });
});

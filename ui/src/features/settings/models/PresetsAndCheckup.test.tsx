import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type CheckupLine, type RoleResult } from '../../../api';
import { fakeApi, makeBootstrap, makeHardware, PRESETS } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { ModelsSettings } from './ModelsSettings';

function setup() {
  return fakeApi(makeBootstrap());
}

// The built-in setups are on the top level; your own setups and the check-up sit under Advanced.
async function openAdvanced() {
  await userEvent.click(await screen.findByRole('button', { name: 'Advanced' }));
}

afterEach(() => window.localStorage.clear());

describe('Settings > Models: ready-made setups', () => {
  it('lists the setups, marks the one in use, and says why one is unavailable', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);

    // The setup in use can't be switched to again.
    const local = await screen.findByTestId('preset-Local only');
    expect(local).toHaveTextContent('In use');
    expect(within(local).queryByRole('button', { name: 'Use Local only' })).toBeNull();
    expect(within(screen.getByTestId('preset-Mixed')).getByRole('button', { name: 'Use Mixed' })).toBeEnabled();

    // An unavailable setup says why and offers its fix (adding a key), never a dead switch.
    const cloud = screen.getByTestId('preset-Cloud');
    expect(cloud).toHaveTextContent('Add a key for Anthropic, OpenAI or OpenRouter');
    expect(within(cloud).queryByRole('button', { name: 'Use Cloud' })).toBeNull();
    await userEvent.click(within(cloud).getByRole('button', { name: 'Add a key' }));
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Add another provider' })).toHaveFocus());

    // Only your own setups can be deleted (they are under Advanced).
    expect(within(screen.getByTestId('preset-Mixed')).queryByRole('button', { name: 'Delete Mixed' })).toBeNull();
    expect(screen.queryByTestId('preset-Work')).toBeNull();
    await openAdvanced();
    await userEvent.click(within(await screen.findByTestId('preset-Work')).getByRole('button', { name: 'Delete Work' }));
    expect(engine.api.deleteModelPreset).toHaveBeenCalledWith('Work');
  });

  it('applies a setup and shows what changed and what is missing, with its fix', async () => {
    const engine = setup();
    engine.api.applyModelPreset.mockResolvedValueOnce({
      preset: PRESETS.presets[2],
      changed: [
        { role: 'primary', from: 'ollama_chat/qwen3:8b', to: 'anthropic/claude-sonnet-5' },
        { role: 'fast', from: null, to: 'ollama_chat/qwen3:4b' },
      ],
      missing: [
        {
          kind: 'pull_model',
          roles: ['fast'],
          model: 'ollama_chat/qwen3:4b',
          provider: 'ollama_chat',
          detail: 'qwen3:4b is not downloaded yet.',
          fix: 'Download it to use it.',
          action: { kind: 'pull_model', name: 'qwen3:4b', label: 'Download qwen3:4b' },
        },
      ],
      can_undo: true,
    });
    renderWithApi(<ModelsSettings />, engine.api);

    await userEvent.click(await screen.findByRole('button', { name: 'Use Mixed' }));
    expect(engine.api.applyModelPreset).toHaveBeenCalledWith('Mixed');

    const result = await screen.findByTestId('switch-result');
    expect(result).toHaveTextContent('Switched to Mixed.');
    expect(result).toHaveTextContent('Main model: ollama_chat/qwen3:8b → anthropic/claude-sonnet-5');
    expect(result).toHaveTextContent('Quick jobs: the main model → ollama_chat/qwen3:4b');
    expect(within(result).getByTestId('missing')).toHaveTextContent('qwen3:4b is not downloaded yet. Download it to use it.');

    // The roles are fetched again after a switch.
    await waitFor(() => expect(engine.api.getRoles).toHaveBeenCalledTimes(2));

    // Its fix downloads the model; the progress shows beside the setups, and in the Ollama card.
    await userEvent.click(within(result).getByRole('button', { name: 'Download qwen3:4b' }));
    expect(engine.api.pullModel).toHaveBeenCalledWith('qwen3:4b', expect.any(Function));
    act(() => engine.lastPull().progress({ status: 'pulling abc', completed: 1, total: 4 }));
    expect(within(screen.getByTestId('presets-card')).getByRole('progressbar')).toHaveValue(25);
    await openAdvanced();
    expect(within(await screen.findByTestId('ollama-card')).getByRole('progressbar')).toHaveValue(25);
  });

  it('offers undo after a switch', async () => {
    const engine = setup();
    engine.api.modelPresets.mockResolvedValue({ ...PRESETS, can_undo: true, undo_preset: 'Local only' });
    engine.api.undoModelPreset.mockResolvedValueOnce({ preset: PRESETS.presets[0], changed: [], missing: [], can_undo: false });
    renderWithApi(<ModelsSettings />, engine.api);

    await userEvent.click(await screen.findByRole('button', { name: 'Undo the last switch (back to Local only)' }));
    expect(engine.api.undoModelPreset).toHaveBeenCalledTimes(1);
    expect(await screen.findByTestId('switch-result')).toHaveTextContent('Back to Local only.');
  });

  it("shows the engine's sentence when a switch is refused", async () => {
    const engine = setup();
    engine.api.applyModelPreset.mockRejectedValueOnce(new ApiError(404, 'There is no setup called Work.'));
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    await userEvent.click(await screen.findByRole('button', { name: 'Use Work' }));
    expect(await within(screen.getByTestId('own-presets-card')).findByRole('alert')).toHaveTextContent(
      "Couldn't switch. There is no setup called Work.",
    );
  });

  it('saves the current setup under a name, and offers to replace one with that name', async () => {
    const engine = setup();
    engine.api.saveModelPreset.mockRejectedValueOnce(new ApiError(409, 'You already have a setup called Work.'));
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const card = await screen.findByTestId('own-presets-card');

    await userEvent.type(within(card).getByLabelText('Save the current setup as'), 'Work');
    await userEvent.click(within(card).getByRole('button', { name: 'Save setup' }));
    expect(engine.api.saveModelPreset).toHaveBeenLastCalledWith({ name: 'Work', overwrite: false });
    expect(await within(card).findByRole('alert')).toHaveTextContent('You already have a setup called Work.');

    await userEvent.click(within(card).getByRole('button', { name: 'Replace it' }));
    expect(engine.api.saveModelPreset).toHaveBeenLastCalledWith({ name: 'Work', overwrite: true });
    expect(await within(card).findByText('Saved as Work.')).toBeInTheDocument();
  });
});

const PRIMARY_RESULT: RoleResult = {
  role: 'primary',
  model: 'ollama_chat/qwen3:4b',
  provider: 'ollama_chat',
  local: true,
  inherits: null,
  status: 'fail',
  checks: [
    { id: 'connection', label: 'Connection', status: 'pass', detail: 'Ollama is running and qwen3:4b is downloaded.' },
    {
      id: 'tools',
      label: 'Tools',
      status: 'fail',
      detail: "qwen3:4b didn't call the tool.",
      fix: 'Use qwen3:8b, which this computer runs well.',
      action: { kind: 'use_model', role: 'primary', model: 'ollama_chat/qwen3:8b', label: 'Use qwen3:8b' },
    },
  ],
};

describe('Settings > Models: the check-up', () => {
  it('shows live progress per role, then each check with its fix', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const card = await screen.findByTestId('checkup-card');

    await userEvent.click(within(card).getByRole('button', { name: 'Run the check-up' }));
    expect(engine.api.modelCheckup).toHaveBeenCalledWith({}, expect.any(Function));
    expect(within(card).getByRole('button', { name: 'Checking…' })).toBeDisabled();
    const run = engine.lastCheckup();
    const send = (line: CheckupLine) => act(() => run.progress(line));

    send({
      type: 'start',
      roles: [
        { role: 'primary', model: 'ollama_chat/qwen3:4b' },
        { role: 'fast', model: null },
      ],
      hardware: makeHardware(),
    });
    const primary = within(card).getByTestId('checkup-primary');
    expect(primary).toHaveTextContent('Main model');
    expect(primary).toHaveTextContent('Waiting');
    expect(within(card).getByTestId('checkup-fast')).toHaveTextContent('Uses the main model');

    send({ type: 'step', role: 'primary', label: 'Trying a tool call' });
    expect(primary).toHaveTextContent('Trying a tool call…');

    send({ type: 'role', ...PRIMARY_RESULT });
    expect(primary).not.toHaveTextContent('Trying a tool call');
    expect(primary).toHaveTextContent("Doesn't work");
    expect(primary).toHaveTextContent('Connection: Works. Ollama is running and qwen3:4b is downloaded.');
    expect(primary).toHaveTextContent("Tools: Doesn't work. qwen3:4b didn't call the tool.");
    expect(primary).toHaveTextContent('Use qwen3:8b, which this computer runs well.');

    // Quick jobs followed the main model when it was picked, because their model wasn't downloaded.
    const followed = {
      id: 'followed',
      label: 'Follows the main model',
      status: 'skip' as const,
      detail: "qwen3:14b isn't downloaded, so this job uses the main model (qwen3:4b) since you picked it.",
    };
    send({ type: 'role', role: 'fast', model: null, provider: null, local: false, inherits: 'primary', status: 'skip', checks: [followed] });
    expect(within(card).getByTestId('checkup-fast')).toHaveTextContent('Same as the main model');
    expect(within(card).getByTestId('checkup-fast')).toHaveTextContent(
      "Follows the main model. qwen3:14b isn't downloaded, so this job uses the main model (qwen3:4b) since you picked it.",
    );
    expect(within(card).getByTestId('checkup-fast')).not.toHaveTextContent('Skipped');

    send({ type: 'done', status: 'fail', roles: [PRIMARY_RESULT] });
    await act(async () => run.finish());
    expect(within(card).getByTestId('checkup-done')).toHaveTextContent("Some jobs won't work until you fix what is listed below.");
    expect(within(card).getByRole('button', { name: 'Run it again' })).toBeEnabled();

    // The fix sets the role's model.
    await userEvent.click(within(primary).getByRole('button', { name: 'Use qwen3:8b' }));
    expect(engine.api.setRoles).toHaveBeenCalledWith({ primary: 'ollama_chat/qwen3:8b' });
    expect(await within(primary).findByText('Done.')).toBeInTheDocument();
  });

  it("shows the engine's sentence when the check-up can't run", async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const card = await screen.findByTestId('checkup-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Run the check-up' }));
    await act(async () => engine.lastCheckup().fail(new ApiError(0, "Can't reach Sentient's engine. Make sure Sentient is running, then try again.")));
    expect(await within(card).findByRole('alert')).toHaveTextContent("Couldn't finish the check-up. Can't reach Sentient's engine.");
  });

  it('says so when the check-up ends without finishing', async () => {
    const engine = setup();
    renderWithApi(<ModelsSettings />, engine.api);
    await openAdvanced();
    const card = await screen.findByTestId('checkup-card');
    await userEvent.click(within(card).getByRole('button', { name: 'Run the check-up' }));
    act(() => engine.lastCheckup().progress({ type: 'start', roles: [{ role: 'primary', model: 'x/y' }], hardware: makeHardware() }));
    await act(async () => engine.lastCheckup().finish());
    expect(await within(card).findByRole('alert')).toHaveTextContent('The check-up stopped before it finished.');
  });
});

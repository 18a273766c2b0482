// Model errors carry the button that fixes them: the pages they name, Ollama's download with its
// progress, Get Ollama and Try again.
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../App';
import { fakeApi, makeBootstrap } from '../test/fakes';
import { renderWithApi } from '../test/render';
import { actionsFor } from './ErrorActions';

describe('error actions', () => {
  it('reads the fix from the sentence', () => {
    expect(actionsFor("The model qwen3:8b isn't downloaded in Ollama yet. Download it in Settings > Models, or run: ollama pull qwen3:8b", true)).toEqual([
      { kind: 'pull', label: 'Download qwen3:8b', model: 'qwen3:8b' },
      { kind: 'retry', label: 'Try again' },
      { kind: 'open', label: 'Open Settings > Models', href: '#/settings/models' },
    ]);
    expect(actionsFor("Ollama isn't answering. Start Ollama (or install it from ollama.com), then try again.", true).map((a) => a.label)).toEqual([
      'Get Ollama',
      'Try again',
    ]);
    expect(actionsFor('There is no key for OpenAI yet. Add one in Settings > Models.', false)).toEqual([
      { kind: 'open', label: 'Open Settings > Models', href: '#/settings/models' },
    ]);
    expect(actionsFor('Stopped.', true)).toEqual([]);
  });

  async function failedTurn(message: string) {
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    await screen.findByText('No chats yet — say hello below.');
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'error', message, recoverable: true });
      turn.emit({ type: 'done', content: '', message_id: null, memory_sources: [] });
    });
    return engine;
  }

  it('downloads the missing model from the chat with a progress bar', async () => {
    const engine = await failedTurn(
      "The model qwen3:8b isn't downloaded in Ollama yet. Download it in Settings > Models, or run: ollama pull qwen3:8b",
    );
    expect(screen.getByRole('link', { name: 'Open Settings > Models' })).toHaveAttribute('href', '#/settings/models');
    await userEvent.click(screen.getByRole('button', { name: 'Download qwen3:8b' }));
    expect(engine.api.pullModel).toHaveBeenCalledWith('qwen3:8b', expect.any(Function));
    act(() => engine.lastPull().progress({ status: 'pulling manifest', total: 100, completed: 40 }));
    expect(await screen.findByRole('progressbar', { name: 'Downloading qwen3:8b' })).toHaveAttribute('value', '40');
    await act(async () => engine.lastPull().finish());
    expect(await screen.findByText('qwen3:8b is downloaded. Try again to use it.')).toBeInTheDocument();
  });

  it('asks again for an answer to the same message, without sending it a second time', async () => {
    const engine = await failedTurn("Ollama isn't answering. Start Ollama (or install it from ollama.com), then try again.");
    expect(screen.getByRole('link', { name: 'Get Ollama' })).toHaveAttribute('href', 'https://ollama.com/download');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    // The failed turn is saved with the chat, so Try again is a new answer in its place.
    await waitFor(() => expect(engine.api.chatRegenerate).toHaveBeenCalledWith(expect.objectContaining({ session_id: 's1' }), expect.any(Function)));
    expect(engine.api.chatSend).toHaveBeenCalledTimes(1);
    expect(screen.getAllByTestId('user-message')).toHaveLength(1);
  });
});

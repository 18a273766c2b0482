import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import { ModelsSettings } from '../settings/models/ModelsSettings';
import { fakeApi, makeBootstrap, makeRow, makeSession } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { isAnswer, ModelBar } from './ModelBar';
import { closeModelSetup, MODEL_SETUP_KEY, readModelSetup, writeModelSetup } from './modelSetup';

beforeEach(() => {
  closeModelSetup();
  window.localStorage.removeItem(MODEL_SETUP_KEY);
});
afterEach(() => {
  closeModelSetup();
  window.localStorage.removeItem(MODEL_SETUP_KEY);
});

describe('the "No model set up yet" bar', () => {
  it('shows nothing for a window that never chose Later', async () => {
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<ModelBar />, engine.api);
    await Promise.resolve();
    expect(screen.queryByTestId('model-bar')).toBeNull();
    expect(engine.api.listSessions).not.toHaveBeenCalled();
  });

  it('stays while no chat holds a reply, and leads to the model step and Settings', async () => {
    writeModelSetup('later');
    const engine = fakeApi(makeBootstrap());
    await engine.api.createSession();
    engine.setMessages('s1', [makeRow({ id: 'm1', role: 'user', content: 'Hello' })]);
    renderWithApi(<ModelBar />, engine.api);

    const bar = await screen.findByTestId('model-bar');
    expect(bar).toHaveTextContent('No model set up yet · Sentient can\'t answer until a model is set up.');
    await waitFor(() => expect(engine.api.sessionMessages).toHaveBeenCalledWith('s1', 500));
    expect(screen.getByRole('link', { name: 'Open Settings > Models' })).toHaveAttribute('href', '#/settings/models');
    screen.getByRole('button', { name: 'Set up now' }).click();
    expect(readModelSetup()).toBe('reopened');
    // Kept in this window only: a reload shows the bar again, not the step.
    expect(window.localStorage.getItem(MODEL_SETUP_KEY)).toBe('later');
  });

  it('goes away for good once a chat has a reply from the model', async () => {
    writeModelSetup('unanswered');
    const engine = fakeApi(makeBootstrap());
    await engine.api.createSession();
    engine.setMessages('s1', [
      makeRow({ id: 'm1', role: 'user', content: 'Hello' }),
      makeRow({ id: 'm2', role: 'assistant', content: 'Hi Ada!' }),
    ]);
    renderWithApi(<ModelBar />, engine.api);
    await waitFor(() => expect(readModelSetup()).toBeNull());
    expect(screen.queryByTestId('model-bar')).toBeNull();
  });

  it('goes as soon as a Test in Settings answers, and stays after a failed one', async () => {
    writeModelSetup('later');
    const engine = fakeApi(makeBootstrap());
    renderWithApi(
      <>
        <ModelBar />
        <ModelsSettings />
      </>,
      engine.api,
    );
    expect(await screen.findByTestId('model-bar')).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'Advanced' }));
    const section = await screen.findByRole('region', { name: 'Main model' });

    engine.api.testModel.mockResolvedValueOnce({ ok: false, latency_ms: 0, reply: null, error: "Ollama isn't running.", supports_tools: null });
    await userEvent.click(within(section).getByRole('button', { name: 'Test' }));
    await within(section).findByText("Ollama isn't running.");
    expect(screen.getByTestId('model-bar')).toBeInTheDocument();
    expect(readModelSetup()).toBe('later');

    await userEvent.click(within(section).getByRole('button', { name: 'Test' }));
    await waitFor(() => expect(screen.queryByTestId('model-bar')).toBeNull());
    expect(readModelSetup()).toBeNull();
  });

  it('goes as soon as a chat reply arrives, without waiting for the chat list', async () => {
    window.history.replaceState(null, '', '#/chat');
    writeModelSetup('later');
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    expect(await screen.findByTestId('model-bar')).toBeInTheDocument();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello{Enter}');
    const turn = engine.lastTurn();
    // An error is not an answer.
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'error', message: "Ollama isn't running.", recoverable: true });
      turn.emit({ type: 'done', content: '', message_id: 'm2', memory_sources: [] });
    });
    expect(screen.getByTestId('model-bar')).toBeInTheDocument();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello again{Enter}');
    const next = engine.lastTurn();
    act(() => {
      next.emit({ type: 'session', client_id: next.body.client_id });
      next.emit({ type: 'done', content: 'Hi Ada!', message_id: 'm4', memory_sources: [] });
    });
    await waitFor(() => expect(screen.queryByTestId('model-bar')).toBeNull());
    expect(readModelSetup()).toBeNull();
  });

  it('counts a tool call as an answer, but not an empty assistant row', () => {
    expect(isAnswer({ role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{}' } }] })).toBe(true);
    expect(isAnswer({ role: 'assistant', content: '  ', tool_calls: [] })).toBe(false);
    expect(isAnswer({ role: 'user', content: 'Hi', tool_calls: [] })).toBe(false);
    expect(makeSession({ id: 'x' }).id).toBe('x');
  });
});

import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { App } from './App';
import { ApiError, UNREACHABLE } from './api';
import { UNREACHABLE_DETAIL } from './api/errors';
import { fakeApi, makeBootstrap } from './test/fakes';
import { renderWithApi } from './test/render';

beforeEach(() => {
  window.history.replaceState(null, '', '/');
  // Where onboarding's model step stands (features/onboarding/modelSetup.ts).
  window.localStorage.clear();
});

describe('first launch', () => {
  it('asks the onboarding questions, posts them, then shows the app', async () => {
    const boot = makeBootstrap({ onboarding_complete: false });
    boot.assistant.user_name = '';
    boot.assistant.timezone = 'auto';
    boot.assistant.location = '';
    const engine = fakeApi(boot);
    renderWithApi(<App />, engine.api);

    await screen.findByRole('heading', { name: 'Welcome' });
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(screen.getByLabelText('Time zone')).toHaveValue(zone);
    expect(screen.getByLabelText("Your assistant's name")).toHaveValue('Sentient');

    // Nothing is sent without a name.
    await userEvent.click(screen.getByRole('button', { name: 'Get started' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Tell Sentient what to call you.');
    expect(engine.api.onboarding).not.toHaveBeenCalled();

    await userEvent.type(screen.getByLabelText('Your name'), 'Grace');
    await userEvent.clear(screen.getByLabelText("Your assistant's name"));
    await userEvent.type(screen.getByLabelText("Your assistant's name"), 'Jarvis');
    await userEvent.type(screen.getByLabelText('Where you are (optional)'), 'Arlington, USA');
    await userEvent.click(screen.getByRole('button', { name: 'Get started' }));

    expect(engine.api.onboarding).toHaveBeenCalledWith({
      user_name: 'Grace',
      assistant_name: 'Jarvis',
      timezone: zone,
      location: 'Arlington, USA',
      professional_context: null,
      personal_context: null,
      persona: null,
      daily_brief: null,
    });
    // Then the model step (its own tests are in features/onboarding); Later leads to the app.
    await userEvent.click(await screen.findByRole('radio', { name: /Later/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Finish and set it up later' }));
    expect(await screen.findByRole('heading', { name: 'Chat' })).toBeInTheDocument();
    expect(screen.getByText(/Hi Grace\. This is where you and Jarvis talk\./)).toBeInTheDocument();
  });

  it("shows the engine's sentence when onboarding is turned down", async () => {
    const engine = fakeApi(makeBootstrap({ onboarding_complete: false }));
    engine.api.onboarding.mockRejectedValueOnce(new ApiError(422, 'That time zone is not one Sentient knows.'));
    renderWithApi(<App />, engine.api);

    await userEvent.click(await screen.findByRole('button', { name: 'Get started' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That time zone is not one Sentient knows.');
    expect(screen.getByRole('heading', { name: 'Welcome' })).toBeInTheDocument();
  });
});

describe('start-up problems', () => {
  it('says the engine cannot be reached and what to do, and tries again', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.bootstrap.mockRejectedValueOnce(new ApiError(UNREACHABLE, UNREACHABLE_DETAIL));
    renderWithApi(<App />, engine.api);

    expect(await screen.findByRole('heading', { name: "Can't reach Sentient" })).toBeInTheDocument();
    expect(screen.getByText(UNREACHABLE_DETAIL)).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Chat' })).toBeInTheDocument();
  });

  it('explains a missing sign-in', async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.bootstrap.mockRejectedValueOnce(new ApiError(401, 'Sign-in needed.'));
    renderWithApi(<App />, engine.api);
    expect(await screen.findByRole('heading', { name: "This window isn't signed in" })).toBeInTheDocument();
    expect(screen.getByText('Sign-in needed.')).toBeInTheDocument();
  });
});

describe('navigation', () => {
  it('says when an address names no page, with a way back to Chat', async () => {
    window.location.hash = '#/no-such-page';
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Go to Chat' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Chat' })).toBeInTheDocument();
    expect(window.location.hash).toBe('#/chat');
  });

  it('moves between pages through the URL hash, and a reload keeps the page', async () => {
    const engine = fakeApi(makeBootstrap());
    const first = renderWithApi(<App />, engine.api);
    await screen.findByRole('heading', { name: 'Chat' });

    const nav = screen.getByRole('navigation', { name: 'Main' });
    for (const [label, hash] of [
      ['Tasks', '#/tasks'],
      ['Notifications', '#/notifications'],
      ['Memory', '#/memory'],
      ['Integrations', '#/integrations'],
      ['Settings', '#/settings'],
      ['Chat', '#/chat'],
    ] as const) {
      const link = nav.querySelector(`a[href="${hash}"]`) as HTMLAnchorElement;
      expect(link).toHaveTextContent(label);
      await userEvent.click(link);
      await waitFor(() => expect(window.location.hash).toBe(hash));
      expect(await screen.findByRole('heading', { level: 1, name: label })).toBeInTheDocument();
      expect(link).toHaveAttribute('aria-current', 'page');
    }

    await userEvent.click(nav.querySelector('a[href="#/tasks"]')!);
    await screen.findByRole('heading', { level: 1, name: 'Tasks' });
    expect(await screen.findByText('No tasks yet — describe one above.')).toBeInTheDocument();
    expect(
      screen.getByText('Tasks you give Sentient will show up here: things to do now, on a schedule, or when something happens.'),
    ).toBeInTheDocument();

    first.unmount();
    renderWithApi(<App />, fakeApi(makeBootstrap()).api);
    expect(await screen.findByRole('heading', { level: 1, name: 'Tasks' })).toBeInTheDocument();
  });
});

describe('live updates', () => {
  it('fetches bootstrap again on config.updated, and after the live connection comes back', async () => {
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    await screen.findByRole('heading', { name: 'Chat' });
    expect(engine.api.bootstrap).toHaveBeenCalledTimes(1);

    act(() => engine.emit('config.updated', { sections: ['ui'] }));
    await waitFor(() => expect(engine.api.bootstrap).toHaveBeenCalledTimes(2));

    act(() => engine.emit('connection.lost', null));
    expect(await screen.findByText(/Lost the live connection to Sentient/)).toBeInTheDocument();
    act(() => engine.emit('hello', { type: 'hello', version: '0.1.0' }));
    await waitFor(() => expect(screen.queryByText(/Lost the live connection/)).toBeNull());
    await waitFor(() => expect(engine.api.bootstrap).toHaveBeenCalledTimes(3));
  });

  it('saves a theme change through the engine', async () => {
    window.history.replaceState(null, '', '/#/settings');
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    await userEvent.click(await screen.findByLabelText('Light'));
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ ui: { theme: 'light' } });
  });
});

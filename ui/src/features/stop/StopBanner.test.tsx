import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../../App';
import { ApiError } from '../../api';
import { fakeApi, makeBootstrap, RUNNING } from '../../test/fakes';
import { renderWithApi } from '../../test/render';

const BANNER_TEXT = 'Sentient is stopped. Scheduled tasks, triggers and suggestions are paused until you resume.';
const STOPPED_FROM_TRAY = { stopped: true, stopped_at: '2030-05-04T10:00:00Z', source: 'tray' };

function banner() {
  return screen.queryByTestId('stop-banner');
}

describe('Stop banner', () => {
  it('shows when bootstrap says Sentient is stopped, with where it was stopped, and Resume resumes', async () => {
    const engine = fakeApi(makeBootstrap({ stop: STOPPED_FROM_TRAY }));
    renderWithApi(<App />, engine.api);

    const el = await screen.findByTestId('stop-banner');
    expect(el).toHaveTextContent(BANNER_TEXT);
    expect(el).toHaveTextContent('from the tray menu');
    expect(within(el).getByText(/at /, { selector: 'time' })).toHaveAttribute('datetime', '2030-05-04T10:00:00Z');
    expect(el).toHaveTextContent('What you start yourself still works: chat, Run now and answering a task’s question.');
    // The title bar offers Resume instead of Stop everything; it is the only Resume.
    expect(screen.getByTestId('titlebar-stop')).toHaveTextContent('Resume');
    expect(screen.getAllByRole('button', { name: 'Resume' })).toHaveLength(1);

    await userEvent.click(screen.getByRole('button', { name: 'Resume' }));

    expect(engine.api.resume).toHaveBeenCalledTimes(1);
    expect(engine.api.resume).toHaveBeenCalledWith('desktop');
    await waitFor(() => expect(banner()).toBeNull());
    expect(screen.getByTestId('titlebar-stop')).toHaveTextContent('Stop everything');
  });

  it('disappears when a stop.updated event says Sentient was resumed elsewhere', async () => {
    const engine = fakeApi(makeBootstrap({ stop: STOPPED_FROM_TRAY }));
    renderWithApi(<App />, engine.api);
    await screen.findByTestId('stop-banner');

    act(() => engine.emit('stop.updated', { stopped: false, stopped_at: null, source: 'tray' }));

    await waitFor(() => expect(banner()).toBeNull());
    expect(screen.getByTestId('titlebar-stop')).toHaveTextContent('Stop everything');
    expect(engine.api.resume).not.toHaveBeenCalled();
  });

  it('appears live when Sentient is stopped from somewhere else', async () => {
    const engine = fakeApi(makeBootstrap({ stop: RUNNING }));
    renderWithApi(<App />, engine.api);
    await screen.findByRole('heading', { name: 'Chat' });
    expect(banner()).toBeNull();

    act(() => engine.emit('stop.updated', { stopped: true, stopped_at: '2030-05-04T09:30:00Z', source: 'hotkey' }));

    await waitFor(() => expect(banner()).toHaveTextContent(BANNER_TEXT));
    expect(banner()).toHaveTextContent('with the keyboard shortcut');
  });

  it('Stop everything in the title bar stops, then the banner shows', async () => {
    const engine = fakeApi(makeBootstrap({ stop: RUNNING }));
    renderWithApi(<App />, engine.api);

    await userEvent.click(await screen.findByRole('button', { name: 'Stop everything' }));

    expect(engine.api.stopAll).toHaveBeenCalledWith('desktop');
    expect(await screen.findByTestId('stop-banner')).toHaveTextContent('from the app');
    expect(screen.getByTestId('titlebar-stop')).toHaveTextContent('Resume');
  });

  it("shows the engine's sentence when resuming fails, and stays stopped", async () => {
    const engine = fakeApi(makeBootstrap({ stop: STOPPED_FROM_TRAY }));
    engine.api.resume.mockRejectedValueOnce(new ApiError(503, 'Sentient is still shutting things down. Try again in a moment.'));
    renderWithApi(<App />, engine.api);

    await screen.findByTestId('stop-banner');
    await userEvent.click(screen.getByRole('button', { name: 'Resume' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Sentient is still shutting things down. Try again in a moment.');
    expect(banner()).not.toBeNull();
  });
});

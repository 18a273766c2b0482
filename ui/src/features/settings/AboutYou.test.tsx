// Settings > General: what onboarding asked is editable, and the location the weather uses is saved.
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import { fakeApi, makeBootstrap } from '../../test/fakes';
import { renderWithApi } from '../../test/render';

afterEach(() => {
  window.location.hash = '';
});

describe('About you', () => {
  it('edits the name, time zone and location and saves them together', async () => {
    window.location.hash = '#/settings';
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    const location = await screen.findByLabelText('Where you are');
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await userEvent.clear(location);
    await userEvent.type(location, '  Pune, India ');
    await userEvent.clear(screen.getByLabelText('Time zone'));
    await userEvent.type(screen.getByLabelText('Time zone'), 'Asia/Kolkata');
    await userEvent.click(save);
    expect(engine.api.patchConfig).toHaveBeenCalledWith({
      assistant: expect.objectContaining({ location: 'Pune, India', timezone: 'Asia/Kolkata' }),
    });
    expect(await screen.findByRole('status')).toHaveTextContent('Saved.');
  });

  it('will not save without an assistant name', async () => {
    window.location.hash = '#/settings';
    const engine = fakeApi(makeBootstrap());
    renderWithApi(<App />, engine.api);
    const name = await screen.findByLabelText("Assistant's name");
    await userEvent.clear(name);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Give your assistant a name');
    expect(engine.api.patchConfig).not.toHaveBeenCalled();
  });
});

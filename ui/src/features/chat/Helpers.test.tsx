// A chat's helpers: hidden until it has one; each shows its goal, where it stands and what it
// found or why it stopped; Cancel stops a running one and the list follows.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, makeBootstrap, makeSubagent } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { Helpers } from './Helpers';

describe('a chat’s helpers', () => {
  it('shows nothing for a chat without helpers', async () => {
    const fake = fakeApi(makeBootstrap());
    renderWithApi(<Helpers sessionId="s1" />, fake.api);
    await expect.poll(() => fake.api.listSubagents.mock.calls.length).toBeGreaterThan(0);
    expect(screen.queryByRole('region', { name: 'Helpers' })).toBeNull();
  });

  it('lists each helper with its state, and Cancel stops a running one', async () => {
    const fake = fakeApi(makeBootstrap());
    fake.setHelpers([
      makeSubagent({ subagent_id: 'h2', goal: 'Find hotels in Goa', status: 'running', background: true }),
      makeSubagent({ subagent_id: 'h1', goal: 'Compare train times', status: 'completed', background: false, summary: 'The 07:10 is fastest.' }),
      makeSubagent({ subagent_id: 'h0', goal: 'Read the timetable', status: 'error', background: false, error: 'Stopped after 24 steps without finishing.' }),
    ]);
    renderWithApi(<Helpers sessionId="s1" />, fake.api);
    const region = await screen.findByRole('region', { name: 'Helpers' });
    const rows = within(region).getAllByTestId('helper');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toHaveTextContent('Find hotels in Goa');
    expect(rows[0]).toHaveTextContent('Working… · in the background');
    expect(rows[1]).toHaveTextContent('Done');
    expect(rows[1]).toHaveTextContent('The 07:10 is fastest.');
    expect(rows[2]).toHaveTextContent("Couldn't finish");
    expect(rows[2]).toHaveTextContent('Stopped after 24 steps without finishing.');
    // Only the running one can be cancelled.
    expect(within(rows[1]).queryByRole('button')).toBeNull();
    await userEvent.click(within(rows[0]).getByRole('button', { name: 'Cancel' }));
    expect(fake.api.cancelSubagent).toHaveBeenCalledWith('h2');
    await expect.poll(() => within(region).getAllByTestId('helper')[0].textContent).toContain('Cancelled');
    expect(within(within(region).getAllByTestId('helper')[0]).queryByRole('button')).toBeNull();
  });
});

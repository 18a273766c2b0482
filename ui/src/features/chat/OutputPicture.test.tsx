import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, makeBootstrap } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { ToolCard } from './ToolCard';
import type { ToolView } from './conversation';
import { pictureOf } from './OutputPicture';

function chartTool(result: unknown): ToolView {
  return {
    call_id: 'c1',
    name: 'charts_create',
    arguments: { kind: 'bar', title: 'Spending by month' },
    progress: [],
    result,
    is_error: false,
    declined: false,
    approval: null,
  };
}

describe('pictures from tools', () => {
  it('only a saved picture under outputs/ counts', () => {
    expect(pictureOf({ file: 'outputs/charts/spending.png', title: 'Spending' })).toEqual({
      file: 'outputs/charts/spending.png',
      title: 'Spending',
    });
    expect(pictureOf({ file: 'outputs/charts/spending.svg' })).toBeNull();
    expect(pictureOf({ file: '../secret.png' })).toBeNull();
    expect(pictureOf({ file: 'uploads/x.png' })).toBeNull();
    expect(pictureOf('outputs/a.png')).toBeNull();
    expect(pictureOf({ file: 'outputs/a.png' })?.title).toBe('a.png');
  });

  it('a chart shows as a picture read through the API, not as JSON', async () => {
    const { api } = fakeApi(makeBootstrap());
    const created = vi.fn(() => 'blob:chart');
    URL.createObjectURL = created;
    URL.revokeObjectURL = vi.fn();
    renderWithApi(
      <ToolCard tool={chartTool({ file: 'outputs/charts/spending.png', title: 'Spending by month' })} onAnswer={async () => {}} />,
      api,
    );
    const picture = await screen.findByTestId('tool-picture');
    expect(picture.getAttribute('src')).toBe('blob:chart');
    expect(picture.getAttribute('alt')).toBe('Spending by month');
    expect(api.fileContent).toHaveBeenCalledWith('outputs/charts/spending.png');
    expect(screen.queryByTestId('tool-result')).toBeNull();
  });

  it('a picture that cannot be read says so in a sentence', async () => {
    const { api } = fakeApi(makeBootstrap());
    vi.mocked(api.fileContent).mockRejectedValueOnce(new Error('404'));
    renderWithApi(<ToolCard tool={chartTool({ file: 'outputs/charts/gone.png' })} onAnswer={async () => {}} />, api);
    await waitFor(() => expect(screen.getByText(/couldn't be opened/)).toBeTruthy());
  });
});

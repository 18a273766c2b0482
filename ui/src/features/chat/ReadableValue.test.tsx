import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fieldLabel, ReadableValue } from './ReadableValue';

describe('readable tool results', () => {
  it('shows fields as labelled lines, lists as lists, and cuts long text', () => {
    const { container } = render(
      <ReadableValue
        value={{
          query: 'elections',
          published_at: null,
          ok: true,
          articles: Array.from({ length: 22 }, (_, i) => ({ title: `Story ${i + 1}` })),
          body: 'x'.repeat(700),
        }}
      />,
    );
    expect(screen.getByText('Query')).toBeInTheDocument();
    expect(screen.getByText('Published at').nextSibling).toHaveTextContent('none');
    expect(screen.getByText('Ok').nextSibling).toHaveTextContent('yes');
    expect(container.querySelectorAll('.readable-list > li')).toHaveLength(21);
    expect(screen.getByText('and 2 more')).toBeInTheDocument();
    expect(screen.getByText(/^x+…$/).textContent).toHaveLength(601);
    expect(container.textContent).not.toContain('{');
  });

  it('names fields in words', () => {
    expect(fieldLabel('modified_at')).toBe('Modified at');
    expect(fieldLabel('rainChancePercent')).toBe('Rain chance percent');
  });
});

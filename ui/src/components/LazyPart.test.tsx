import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { LazyPart, lazyNamed } from './LazyPart';

function Greeting({ name }: { name: string }) {
  return <p>Hello {name}</p>;
}

describe('a part loaded when first shown', () => {
  it('shows the spinner while its code loads, then the part with its props', async () => {
    let finish: (module: { Greeting: typeof Greeting }) => void = () => {};
    const Lazy = lazyNamed(() => new Promise<{ Greeting: typeof Greeting }>((resolve) => (finish = resolve)), 'Greeting');
    render(
      <LazyPart>
        <Lazy name="Grace" />
      </LazyPart>,
    );
    expect(screen.getByRole('status')).toHaveTextContent('Loading…');
    finish({ Greeting });
    expect(await screen.findByText('Hello Grace')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it("says it didn't load and offers Reload when its code can't be fetched", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const Lazy = lazyNamed(
      () => Promise.reject<{ Greeting: typeof Greeting }>(new TypeError('Failed to fetch dynamically imported module')),
      'Greeting',
    );
    render(
      <LazyPart>
        <Lazy name="Grace" />
      </LazyPart>,
    );
    expect(await screen.findByRole('alert')).toHaveTextContent("This part of Sentient didn't load.");
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
  });
});

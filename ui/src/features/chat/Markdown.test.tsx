import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Markdown } from './Markdown';

describe('a reply as markdown', () => {
  it('renders headings, lists, emphasis, inline code, links and tables', () => {
    const { container } = render(
      <Markdown
        text={[
          '# Plan',
          '',
          'Some **bold**, *italic* and `inline` words.',
          '',
          '- one',
          '- two',
          '',
          '1. first',
          '',
          'See [the docs](https://example.com/docs).',
          '',
          '| Day | Job |',
          '| --- | --- |',
          '| Mon | Gym |',
        ].join('\n')}
      />,
    );
    // Headings sit below the page's own.
    expect(screen.getByRole('heading', { level: 3, name: 'Plan' })).toBeInTheDocument();
    expect(container.querySelector('strong')).toHaveTextContent('bold');
    expect(container.querySelector('em')).toHaveTextContent('italic');
    expect(container.querySelector('code')).toHaveTextContent('inline');
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['one', 'two', 'first']);
    const link = screen.getByRole('link', { name: 'the docs' });
    expect(link).toHaveAttribute('href', 'https://example.com/docs');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByRole('cell', { name: 'Gym' })).toBeInTheDocument();
  });

  it('shows a code block in monospace whose Copy puts exactly that code on the clipboard', async () => {
    const user = userEvent.setup();
    const write = vi.spyOn(navigator.clipboard, 'writeText');
    render(<Markdown text={'Run this:\n\n```python\nprint("hi")\nx = 1\n```\n\nAnd this:\n\n```\nls -la\n```'} />);
    const blocks = screen.getAllByTestId('code-block');
    expect(blocks).toHaveLength(2);
    expect(within(blocks[0]).getByText('python')).toBeInTheDocument();
    expect(blocks[0].querySelector('pre code')).toHaveTextContent('print("hi") x = 1');
    await user.click(within(blocks[0]).getByRole('button', { name: 'Copy code' }));
    expect(write).toHaveBeenLastCalledWith('print("hi")\nx = 1');
    expect(await navigator.clipboard.readText()).toBe('print("hi")\nx = 1');
    expect(within(blocks[0]).getByRole('button', { name: 'Copied' })).toBeInTheDocument();
    await user.click(within(blocks[1]).getByRole('button', { name: 'Copy code' }));
    expect(await navigator.clipboard.readText()).toBe('ls -la');
  });

  it('never turns the text into live HTML: scripts, handlers and javascript: links are words or gone', () => {
    const { container } = render(
      <Markdown
        text={[
          'Hello <script>window.hacked = true</script> there',
          '',
          '<img src="x" onerror="window.hacked = true">',
          '',
          '[click me](javascript:window.hacked=true) and <a href="javascript:alert(1)">raw</a>',
        ].join('\n')}
      />,
    );
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('[onerror]')).toBeNull();
    // The model's HTML shows as the words it wrote.
    expect(container).toHaveTextContent('Hello <script>window.hacked = true</script> there');
    for (const a of Array.from(container.querySelectorAll('a'))) {
      expect(a.getAttribute('href') ?? '').not.toMatch(/^\s*javascript:/i);
    }
    expect(screen.queryByRole('link', { name: 'click me' })).toBeNull();
    expect((window as unknown as { hacked?: boolean }).hacked).toBeUndefined();
  });

  it('shows a code fence that is still streaming as code, keeping the blocks before it', () => {
    const { container, rerender } = render(<Markdown text={'Here:\n\n```js\nconst a'} />);
    const first = container.querySelector('.chat-md-block');
    expect(screen.getByTestId('code-block').querySelector('code')).toHaveTextContent('const a');
    rerender(<Markdown text={'Here:\n\n```js\nconst a = 1;\n```\n\nDone.'} />);
    expect(screen.getByTestId('code-block').querySelector('code')).toHaveTextContent('const a = 1;');
    // The paragraph before it is the same element: nothing above the new words flickers.
    expect(container.querySelector('.chat-md-block')).toBe(first);
    expect(screen.getByText('Done.')).toBeInTheDocument();
  });
});

// The Memory page against the fake engine: each tab's main action and its empty state, the
// review badge, memory off with its fix, the words-only note, and a live refresh from
// `memory.updated`.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import type { Memory, ReviewItem } from '../../api';
import { fakeApi, makeBootstrap, makeMemory, makeReviewItem } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { addedWords, EMPTY_FACTS, factFromHash, sourceWords, WORDS_ONLY } from './FactsTab';
import { layout } from './MapTab';
import { tabFromHash } from './MemoryPage';
import { daysLeft, EMPTY_REVIEW } from './ReviewTab';

function setup({ facts = [], held = [], hash = '#/memory' }: { facts?: Memory[]; held?: ReviewItem[]; hash?: string } = {}) {
  window.location.hash = hash;
  const engine = fakeApi(makeBootstrap());
  engine.setMemories(facts);
  engine.setHeld(held);
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

afterEach(() => {
  window.location.hash = '';
});

const factTexts = () => screen.queryAllByTestId('memory-fact').map((f) => f.querySelector('.memory-content')?.textContent);

describe('memory words', () => {
  it('names tabs from the address, sources and outcomes in plain words', () => {
    expect(tabFromHash('#/memory/review')).toBe('review');
    expect(tabFromHash('#/memory/nope')).toBe('facts');
    expect(tabFromHash('#/memory?fact=12')).toBe('facts');
    expect(factFromHash('#/memory?fact=12')).toBe(12);
    expect(factFromHash('#/memory')).toBeNull();
    expect(sourceWords('file:resume.pdf')).toBe('from resume.pdf');
    expect(sourceWords('manual')).toBe('added by you');
    expect(addedWords({ action: 'SKIP', id: 1, content: 'x' })).toBe('Sentient already knew that.');
    expect(daysLeft('2030-05-10T10:00:00Z', new Date('2030-05-04T10:00:00Z'))).toBe(6);
    expect(daysLeft('2030-05-01T10:00:00Z', new Date('2030-05-04T10:00:00Z'))).toBe(0);
  });

  it('lays the map out inside its frame with links between known nodes only', () => {
    const node = (id: number) => ({ id, label: `n${id}`, title: `n${id}`, content: `n${id}`, topics: [], memory_type: 'long-term' as const, source: 'manual', created_at: '2030-05-04T10:00:00Z' });
    const placed = layout({ nodes: [node(1), node(2), node(3)], links: [{ source: 1, target: 2, value: 0.9 }, { source: 1, target: 9, value: 0.9 }] });
    expect(placed.links).toHaveLength(1);
    for (const n of placed.nodes) {
      expect(n.x).toBeGreaterThanOrEqual(10);
      expect(n.y).toBeGreaterThanOrEqual(10);
    }
  });
});

describe('the Memory page', () => {
  it('starts empty, adds a fact and shows it', async () => {
    const { engine } = setup();
    expect(await screen.findByText(EMPTY_FACTS)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('A fact to remember'), 'My sister Meera lives in Lisbon');
    await userEvent.click(screen.getByRole('button', { name: 'Remember' }));
    expect(await screen.findByTestId('added')).toHaveTextContent('Remembered.');
    expect(engine.api.createMemory).toHaveBeenCalledWith('My sister Meera lives in Lisbon');
    await waitFor(() => expect(factTexts()).toEqual(['My sister Meera lives in Lisbon']));
  });

  it('edits a fact in place, showing what it said before, and deletes one after a confirm', async () => {
    setup({ facts: [makeMemory({ id: 1, content: 'User lives in Pune' }), makeMemory({ id: 2, content: 'User likes tea', topics: ['Interests & Lifestyle'] })] });
    const pune = (await screen.findByText('User lives in Pune')).closest('li') as HTMLElement;
    await userEvent.click(within(pune).getByRole('button', { name: 'Edit' }));
    const box = within(pune).getByLabelText('The fact');
    await userEvent.clear(box);
    await userEvent.type(box, 'User lives in Bengaluru');
    await userEvent.click(within(pune).getByRole('button', { name: 'Save' }));
    expect(await screen.findByTestId('previous')).toHaveTextContent('Before: User lives in Pune');
    const tea = screen.getByText('User likes tea').closest('li') as HTMLElement;
    await userEvent.click(within(tea).getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(tea).getByRole('button', { name: 'Forget it' }));
    await waitFor(() => expect(factTexts()).toEqual(['User lives in Bengaluru']));
  });

  it('filters by topic chip and source, and forgets a whole source', async () => {
    const { engine } = setup({
      facts: [
        makeMemory({ id: 1, content: 'User likes tea', topics: ['Interests & Lifestyle'] }),
        makeMemory({ id: 2, content: 'User works as a nurse', topics: ['Work & Learning'], source: 'file:cv.pdf' }),
      ],
    });
    const chip = await screen.findByRole('button', { name: /Work & Learning/ });
    expect(chip).toHaveTextContent('1');
    await userEvent.click(chip);
    await waitFor(() => expect(factTexts()).toEqual(['User works as a nurse']));
    await userEvent.click(chip);
    await userEvent.selectOptions(screen.getByLabelText('Source'), 'file:cv.pdf');
    await userEvent.click(await screen.findByRole('button', { name: 'Forget this source' }));
    await userEvent.click(screen.getByRole('button', { name: 'Forget everything from cv.pdf' }));
    expect(engine.api.deleteMemorySource).toHaveBeenCalledWith('file:cv.pdf');
    await waitFor(() => expect(factTexts()).toEqual(['User likes tea']));
  });

  it('marks the fact a reply\'s memory source links to', async () => {
    setup({ hash: '#/memory?fact=2', facts: [makeMemory({ id: 1, content: 'User likes tea' }), makeMemory({ id: 2, content: 'User lives in Lisbon' })] });
    const row = (await screen.findByText('User lives in Lisbon')).closest('li') as HTMLElement;
    expect(row).toHaveAttribute('aria-current', 'true');
    expect(screen.getByText('User likes tea').closest('li')).not.toHaveAttribute('aria-current');
  });

  it('says when search uses words only, with a way to Settings', async () => {
    setup({ facts: [makeMemory({ id: 1, content: 'User plays the cello' })] });
    await userEvent.type(await screen.findByLabelText('Search memories'), 'cello');
    const note = await screen.findByTestId('words-only');
    expect(note).toHaveTextContent(WORDS_ONLY);
    expect(within(note).getByRole('link', { name: 'Open Settings' })).toHaveAttribute('href', '#/settings/models');
  });

  it('badges the waiting memories and approves, edits, discards and approves all from a source', async () => {
    const { engine } = setup({
      hash: '#/memory/review',
      held: [
        makeReviewItem({ id: 50, text: 'User owns a boat' }),
        makeReviewItem({ id: 51, text: 'User lives in Oslo' }),
        makeReviewItem({ id: 52, text: 'User likes jazz' }),
        makeReviewItem({ id: 53, text: 'User has a cat', from: 'Gmail' }),
        makeReviewItem({ id: 54, text: 'User runs', from: 'Gmail' }),
      ],
    });
    const tab = await screen.findByRole('tab', { name: /Review/ });
    await waitFor(() => expect(tab).toHaveTextContent('5'));
    expect(within(screen.getByRole('navigation', { name: 'Main' })).getByLabelText('5 waiting for review')).toBeInTheDocument();
    const row = (text: string) => screen.getByText(text).closest('li') as HTMLElement;
    await userEvent.click(within(row('User owns a boat')).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(screen.queryByText('User owns a boat')).not.toBeInTheDocument());
    await userEvent.click(within(row('User lives in Oslo')).getByRole('button', { name: 'Edit and approve' }));
    const box = within(row('User lives in Oslo')).getByLabelText('In your words');
    await userEvent.clear(box);
    await userEvent.type(box, 'User visited Oslo once');
    await userEvent.click(screen.getByRole('button', { name: 'Save and approve' }));
    expect(engine.api.approveMemory).toHaveBeenCalledWith('fact', 51, 'User visited Oslo once');
    await userEvent.click(within(await waitFor(() => row('User likes jazz'))).getByRole('button', { name: 'Discard' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Approve all from Gmail' }));
    expect(await screen.findByText(EMPTY_REVIEW)).toBeInTheDocument();
    expect(engine.api.approveAllMemories).toHaveBeenCalledWith('Gmail');
    await userEvent.click(screen.getByRole('tab', { name: /Facts/ }));
    await waitFor(() => expect(factTexts()).toEqual(expect.arrayContaining(['User owns a boat', 'User visited Oslo once', 'User has a cat'])));
    expect(factTexts()).not.toContain('User likes jazz');
  });

  it('refreshes live when a chat remembers something', async () => {
    const { engine } = setup();
    await screen.findByText(EMPTY_FACTS);
    engine.setMemories([makeMemory({ id: 9, content: 'User is allergic to peanuts' })]);
    act(() => engine.emit('memory.updated', { action: 'ADD', id: 9, content: 'User is allergic to peanuts' }));
    await waitFor(() => expect(factTexts()).toEqual(['User is allergic to peanuts']));
  });

  it('moves between tabs with the arrow keys, Home and End, as one Tab stop', async () => {
    setup({ hash: '#/memory/facts' });
    const facts = await screen.findByRole('tab', { name: 'Facts' });
    expect(facts).toHaveAttribute('tabindex', '0');
    expect(screen.getByRole('tab', { name: /Review/ })).toHaveAttribute('tabindex', '-1');
    facts.focus();
    await userEvent.keyboard('{ArrowRight}');
    const review = screen.getByRole('tab', { name: /Review/ });
    expect(review).toHaveFocus();
    expect(review).toHaveAttribute('aria-selected', 'true');
    expect(window.location.hash).toBe('#/memory/review');
    await userEvent.keyboard('{End}');
    expect(screen.getByRole('tab', { name: 'Import' })).toHaveFocus();
    await userEvent.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Facts' })).toHaveAttribute('aria-selected', 'true');
    await userEvent.keyboard('{ArrowLeft}');
    expect(screen.getByRole('tab', { name: 'Import' })).toHaveFocus();
    await userEvent.keyboard('{Home}');
    expect(screen.getByRole('tab', { name: 'Facts' })).toHaveFocus();
  });

  it('says when memory is off and turns it on', async () => {
    const { engine } = setup();
    engine.api.getConfig.mockResolvedValue({ ...(await engine.api.getConfig()), memory: { ...(await engine.api.getConfig()).memory, enabled: false } });
    window.location.hash = '#/memory';
    expect(await screen.findByTestId('memory-off')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Turn memory on' }));
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ memory: { enabled: true } });
  });

  it('draws the map, lists past chats with their mark and saves the notes files', async () => {
    const { engine } = setup({ facts: [makeMemory({ id: 1, content: 'User runs marathons' }), makeMemory({ id: 2, content: 'User collects stamps' })], hash: '#/memory/map' });
    expect(await screen.findAllByTestId('map-node')).toHaveLength(2);
    engine.setSummaries([
      { id: 1, content: 'Planned a trip to Porto.', start_at: '2030-05-04T09:00:00Z', end_at: '2030-05-04T09:30:00Z', session_id: 's1', untrusted: 'Gmail' },
    ]);
    await userEvent.click(screen.getByRole('tab', { name: 'Past chats' }));
    expect(await screen.findByTestId('summary-mark')).toHaveTextContent('Gmail');
    await userEvent.click(screen.getByRole('tab', { name: 'Notes' }));
    // Plain names, no file names or raw markdown until Edit.
    const section = await screen.findByRole('region', { name: 'About you' });
    expect(screen.getByRole('region', { name: 'How Sentient talks' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Things to remember' })).toBeInTheDocument();
    expect(screen.getByRole('tabpanel')).not.toHaveTextContent(/\.md/);
    expect(screen.queryByRole('textbox')).toBeNull();
    await userEvent.click(within(section).getByRole('button', { name: 'Edit About you' }));
    const user = within(section).getByRole('textbox', { name: 'About you' });
    expect(section).toHaveTextContent('USER.md');
    await userEvent.type(user, 'Ana, a **nurse** in Porto.');
    await userEvent.click(within(section).getByRole('button', { name: 'Save' }));
    expect(engine.api.saveMemoryWorkspace).toHaveBeenCalledWith('user', 'Ana, a **nurse** in Porto.');
    // Saved: back to the formatted view, the markdown rendered.
    await waitFor(() => expect(within(section).queryByRole('textbox')).toBeNull());
    expect(within(section).getByText('nurse').tagName).toBe('STRONG');
    const soul = screen.getByRole('region', { name: 'How Sentient talks' });
    await userEvent.click(within(soul).getByRole('button', { name: 'Edit How Sentient talks' }));
    await userEvent.click(await within(soul).findByRole('button', { name: 'Use Concise' }));
    expect(within(soul).getByRole('textbox', { name: 'How Sentient talks' })).toHaveValue('# Sentient\n\nBe brief.');
    // Cancel drops the change and shows the saved text again.
    await userEvent.click(within(soul).getByRole('button', { name: 'Cancel' }));
    expect(within(soul).queryByRole('textbox')).toBeNull();
    expect(engine.api.saveMemoryWorkspace).toHaveBeenCalledTimes(1);
    expect(screen.getByLabelText("Today's note")).toHaveTextContent('Nothing noted.');
  });
});

// The Memory page's Import tab against the fake engine: a picked file's counts in words and the
// way to Review, the busy state while the model reads, the engine's sentence on a refusal (and
// the unavailable state on a 503), and files refused before they are sent (type, size).
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import { ApiError, type ImportResult } from '../../api';
import { fakeApi, makeBootstrap, makeMemory } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { IMPORT_INTRO, importWords, MAX_IMPORT_BYTES, refusal } from './ImportTab';

const UNAVAILABLE =
  "Memory can't be changed right now because its search extension did not load. Run `sentient doctor` to see why.";

function setup() {
  window.location.hash = '#/memory/import';
  const engine = fakeApi(makeBootstrap());
  engine.setMemories([makeMemory({ id: 1, content: 'User lives in Lisbon' })]);
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

const textFile = (name: string, text: string) => new File([text], name, { type: 'text/plain' });
const result = (over: Partial<ImportResult>): ImportResult => ({ added: 0, updated: 0, skipped: 0, pending: 0, source: 'file:x.txt', ...over });

afterEach(() => {
  window.location.hash = '';
});

describe('import words', () => {
  it('counts what a file gave in plain words', () => {
    expect(importWords(result({ added: 2, pending: 2, skipped: 1 }), 'resume.pdf')).toBe(
      'Found 3 facts in resume.pdf: 2 wait for your review, 1 you already had.',
    );
    expect(importWords(result({ added: 1, pending: 1 }), 'cv.docx')).toBe('Found 1 fact in cv.docx: 1 waits for your review.');
    expect(importWords(result({ skipped: 2 }), 'notes.md')).toBe('Found 2 facts in notes.md: 2 you already had.');
    expect(importWords(result({}), 'list.txt')).toBe('Found no facts in list.txt.');
  });

  it('refuses other types and files over 20 MB in the engine\'s words', () => {
    expect(refusal({ name: 'resume.PDF', size: 10 })).toBeNull();
    expect(refusal({ name: 'notes.markdown', size: MAX_IMPORT_BYTES })).toBeNull();
    expect(refusal({ name: 'budget.xls', size: 10 })).toBe(
      'Sentient can import PDF, Word (.docx), text and Markdown files; budget.xls is none of these.',
    );
    expect(refusal({ name: '.md', size: 10 })).toMatch(/\.md is none of these\.$/);
    expect(refusal({ name: 'old.doc', size: 10 })).toMatch(/old\.doc is none of these/);
    expect(refusal({ name: 'C:\\docs\\big.txt', size: MAX_IMPORT_BYTES + 1 })).toBe(
      'big.txt is larger than 20 MB. Split it into smaller files and import them one by one.',
    );
  });
});

describe('the Import tab', () => {
  it('imports a picked file, says what it found and opens Review on the facts waiting there', async () => {
    const { engine } = setup();
    expect(await screen.findByText(IMPORT_INTRO)).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Import' })).toHaveAttribute('aria-selected', 'true');
    const picker = screen.getByLabelText('File to import');
    expect(picker).toHaveAttribute('accept', '.pdf,.docx,.txt,.md');

    await userEvent.upload(picker, textFile('notes.txt', 'User keeps bees\nUser plays the veena\nUser lives in Lisbon\n'));
    expect(await screen.findByTestId('import-result')).toHaveTextContent(
      'Found 3 facts in notes.txt: 2 wait for your review, 1 you already had.',
    );
    expect(engine.api.importMemories).toHaveBeenCalledWith(expect.any(File), 'notes.txt');
    // The inbox refreshed: the tab's badge counts the new facts.
    await waitFor(() => expect(screen.getByRole('tab', { name: /Review/ })).toHaveTextContent('2'));

    await userEvent.click(screen.getByRole('button', { name: 'Open Review' }));
    expect(screen.getByRole('tab', { name: /Review/ })).toHaveAttribute('aria-selected', 'true');
    expect(window.location.hash).toBe('#/memory/review');
    const items = await screen.findAllByTestId('review-item');
    expect(items.map((i) => i.querySelector('.memory-content')?.textContent)).toEqual(['User plays the veena', 'User keeps bees']);
    expect(within(items[0]).getByText(/From notes\.txt/)).toBeInTheDocument();
  });

  it('shows the file and a progress bar while the model reads it', async () => {
    const { engine } = setup();
    let finish: (r: ImportResult) => void = () => {};
    engine.api.importMemories.mockImplementationOnce(() => new Promise<ImportResult>((resolve) => (finish = resolve)));
    await userEvent.upload(await screen.findByLabelText('File to import'), textFile('diary.md', 'User keeps bees'));
    const busy = await screen.findByTestId('import-busy');
    expect(busy).toHaveTextContent('Reading diary.md…');
    expect(within(busy).getByRole('progressbar', { name: 'Importing diary.md' })).not.toHaveAttribute('value');
    expect(screen.getByRole('button', { name: 'Choose a file' })).toBeDisabled();

    finish(result({ source: 'file:diary.md' }));
    expect(await screen.findByTestId('import-result')).toHaveTextContent('Found no facts in diary.md.');
    expect(screen.queryByTestId('import-busy')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Open Review' })).toBeNull();
  });

  it("says the engine's sentence when it can't read the file", async () => {
    const { engine } = setup();
    const damaged = 'Sentient could not read cv.pdf: it may be damaged or protected by a password.';
    engine.api.importMemories.mockRejectedValueOnce(new ApiError(400, damaged));
    await userEvent.upload(await screen.findByLabelText('File to import'), new File(['%PDF'], 'cv.pdf', { type: 'application/pdf' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(damaged);
    expect(alert.textContent).toBe(damaged);
    expect(screen.queryByTestId('import-result')).toBeNull();
  });

  it('shows the unavailable state when the search extension did not load, and tries again', async () => {
    const { engine } = setup();
    engine.api.importMemories.mockRejectedValueOnce(new ApiError(503, UNAVAILABLE));
    await userEvent.upload(await screen.findByLabelText('File to import'), textFile('notes.txt', 'User keeps bees'));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(`Couldn't import notes.txt. ${UNAVAILABLE}`);
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('import-result')).toHaveTextContent('Found 1 fact in notes.txt: 1 waits for your review.');
    expect(engine.api.importMemories).toHaveBeenCalledTimes(2);
  });

  it('refuses a dropped file of another type, and one over 20 MB, without sending them', async () => {
    const { engine } = setup();
    const zone = await screen.findByTestId('import-drop');
    fireEvent.dragEnter(zone, { dataTransfer: { files: [], dropEffect: 'none' } });
    expect(zone).toHaveClass('memory-drop-over');
    fireEvent.drop(zone, { dataTransfer: { files: [new File(['a,b'], 'budget.xls')] } });
    expect(zone).not.toHaveClass('memory-drop-over');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Sentient can import PDF, Word (.docx), text and Markdown files; budget.xls is none of these.',
    );

    const big = textFile('big.txt', 'x');
    Object.defineProperty(big, 'size', { value: MAX_IMPORT_BYTES + 1 });
    await userEvent.upload(screen.getByLabelText('File to import'), big);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'big.txt is larger than 20 MB. Split it into smaller files and import them one by one.',
    );
    expect(engine.api.importMemories).not.toHaveBeenCalled();

    // A file that fits is sent, from a drop too.
    fireEvent.drop(zone, { dataTransfer: { files: [textFile('bees.txt', 'User keeps bees')] } });
    expect(await screen.findByTestId('import-result')).toHaveTextContent('Found 1 fact in bees.txt');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

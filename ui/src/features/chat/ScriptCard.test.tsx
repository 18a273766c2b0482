// The script card: the code and what it was for, output while it runs, then what the script
// printed, returned and saved, or why it didn't work.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api';
import { fakeApi, makeBootstrap } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { ToolCard } from './ToolCard';
import type { ToolView } from './conversation';
import { scriptResultOf, scriptSummary, type ScriptResult } from './ScriptCard';

const CODE = 'rows = tools.files_list()\nprint(len(rows))';

function scriptTool(over: Partial<ToolView> = {}): ToolView {
  return {
    call_id: 's1',
    name: 'execute_code',
    arguments: { code: CODE, purpose: 'Count my files' },
    progress: [],
    is_error: false,
    declined: false,
    approval: null,
    ...over,
  };
}

function ran(over: Partial<ScriptResult> = {}): ScriptResult {
  return {
    ok: true,
    backend: 'process',
    stdout: '12\n',
    stderr: '',
    result: '12\n',
    files_created: [],
    tool_calls: 1,
    duration_ms: 1400,
    error: null,
    ...over,
  };
}

function show(tool: ToolView) {
  const { api } = fakeApi(makeBootstrap());
  renderWithApi(<ToolCard tool={tool} onAnswer={async () => {}} />, api);
  return { api, card: screen.getByTestId('tool-card') };
}

describe('script card', () => {
  it('reads only results shaped like a script run', () => {
    expect(scriptResultOf(ran())?.tool_calls).toBe(1);
    expect(scriptResultOf({ error: 'Scripts are turned off.' })).toBeNull();
    expect(scriptResultOf('12')).toBeNull();
    expect(scriptResultOf({ ...ran(), files_created: ['outputs/r/a.png', 3] })?.files_created).toEqual(['outputs/r/a.png']);
    expect(scriptSummary(ran())).toBe('1 tool use · 1.4 s');
    expect(scriptSummary(ran({ tool_calls: 3, duration_ms: 40 }))).toBe('3 tool uses · under 0.1 s');
  });

  it('while running it shows its purpose, its code and the output so far, one chunk a line', () => {
    const { card } = show(scriptTool({ progress: ['first', 'second\n'] }));
    expect(within(card).getByText('Script: Count my files')).toBeTruthy();
    expect(within(card).getByText('Running…')).toBeTruthy();
    expect(within(card).getByTestId('script-code').textContent).toBe(CODE);
    expect(within(card).getByLabelText('Output so far').textContent).toBe('first\nsecond\n');
  });

  it('when done it shows what it printed once, how much it did, and no raw JSON', () => {
    const { card } = show(scriptTool({ result: ran(), progress: ['12\n'] }));
    expect(within(card).getByText('Done')).toBeTruthy();
    expect(within(card).getByTestId('script-stdout').textContent).toBe('12\n');
    // result() was not called, so the printed text is not repeated as the returned value.
    expect(within(card).queryByText('What it returned')).toBeNull();
    expect(within(card).queryByLabelText('Output so far')).toBeNull();
    expect(within(card).getByText('1 tool use · 1.4 s')).toBeTruthy();
    expect(card.textContent).not.toContain('"backend"');
  });

  it('shows a returned value and the pictures it saved, read through the API', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:chart');
    URL.revokeObjectURL = vi.fn();
    const { api, card } = show(
      scriptTool({
        result: ran({ stdout: '', result: { total: 12 }, files_created: ['outputs/run1/chart.png', 'outputs/run1/data.csv'] }),
      }),
    );
    expect(within(card).getByText('What it returned')).toBeTruthy();
    expect(within(card).getByText('12')).toBeTruthy();
    expect(await within(card).findByTestId('tool-picture')).toBeTruthy();
    expect(api.fileContent).toHaveBeenCalledWith('outputs/run1/chart.png');
    expect(within(within(card).getByTestId('script-files')).getByText('outputs/run1/data.csv')).toBeTruthy();
  });

  it("a failed run says why in its own sentence and keeps what it printed", () => {
    const { card } = show(
      scriptTool({
        result: ran({ ok: false, stdout: 'start\n', stderr: 'Traceback…\n', result: null, error: 'The script failed on line 2: NameError.' }),
      }),
    );
    expect(within(card).getByText("Didn't work")).toBeTruthy();
    expect(within(card).getByTestId('script-error').textContent).toBe('The script failed on line 2: NameError.');
    expect(within(card).getByTestId('script-stdout').textContent).toBe('start\n');
    expect(within(card).getByTestId('script-stderr').textContent).toBe('Traceback…\n');
  });

  it('Run again runs the same code with look-ups only and shows what it gave under the first run', async () => {
    const { api, card } = show(scriptTool({ result: ran() }));
    await userEvent.click(within(card).getByRole('button', { name: 'Run again' }));
    expect(api.runScript).toHaveBeenCalledWith(CODE);
    const again = within(card).getByTestId('script-again');
    expect(await within(again).findByText('Ran again')).toBeTruthy();
    expect(within(again).getByTestId('script-stdout').textContent).toBe(`ran ${CODE.length} characters\n`);
    // The first run's output is still there.
    expect(within(card).getAllByTestId('script-stdout')[0].textContent).toBe('12\n');
  });

  it('Run again that the engine refuses says why in a sentence', async () => {
    const { api, card } = show(scriptTool({ result: ran() }));
    vi.mocked(api.runScript).mockRejectedValueOnce(new ApiError(422, 'Give the script to run.'));
    await userEvent.click(within(card).getByRole('button', { name: 'Run again' }));
    expect((await within(card).findByRole('alert')).textContent).toBe('Give the script to run.');
  });

  it('a refused script shows the refusal as a sentence', () => {
    const { card } = show(scriptTool({ result: { error: 'Scripts are turned off in Settings.' }, is_error: true }));
    expect(within(card).getByText("Didn't work")).toBeTruthy();
    expect(within(card).getByTestId('tool-result').textContent).toBe('Scripts are turned off in Settings.');
  });

  it('other tools keep the ordinary card', () => {
    const { card } = show({ ...scriptTool({ result: 'ok' }), name: 'time_now', arguments: {} });
    expect(card.textContent).toContain('Used Time now');
  });
});

import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../App';
import { fakeApi, makeBootstrap, makeProposal, makeRow, makeSession } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { ApiError } from '../../api';

function setup() {
  const engine = fakeApi(makeBootstrap());
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

async function send(text: string) {
  await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), text);
  await userEvent.click(screen.getByRole('button', { name: 'Send' }));
}

describe('Chat page', () => {
  // Which chat is open lives in the address; every test starts on a new chat.
  beforeEach(() => window.history.replaceState(null, '', '#/chat'));
  afterEach(() => vi.useRealTimers());

  it('keeps the message box ready: focused, Enter sends, Shift+Enter breaks the line, Up brings back the last message', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    const box = screen.getByRole('textbox', { name: 'Message' });
    expect(box).toHaveFocus();
    await userEvent.keyboard('First line{Shift>}{Enter}{/Shift}second line');
    expect(box).toHaveValue('First line\nsecond line');
    await userEvent.keyboard('{Enter}');
    expect(engine.api.chatSend).toHaveBeenCalledWith(
      expect.objectContaining({ text: 'First line\nsecond line' }),
      expect.any(Function),
    );
    expect(box).toHaveValue('');
    expect(box).toHaveFocus();
    act(() => engine.lastTurn().emit({ type: 'done', content: 'Noted.', message_id: 'm1', memory_sources: [] }));
    await userEvent.keyboard('{ArrowUp}');
    expect(box).toHaveValue('First line\nsecond line');
  });

  it('shows the empty state, then streams a reply with folded thinking', async () => {
    const { engine } = setup();
    expect(await screen.findByText('No chats yet — say hello below.')).toBeInTheDocument();

    await send('Hello there');
    expect(engine.api.chatSend).toHaveBeenCalledWith(
      expect.objectContaining({ session_id: null, text: 'Hello there', attachments: [] }),
      expect.any(Function),
    );
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'thinking_delta', text: 'They said hello.' });
      turn.emit({ type: 'text_delta', text: 'Hi ' });
    });
    expect(screen.getByTestId('user-message')).toHaveTextContent('Hello there');
    expect(screen.getByText('Hi')).toBeInTheDocument();
    // Thinking is folded away.
    const details = screen.getByText('They said hello.').closest('details');
    expect(details).not.toHaveAttribute('open');
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();

    act(() => {
      turn.emit({ type: 'text_delta', text: 'Ada!' });
      turn.emit({ type: 'done', content: 'Hi Ada!', message_id: 'm2', memory_sources: [] });
      turn.finish();
    });
    expect(screen.getByText('Hi Ada!')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    expect(screen.queryByTestId('memory-sources')).toBeNull();
  });

  it('shows a tool card with live progress and its result, and an error styled as one', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Check the time');
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'tool_call', call_id: 'call_1', name: 'time_now', arguments: {} });
      turn.emit({ type: 'tool_progress', call_id: 'call_1', name: 'time_now', kind: 'status', text: 'Looking at the clock' });
    });
    const card = screen.getByTestId('tool-card');
    expect(card).toHaveTextContent('Time now');
    expect(card).toHaveTextContent('Working…');
    expect(within(card).getByLabelText('Progress')).toHaveTextContent('Looking at the clock');
    act(() => {
      turn.emit({ type: 'tool_result', call_id: 'call_1', name: 'time_now', result: { time: '10:00' }, is_error: false, duration_ms: 3 });
      turn.emit({ type: 'tool_call', call_id: 'call_2', name: 'files_read', arguments: { path: 'x.txt' } });
      turn.emit({ type: 'tool_result', call_id: 'call_2', name: 'files_read', result: { error: 'There is no file called x.txt.' }, is_error: true, duration_ms: 1 });
    });
    const [first, second] = screen.getAllByTestId('tool-card');
    // A finished call is one closed line, "Used Time now", that opens to what it found.
    expect(first.tagName).toBe('DETAILS');
    expect(first).not.toHaveAttribute('open');
    expect(within(first).getByText('Used Time now')).toBeInTheDocument();
    expect(first).toHaveTextContent('Done');
    await userEvent.click(within(first).getByText('Used Time now'));
    expect(first).toHaveAttribute('open');
    expect(within(first).getByTestId('tool-result')).toHaveTextContent('Time10:00');
    expect(within(first).getByTestId('tool-result')).not.toHaveTextContent('{');
    expect(second).toHaveClass('tool-error');
    expect(within(second).getByTestId('tool-result')).toHaveTextContent('There is no file called x.txt.');
  });

  it("shows the browser's newest page picture under its running tool, and drops it with the result", async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Open the shop');
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'tool_call', call_id: 'call_1', name: 'browser_open', arguments: { url: 'https://shop.example/' } });
      turn.emit({ type: 'tool_progress', call_id: 'call_1', name: 'browser_open', kind: 'frame', text: '', image: 'data:image/jpeg;base64,AAAA' });
      turn.emit({ type: 'tool_progress', call_id: 'call_1', name: 'browser_open', kind: 'frame', text: '', image: 'data:image/jpeg;base64,BBBB' });
    });
    const card = screen.getByTestId('tool-card');
    expect(within(card).getByTestId('tool-frame')).toHaveAttribute('src', 'data:image/jpeg;base64,BBBB');
    // Pictures are not progress lines.
    expect(within(card).queryByLabelText('Progress')).toBeNull();
    act(() => {
      turn.emit({ type: 'tool_result', call_id: 'call_1', name: 'browser_open', result: { url: 'https://shop.example/', title: 'Shop', text: 'Page: Shop' }, is_error: false, duration_ms: 900 });
    });
    expect(screen.queryByTestId('tool-frame')).toBeNull();
  });

  it('a command running on this computer has Stop, which stops it by its call and goes with the result', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Run the tests');
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'tool_call', call_id: 'call_7', name: 'terminal_run', arguments: { command: 'npm test' } });
      turn.emit({ type: 'tool_progress', call_id: 'call_7', name: 'terminal_run', kind: 'stdout', text: 'running 12 tests' });
    });
    const card = screen.getByTestId('tool-card');
    expect(within(card).getByLabelText('Progress')).toHaveTextContent('running 12 tests');
    await userEvent.click(within(card).getByRole('button', { name: 'Stop' }));
    expect(engine.api.terminalStop).toHaveBeenCalledWith({ id: 'call_7' });
    expect(within(card).getByRole('button', { name: 'Stopping…' })).toBeDisabled();
    act(() => {
      turn.emit({
        type: 'tool_result',
        call_id: 'call_7',
        name: 'terminal_run',
        result: { ok: false, command: 'npm test', stopped: true, error: 'The command was stopped before it finished.' },
        is_error: false,
        duration_ms: 900,
      });
    });
    expect(screen.queryByTestId('command-stop')).toBeNull();
    expect(within(screen.getByTestId('tool-card')).getByTestId('tool-result')).toHaveTextContent('The command was stopped before it finished.');
  });

  it("shows a command's result as a terminal would: how it ended, where, and its output as text", async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('What changed?');
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'tool_call', call_id: 'call_8', name: 'terminal_run', arguments: { command: 'git status' } });
      turn.emit({
        type: 'tool_result',
        call_id: 'call_8',
        name: 'terminal_run',
        result: {
          ok: false,
          command: 'git status',
          cwd: '/home/me/site',
          shell: 'bash',
          exit_code: 1,
          stdout: 'On branch main\n',
          stderr: 'warning: x\n',
          timed_out: false,
          stopped: false,
          duration_ms: 30,
          output_file: 'outputs/terminal-r1.txt',
          error: null,
        },
        is_error: false,
        duration_ms: 30,
      });
    });
    const card = screen.getByTestId('tool-card');
    await userEvent.click(within(card).getByText(/^Used /));
    const result = within(card).getByTestId('tool-result');
    expect(result).toHaveTextContent('Finished with exit code 1.');
    expect(result).toHaveTextContent('In /home/me/site with bash');
    expect(within(result).getByLabelText('Output').textContent).toBe('On branch main\n');
    expect(within(result).getByLabelText('Errors').textContent).toBe('warning: x\n');
    expect(result).toHaveTextContent('The whole output is in your files, at outputs/terminal-r1.txt.');
  });

  it('shows a needs-you card for a page step only the person may do, with Open browser and the live view', async () => {
    const { engine } = setup();
    const waiting = {
      available: true, running: true, engine: 'chromium', headless: true, error: null, profile: 'default', attached: false,
      tabs: [{ index: 0, url: 'https://shop.example/login', title: 'Log in', active: true }],
      needs_you: { id: 'h1', reason: 'the page asks for a one-time code', url: 'https://shop.example/login', title: 'Log in', task_id: null, run_id: null, since: '2026-12-07T10:00:00Z' },
    };
    engine.api.browserStatus.mockResolvedValue(waiting);
    await screen.findByText('No chats yet — say hello below.');
    await send('Log me in');
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'tool_call', call_id: 'call_1', name: 'browser_type', arguments: { ref: 'e3', text: '000000' } });
      turn.emit({
        type: 'tool_result', call_id: 'call_1', name: 'browser_type', is_error: true, duration_ms: 40,
        result: { error: 'This is a one-time code field. Ask the person to use Open browser.', needs_user: 'the page asks for a one-time code' },
      });
    });
    const card = await screen.findByTestId('needs-you-card');
    expect(card).toHaveTextContent('Sentient needs you in the browser. The page asks for a one-time code.');
    expect(screen.getByTestId('tool-card')).toHaveTextContent('Needs you');
    await userEvent.click(await within(card).findByRole('button', { name: 'Do it here' }));
    const live = within(card).getByTestId('live-view');
    expect(live).toHaveTextContent('Loading the page…');
    const box = within(live).getByLabelText('Type into the page');
    await userEvent.type(box, '123456');
    await userEvent.click(within(live).getByRole('button', { name: 'Type' }));
    expect(engine.api.browserInput).toHaveBeenCalledWith({ kind: 'text', text: '123456' });
    expect(box).toHaveValue('');
    await userEvent.click(within(live).getByRole('button', { name: 'Enter' }));
    expect(engine.api.browserInput).toHaveBeenLastCalledWith({ kind: 'key', key: 'enter' });
    await userEvent.click(within(card).getByRole('button', { name: 'Open browser' }));
    expect(engine.api.openBrowser).toHaveBeenCalledWith('default');
  });

  it('approval buttons send the right decision and give way to the outcome; declined calls say so', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Save a note');
    const turn = engine.lastTurn();
    const ask = (id: string, callId: string, extra: Record<string, unknown> = {}) =>
      turn.emit({
        type: 'approval_request',
        approval_id: id,
        call_id: callId,
        name: 'files_write',
        arguments: { path: 'outputs/note.txt' },
        risk: 'write',
        reason: 'mode',
        risk_label: 'Saves a file',
        target: 'outputs/note.txt',
        ...extra,
      });
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'tool_call', call_id: 'call_1', name: 'files_write', arguments: { path: 'outputs/note.txt' } });
      ask('ap1', 'call_1');
    });
    let card = screen.getByTestId('approval-card');
    expect(card).toHaveTextContent('Files write needs your OK');
    expect(card).toHaveTextContent('Saves a file');
    expect(card).toHaveTextContent('outputs/note.txt');
    expect(card).toHaveTextContent('Your approval settings ask before this kind of action.');
    await userEvent.click(within(card).getByRole('button', { name: 'Allow for this chat' }));
    expect(engine.api.respondApproval).toHaveBeenCalledWith('ap1', 'allow_session');
    expect(await within(card).findByTestId('approval-outcome')).toHaveTextContent('You allowed this for the rest of this chat.');
    expect(within(card).queryByRole('button')).toBeNull();

    // A chat that read outside content: the sentence shows and there is no "Allow for this chat".
    const outside = 'Sentient read content from Gmail in this chat, so it checks with you before sending anything.';
    act(() => {
      turn.emit({ type: 'tool_call', call_id: 'call_2', name: 'files_write', arguments: {} });
      ask('ap2', 'call_2', { untrusted: outside });
    });
    card = screen.getAllByTestId('approval-card')[1];
    expect(card).toHaveTextContent(outside);
    expect(within(card).queryByRole('button', { name: 'Allow for this chat' })).toBeNull();
    await userEvent.click(within(card).getByRole('button', { name: 'Deny' }));
    expect(engine.api.respondApproval).toHaveBeenLastCalledWith('ap2', 'deny');
    expect(await within(card).findByTestId('approval-outcome')).toHaveTextContent('You said no.');
    act(() => {
      turn.emit({
        type: 'tool_result',
        call_id: 'call_2',
        name: 'files_write',
        result: { error: 'The user declined this action.', declined: true },
        is_error: true,
        duration_ms: 0,
      });
    });
    expect(screen.getAllByTestId('tool-card')[1]).toHaveTextContent("You declined this, so it didn't run.");
  });

  it('sending while a reply runs steers it; Stop cancels; unread steers are marked not sent', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Plan my week');
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'text_delta', text: 'Working on it' });
    });
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'Add the dentist');
    await userEvent.click(screen.getByRole('button', { name: 'Add to reply' }));
    expect(engine.api.chatSteer).toHaveBeenCalledWith(expect.objectContaining({ session_id: 's1', text: 'Add the dentist' }), expect.any(Function));
    expect(engine.api.chatSend).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('steer')).toHaveTextContent('Add the dentistWaiting for the next step');

    // The model read the first steer.
    act(() => turn.emit({ type: 'user_interjection', text: 'Add the dentist' }));
    expect(screen.getByTestId('steer')).toHaveTextContent('Added to the reply');

    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'And the gym');
    await userEvent.click(screen.getByRole('button', { name: 'Add to reply' }));
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(engine.api.chatCancel).toHaveBeenCalledWith('s1');
    act(() => turn.emit({ type: 'done', content: 'Working on it (stopped)', message_id: 'm3', cancelled: true, memory_sources: [] }));

    const steers = screen.getAllByTestId('steer');
    expect(steers[0]).toHaveTextContent('Added to the reply');
    expect(steers[1]).toHaveTextContent('And the gymNot sent');
    expect(screen.getByText('Stopped.')).toBeInTheDocument();
  });

  it('marks the words a done lists as dropped as not sent', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Plan my week');
    const turn = engine.lastTurn();
    act(() => turn.emit({ type: 'session', client_id: turn.body.client_id }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'Skip Friday');
    await userEvent.click(screen.getByRole('button', { name: 'Add to reply' }));
    act(() => turn.emit({ type: 'done', content: 'Here is your week.', message_id: 'm4', dropped: ['Skip Friday'], memory_sources: [] }));
    expect(screen.getByTestId('steer')).toHaveTextContent('Skip FridayNot sent');
    expect(screen.getByText('Here is your week.')).toBeInTheDocument();
  });

  it('shows the context meter only with the warning', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Hi');
    const turn = engine.lastTurn();
    act(() =>
      turn.emit({
        type: 'usage',
        model: 'qwen3:8b',
        prompt_tokens: 900,
        completion_tokens: 100,
        context_used: 1000,
        context_length: 8192,
        context_percent: 12,
        context_warning: null,
      }),
    );
    expect(screen.queryByTestId('context-meter')).toBeNull();
    expect(screen.queryByText(/reads at once/)).toBeNull();
    const warning = 'This chat is getting long for qwen3:8b (87% of what it reads at once).';
    act(() =>
      turn.emit({
        type: 'usage',
        model: 'qwen3:8b',
        prompt_tokens: 7000,
        completion_tokens: 100,
        context_used: 7100,
        context_length: 8192,
        context_percent: 87,
        context_warning: warning,
      }),
    );
    expect(screen.getByTestId('context-meter')).toHaveTextContent('87% full');
    expect(screen.getByText(warning)).toBeInTheDocument();
  });

  it('opens a stored chat folded into turns, with what the reply had in mind', async () => {
    const { engine } = setup();
    engine.setSessions([makeSession({ id: 's1', title: 'Groceries' })]);
    engine.setMessages('s1', [
      makeRow({ id: 'm1', role: 'user', content: 'Remember milk', attachments: ['list.txt'] }),
      makeRow({
        id: 'm2',
        role: 'assistant',
        content: "I'll save that.",
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'files_write', arguments: '{"path":"outputs/note.txt"}' } }],
      }),
      makeRow({ id: 'm3', role: 'tool', content: '{"path":"outputs/note.txt","bytes":4}', tool_call_id: 'call_1', name: 'files_write' }),
      makeRow({
        id: 'm4',
        role: 'assistant',
        content: 'Saved.',
        memory_sources: [{ kind: 'fact', id: '3', text: 'Ada likes oat milk', source: 'conversation', via: 'prompt' }],
      }),
    ]);
    await userEvent.click(await screen.findByRole('button', { name: 'Groceries' }));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(engine.api.sessionMessages).toHaveBeenCalledWith('s1', 500);
    expect(screen.getAllByTestId('assistant-message')).toHaveLength(1);
    expect(screen.getByTestId('tool-card')).toHaveTextContent('Done');
    expect(screen.getByTestId('user-message')).toHaveTextContent('list.txt');
    expect(screen.getByTestId('memory-sources')).toHaveTextContent('What this reply had in mind');
    expect(screen.getByTestId('memory-sources')).toHaveTextContent('Ada likes oat milk');
    expect(screen.getByRole('link', { name: 'Ada likes oat milk' })).toHaveAttribute('href', '#/memory?fact=3');
  });

  it('renames and deletes a chat, and search shows snippets', async () => {
    const { engine } = setup();
    engine.setSessions([makeSession({ id: 's1', title: 'Groceries' })]);
    engine.api.searchSessions.mockResolvedValue([
      { session_id: 's1', message_id: 'm1', role: 'user', snippet: 'buy [milk] today', created_at: '2030-05-04T10:00:00Z' },
    ]);
    await userEvent.click(await screen.findByRole('button', { name: 'Rename Groceries' }));
    const input = screen.getByRole('textbox', { name: 'Chat name' });
    await userEvent.clear(input);
    await userEvent.type(input, 'Shopping');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(engine.api.renameSession).toHaveBeenCalledWith('s1', 'Shopping');
    expect(await screen.findByRole('button', { name: 'Shopping' })).toBeInTheDocument();

    await userEvent.type(screen.getByRole('searchbox', { name: 'Search chats' }), 'milk');
    const results = await screen.findByRole('list', { name: 'Search results' });
    expect(within(results).getByText('milk', { selector: 'mark' })).toBeInTheDocument();
    expect(engine.api.searchSessions).toHaveBeenLastCalledWith('milk');
    await userEvent.clear(screen.getByRole('searchbox', { name: 'Search chats' }));

    await userEvent.click(screen.getByRole('button', { name: 'Delete Shopping' }));
    const confirm = screen.getByRole('group', { name: 'Delete this chat?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(engine.api.deleteSession).toHaveBeenCalledWith('s1');
    expect(await screen.findByText('No chats yet — say hello below.')).toBeInTheDocument();
  });

  it('a session.updated event renames the chat in the list', async () => {
    const { engine } = setup();
    engine.setSessions([makeSession({ id: 's1', title: '' })]);
    expect(await screen.findByTestId('session-row')).toHaveTextContent('New chat');
    act(() => engine.emit('session.updated', { session_id: 's1', title: 'Milk note' }));
    expect(await screen.findByRole('button', { name: 'Milk note' })).toBeInTheDocument();
  });

  it('uploads attachments and sends them by name', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    const file = new File(['milk'], 'list.txt', { type: 'text/plain' });
    await userEvent.upload(screen.getByLabelText('Choose files'), file);
    expect(await screen.findByTestId('attachment-chip')).toHaveTextContent('list.txt');
    await send('Read this');
    expect(engine.api.uploadFile).toHaveBeenCalledWith(file, 'list.txt', 'upload');
    expect(engine.api.chatSend).toHaveBeenCalledWith(expect.objectContaining({ attachments: ['list.txt'] }), expect.any(Function));
    expect(screen.queryByTestId('attachment-chip')).toBeNull();
  });

  it('shows a rule card live, and its buttons answer it', async () => {
    const { engine } = setup();
    engine.setSessions([makeSession({ id: 's1', title: 'Email' })]);
    engine.setProposals([makeProposal({ id: 'rp1', session_id: 's1' })]);
    await userEvent.click(await screen.findByRole('button', { name: 'Email' }));
    const card = await screen.findByTestId('rule-proposal');
    expect(card).toHaveTextContent('Make this a rule?');
    expect(card).toHaveTextContent('“never delete my emails”');
    expect(card).toHaveTextContent('Gmail > Trash');
    await userEvent.click(within(card).getByRole('button', { name: 'Make it a rule' }));
    expect(engine.api.decideRuleProposal).toHaveBeenCalledWith('rp1', 'accept');
    expect(await within(card).findByText(/Saved as a rule/)).toBeInTheDocument();

    // A new proposal arrives on the bus.
    act(() =>
      engine.emit(
        'rule_proposal.updated',
        makeProposal({ id: 'rp2', session_id: 's1', said: "don't post to Slack without asking me", rule: 'ask', targets: [{ key: 'slack', app: 'Slack', tool: null, label: 'Slack' }] }),
      ),
    );
    await waitFor(() => expect(screen.getAllByTestId('rule-proposal')).toHaveLength(2));
    const cards = screen.getAllByTestId('rule-proposal');
    expect(cards[1]).toHaveTextContent('ask you first');
    await userEvent.click(within(cards[1]).getByRole('button', { name: 'Not now' }));
    expect(engine.api.decideRuleProposal).toHaveBeenLastCalledWith('rp2', 'decline');
    await waitFor(() => expect(screen.getAllByTestId('rule-proposal')[1]).toHaveTextContent('Not made a rule.'));
  });

  it("says plainly when the chats can't be loaded", async () => {
    const engine = fakeApi(makeBootstrap());
    engine.api.listSessions.mockRejectedValue(new ApiError(500, 'Something went wrong inside Sentient. Try again in a moment.'));
    renderWithApi(<App />, engine.api);
    expect(await screen.findByText(/Couldn't load your chats\. Something went wrong inside Sentient/)).toBeInTheDocument();
  });
  it('lists the chats in the sidebar under Chat, grouped by Today, Yesterday and Earlier', async () => {
    // 09:00 in Lisbon on 5 May 2030.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-05-05T08:00:00Z'));
    const { engine } = setup();
    engine.setSessions([
      makeSession({ id: 's1', title: 'Breakfast', updated_at: '2030-05-05T07:30:00Z' }),
      // 23:30 on the 4th in Lisbon (already the 5th in UTC+2 and beyond).
      makeSession({ id: 's2', title: 'Late night', updated_at: '2030-05-04T22:30:00Z' }),
      makeSession({ id: 's3', title: 'Old plans', updated_at: '2030-04-20T10:00:00Z' }),
    ]);
    const list = await screen.findByRole('region', { name: 'Chats' });
    expect(list.closest('.sidebar')).not.toBeNull();
    await within(list).findByText('Breakfast');
    const groups = within(list).getAllByTestId('chat-group');
    expect(groups.map((g) => within(g).getByRole('heading').textContent)).toEqual(['Today', 'Yesterday', 'Earlier']);
    expect(within(within(list).getByRole('list', { name: 'Today' })).getAllByRole('button', { name: /Breakfast/ })[0]).toBeInTheDocument();
    expect(within(list).getByRole('list', { name: 'Yesterday' })).toHaveTextContent('Late night');
    expect(within(list).getByRole('list', { name: 'Earlier' })).toHaveTextContent('Old plans');
    // Each row has its actions (shown on hover and focus), and New chat sits at the top.
    expect(within(list).getByRole('button', { name: 'Rename Late night' })).toBeInTheDocument();
    expect(within(list).getByRole('button', { name: 'Delete Late night' })).toBeInTheDocument();
    expect(within(list).getAllByRole('button')[0]).toHaveTextContent('New chat');

    // Opening a chat puts it in the address; New chat goes back to an empty one.
    await userEvent.click(within(list).getByRole('button', { name: 'Old plans' }));
    expect(window.location.hash).toBe('#/chat/s3');
    expect(within(list).getByRole('button', { name: 'Old plans' })).toHaveAttribute('aria-current', 'true');
    await waitFor(() => expect(engine.api.sessionMessages).toHaveBeenCalledWith('s3', 500));
    await userEvent.click(within(list).getByRole('button', { name: /New chat/ }));
    expect(window.location.hash).toBe('#/chat');
    expect(within(list).getByRole('button', { name: 'Old plans' })).not.toHaveAttribute('aria-current');
  });

  it('opens the chat the address names, and a new chat takes its id into the address', async () => {
    window.history.replaceState(null, '', '#/chat/s1');
    const { engine } = setup();
    engine.setSessions([makeSession({ id: 's1', title: 'Groceries' })]);
    engine.setMessages('s1', [makeRow({ id: 'm1', role: 'user', content: 'Remember milk' }), makeRow({ id: 'm2', role: 'assistant', content: 'Saved.' })]);
    expect(await screen.findByText('Saved.')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: /New chat/ }));
    await waitFor(() => expect(screen.queryByText('Saved.')).toBeNull());
    await send('Hello');
    const turn = engine.lastTurn();
    act(() => turn.emit({ type: 'session', client_id: turn.body.client_id }));
    expect(window.location.hash).toBe('#/chat/s1');
    act(() => turn.emit({ type: 'text_delta', text: 'Hi!' }));
    // The conversation kept going: it was not reopened from the stored rows.
    expect(screen.getByTestId('user-message')).toHaveTextContent('Hello');
    expect(screen.getByText('Hi!')).toBeInTheDocument();
  });

  it('renders a reply as markdown with a Copy button on its code, and Copy and Regenerate under the last reply', async () => {
    const user = userEvent.setup();
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Show me a loop{Enter}');
    const first = engine.lastTurn();
    const reply = 'Here is **one**:\n\n```python\nfor i in range(3):\n    print(i)\n```';
    act(() => {
      first.emit({ type: 'session', client_id: first.body.client_id });
      first.emit({ type: 'text_delta', text: reply });
    });
    // While it is written there is nothing to copy or regenerate yet.
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();
    act(() => first.emit({ type: 'done', content: reply, message_id: 'm2', memory_sources: [] }));
    const answer = screen.getByTestId('assistant-message');
    expect(within(answer).getByText('one').tagName).toBe('STRONG');
    await user.click(within(answer).getByRole('button', { name: 'Copy code' }));
    expect(await navigator.clipboard.readText()).toBe('for i in range(3):\n    print(i)');
    await user.click(within(answer).getByRole('button', { name: 'Copy reply' }));
    expect(await navigator.clipboard.readText()).toBe(reply);

    // A new question moves Regenerate to the new last reply.
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'And in Rust?{Enter}');
    const second = engine.lastTurn();
    act(() => {
      second.emit({ type: 'session', client_id: second.body.client_id });
      second.emit({ type: 'done', content: 'Use `for i in 0..3`.', message_id: 'm4', memory_sources: [] });
    });
    const answers = screen.getAllByTestId('assistant-message');
    expect(answers).toHaveLength(2);
    // Regenerate only on the last reply; Copy on each.
    expect(screen.getAllByRole('button', { name: 'Regenerate' })).toHaveLength(1);
    expect(within(answers[1]).getByRole('button', { name: 'Regenerate' })).toBeInTheDocument();
    // (The first one still says "Copied" for a moment.)
    expect(within(within(answers[0]).getByRole('group', { name: 'This reply' })).getByRole('button', { name: /^(Copy reply|Copied)$/ })).toBeInTheDocument();
    expect(within(answers[1]).getByRole('button', { name: 'Copy reply' })).toBeInTheDocument();
    expect(within(answers[1]).getByText('for i in 0..3').tagName).toBe('CODE');
  });

  it('Regenerate writes a new answer in place without sending the question again, and flips between versions', async () => {
    const user = userEvent.setup();
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Name a colour{Enter}');
    const first = engine.lastTurn();
    act(() => {
      first.emit({ type: 'session', client_id: first.body.client_id });
      first.emit({ type: 'text_delta', text: 'Green.' });
      first.emit({ type: 'done', content: 'Green.', message_id: 'm2', memory_sources: [] });
      first.finish();
    });
    await user.click(screen.getByRole('button', { name: 'Regenerate' }));
    expect(engine.api.chatSend).toHaveBeenCalledTimes(1);
    expect(engine.api.chatRegenerate).toHaveBeenCalledWith(expect.objectContaining({ session_id: 's1' }), expect.any(Function));
    const again = engine.lastTurn();
    expect(again.kind).toBe('regenerate');
    // The old answer makes way at once; the question is shown once.
    expect(screen.getAllByTestId('user-message')).toHaveLength(1);
    expect(screen.getAllByTestId('assistant-message')).toHaveLength(1);
    expect(screen.queryByText('Green.')).toBeNull();
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();
    const versions = [
      { content: 'Green.', error: null, created_at: '2030-05-04T10:00:00Z' },
      { content: 'Blue.', error: null, created_at: '2030-05-04T10:01:00Z' },
    ];
    act(() => {
      again.emit({ type: 'session', client_id: again.body.client_id });
      again.emit({ type: 'text_delta', text: 'Blue.' });
      again.emit({ type: 'done', content: 'Blue.', message_id: 'm3', memory_sources: [], versions, version_index: 1 });
      again.finish();
    });
    const answer = screen.getByTestId('assistant-message');
    expect(screen.getAllByTestId('assistant-message')).toHaveLength(1);
    expect(within(answer).getByText('Blue.')).toBeInTheDocument();
    expect(within(answer).getByTestId('version-count')).toHaveTextContent('2 / 2');
    expect(within(answer).getByRole('button', { name: 'Next version' })).toBeDisabled();

    // Flipping back asks the engine to show version 1 (the model reads that one from now on).
    engine.setMessages('s1', [
      makeRow({ id: 'm1', role: 'user', content: 'Name a colour' }),
      makeRow({ id: 'm3', role: 'assistant', content: 'Blue.', versions, version_index: 1 }),
    ]);
    await user.click(within(answer).getByRole('button', { name: 'Previous version' }));
    expect(engine.api.showAnswerVersion).toHaveBeenCalledWith('s1', 'm3', 0);
    const shown = await screen.findByText('Green.');
    const flipped = shown.closest('[data-testid="assistant-message"]') as HTMLElement;
    expect(within(flipped).getByTestId('version-count')).toHaveTextContent('1 / 2');
    expect(within(flipped).getByRole('button', { name: 'Previous version' })).toBeDisabled();
    expect(screen.getAllByTestId('user-message')).toHaveLength(1);
  });

  it('shows the versions of a reopened chat, and a refused Regenerate keeps the answer', async () => {
    window.history.replaceState(null, '', '#/chat/s1');
    const { engine } = setup();
    engine.setSessions([makeSession({ id: 's1', title: 'Colours' })]);
    engine.setMessages('s1', [
      makeRow({ id: 'm1', role: 'user', content: 'Name a colour' }),
      makeRow({
        id: 'm3',
        role: 'assistant',
        content: 'Blue.',
        versions: [
          { content: 'Green.', error: null, created_at: '2030-05-04T10:00:00Z' },
          { content: 'Blue.', error: null, created_at: '2030-05-04T10:01:00Z' },
        ],
        version_index: 1,
      }),
    ]);
    const answer = (await screen.findByText('Blue.')).closest('[data-testid="assistant-message"]') as HTMLElement;
    expect(within(answer).getByTestId('version-count')).toHaveTextContent('2 / 2');

    engine.api.chatRegenerate.mockRejectedValueOnce(
      new ApiError(409, 'A reply is being written in this chat. Wait for it to finish, or stop it first.'),
    );
    await userEvent.click(within(answer).getByRole('button', { name: 'Regenerate' }));
    const notice = await screen.findByText(/Couldn't regenerate: A reply is being written/);
    const kept = notice.closest('[data-testid="assistant-message"]') as HTMLElement;
    expect(within(kept).getByText('Blue.')).toBeInTheDocument();
    expect(within(kept).getByTestId('version-count')).toHaveTextContent('2 / 2');
  });

  it('a failed turn reopened later still shows its error, and Try again answers it in place', async () => {
    window.history.replaceState(null, '', '#/chat/s1');
    const { engine } = setup();
    const sentence = "Ollama isn't answering. Start Ollama, then try again.";
    engine.setSessions([makeSession({ id: 's1', title: 'Hello' })]);
    engine.setMessages('s1', [
      makeRow({ id: 'm1', role: 'user', content: 'Hello there' }),
      makeRow({ id: 'm2', role: 'assistant', content: '', error: sentence }),
    ]);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(sentence);
    // A failed reply offers no Regenerate, only what its sentence says.
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();

    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(engine.api.chatSend).not.toHaveBeenCalled();
    expect(engine.api.chatRegenerate).toHaveBeenCalledWith(expect.objectContaining({ session_id: 's1' }), expect.any(Function));
    expect(screen.queryByRole('alert')).toBeNull();
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'text_delta', text: 'Hi!' });
      turn.emit({ type: 'done', content: 'Hi!', message_id: 'm3', memory_sources: [] });
    });
    expect(screen.getByText('Hi!')).toBeInTheDocument();
    expect(screen.getAllByTestId('user-message')).toHaveLength(1);
    expect(screen.getAllByTestId('assistant-message')).toHaveLength(1);
    // A failed attempt is not a version to flip back to.
    expect(screen.queryByTestId('version-count')).toBeNull();
  });

  it('Try again sends a message that never reached the engine once more', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    engine.api.chatSend.mockRejectedValueOnce(new ApiError(0, "Lost the connection to Sentient's engine partway. Make sure Sentient is running, then try again."));
    await send('Hello');
    const alert = await screen.findByRole('alert');
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(engine.api.chatSend).toHaveBeenCalledTimes(2);
    expect(engine.api.chatSend).toHaveBeenLastCalledWith(expect.objectContaining({ text: 'Hello' }), expect.any(Function));
    expect(engine.api.chatRegenerate).not.toHaveBeenCalled();
  });

  it('keeps an approval card open with what it wants to do until it is answered, while done calls are one line', async () => {
    const { engine } = setup();
    await screen.findByText('No chats yet — say hello below.');
    await send('Save the time');
    const turn = engine.lastTurn();
    act(() => {
      turn.emit({ type: 'session', client_id: turn.body.client_id });
      turn.emit({ type: 'tool_call', call_id: 'call_1', name: 'time_now', arguments: {} });
      turn.emit({ type: 'tool_result', call_id: 'call_1', name: 'time_now', result: { time: '10:00' }, is_error: false, duration_ms: 3 });
      turn.emit({ type: 'tool_call', call_id: 'call_2', name: 'files_write', arguments: { path: 'outputs/time.txt', content: '10:00' } });
      turn.emit({
        type: 'approval_request',
        approval_id: 'ap1',
        call_id: 'call_2',
        name: 'files_write',
        arguments: { path: 'outputs/time.txt', content: '10:00' },
        risk: 'write',
        reason: 'mode',
      });
    });
    const [line, asking] = screen.getAllByTestId('tool-card');
    expect(line.tagName).toBe('DETAILS');
    expect(line).not.toHaveAttribute('open');
    expect(asking.tagName).not.toBe('DETAILS');
    const card = within(asking).getByTestId('approval-card');
    expect(card).toBeVisible();
    expect(within(card).getByRole('button', { name: 'Allow' })).toBeVisible();
    // What it would write is open to read before answering.
    const args = within(asking).getByText('What it was asked').closest('details');
    expect(args).toHaveAttribute('open');
    expect(args).toHaveTextContent('outputs/time.txt');
    // More tool lines arriving don't fold it away.
    act(() => {
      turn.emit({ type: 'tool_call', call_id: 'call_3', name: 'time_now', arguments: {} });
      turn.emit({ type: 'tool_result', call_id: 'call_3', name: 'time_now', result: { time: '10:01' }, is_error: false, duration_ms: 2 });
    });
    expect(within(screen.getAllByTestId('tool-card')[1]).getByTestId('approval-card')).toBeVisible();
    expect(within(screen.getAllByTestId('tool-card')[1]).getByRole('button', { name: 'Allow' })).toBeVisible();
    await userEvent.click(within(card).getByRole('button', { name: 'Allow' }));
    expect(await within(card).findByTestId('approval-outcome')).toHaveTextContent('You allowed this once.');
  });
});

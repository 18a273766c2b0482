// The Tauri transport's chat calls: the generated commands by their Rust names, and a turn's
// events arriving on its channel.
import { Channel } from '@tauri-apps/api/core';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { createTauriApi } from './tauri';
import type { ChatEvent } from './types';

afterEach(() => {
  clearMocks();
  delete (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__;
});

const settle = () => new Promise((r) => setTimeout(r, 0));
const internals = () =>
  (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } }).__TAURI_INTERNALS__;

describe('Tauri transport: chats', () => {
  it('calls the chat, files and rule commands with camelCase arguments', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      switch (cmd) {
        case 'create_session':
          return { session_id: 's9' };
        case 'chat_cancel':
          return { cancelled: true };
        case 'approval_respond':
          return { resolved: false };
        case 'decide_rule_proposal':
          return { id: 'rp1', status: 'declined' };
        case 'upload_file':
          return { name: 'a.txt', size: 2, mime: 'text/plain', modified_at: 'x' };
        case 'rename_session':
        case 'delete_session':
          return { ok: true };
        default:
          return [];
      }
    });
    const api = createTauriApi();
    await api.listSessions();
    expect(await api.createSession()).toEqual({ session_id: 's9' });
    await api.renameSession('s1', 'Groceries');
    await api.deleteSession('s1');
    await api.sessionMessages('s1');
    await api.searchSessions('milk');
    await api.uploadFile(new Blob(['hi']), 'a.txt');
    await api.listFiles();
    await api.listTools();
    await api.chatCancel('s1');
    expect(await api.respondApproval('ap1', 'deny')).toEqual({ resolved: false });
    await api.ruleProposals('s1');
    await api.decideRuleProposal('rp1', 'decline');

    expect(calls.filter(([cmd]) => !cmd.startsWith('plugin:'))).toEqual([
      ['list_sessions', { limit: 100 }],
      ['create_session', {}],
      ['rename_session', { id: 's1', body: { title: 'Groceries' } }],
      ['delete_session', { id: 's1' }],
      ['session_messages', { id: 's1', limit: 500 }],
      ['search_sessions', { q: 'milk' }],
      ['upload_file', { body: { name: 'a.txt', bytes: [104, 105], source: 'upload' } }],
      ['list_files', {}],
      ['list_tools', {}],
      ['chat_cancel', { sessionId: 's1' }],
      ['approval_respond', { body: { approval_id: 'ap1', decision: 'deny' } }],
      ['rule_proposals', { sessionId: 's1', status: 'pending' }],
      ['decide_rule_proposal', { id: 'rp1', body: { decision: 'decline' } }],
    ]);
  });

  it("streams a turn's events from its channel, in order", async () => {
    const sent: ChatEvent[] = [
      { type: 'session', session_id: 's1', turn_id: 't1', client_id: 'c1' },
      { type: 'text_delta', session_id: 's1', turn_id: 't1', text: 'Hi' },
      { type: 'done', session_id: 's1', turn_id: 't1', content: 'Hi', message_id: 'm1', memory_sources: [] },
    ];
    let body: unknown;
    mockIPC(async (cmd, args) => {
      if (cmd !== 'chat_send') throw new Error(`unexpected command ${cmd}`);
      const a = args as { body: unknown; onEvent: Channel<ChatEvent> };
      body = a.body;
      expect(a.onEvent).toBeInstanceOf(Channel);
      internals().runCallback(a.onEvent.id, { index: 1, message: sent[1] });
      internals().runCallback(a.onEvent.id, { index: 0, message: sent[0] });
      await settle();
      internals().runCallback(a.onEvent.id, { index: 2, message: sent[2] });
      internals().runCallback(a.onEvent.id, { index: 3, end: true });
      return null;
    });
    const events: ChatEvent[] = [];
    await createTauriApi().chatSend({ text: 'Hello', client_id: 'c1', attachments: ['list.txt'] }, (ev) => events.push(ev));
    expect(body).toEqual({ session_id: null, text: 'Hello', attachments: ['list.txt'], model: null, client_id: 'c1' });
    expect(events).toEqual(sent);
  });

  it('a steer with no reply running is sent as a message of its own', async () => {
    const calls: string[] = [];
    mockIPC((cmd, args) => {
      calls.push(cmd);
      if (cmd === 'chat_steer') {
        expect(args).toEqual({ body: { session_id: 's1', text: 'also eggs', client_id: 'c2' } });
        return { queued: false };
      }
      if (cmd === 'chat_send') {
        expect((args as { body: unknown }).body).toEqual({ session_id: 's1', text: 'also eggs', attachments: [], model: null, client_id: 'c2' });
        return null;
      }
      throw new Error(`unexpected command ${cmd}`);
    });
    expect(await createTauriApi().chatSteer({ session_id: 's1', text: 'also eggs', client_id: 'c2' }, () => {})).toEqual({ queued: false });
    await settle();
    expect(calls).toEqual(['chat_steer', 'chat_send']);
  });

  it('regenerates through chat_regenerate with its channel, and shows a version through its command', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC(async (cmd, args) => {
      if (cmd === 'chat_regenerate') {
        const a = args as { body: unknown; onEvent: Channel<ChatEvent> };
        calls.push([cmd, a.body]);
        internals().runCallback(a.onEvent.id, { index: 0, message: { type: 'session', session_id: 's1', turn_id: 't1', client_id: 'r1' } });
        internals().runCallback(a.onEvent.id, { index: 1, end: true });
        return null;
      }
      calls.push([cmd, args]);
      return [];
    });
    const api = createTauriApi();
    const events: ChatEvent[] = [];
    await api.chatRegenerate({ session_id: 's1', client_id: 'r1' }, (ev) => events.push(ev));
    await api.showAnswerVersion('s1', 'm3', 1);
    expect(events.map((e) => e.type)).toEqual(['session']);
    expect(calls).toEqual([
      ['chat_regenerate', { session_id: 's1', model: null, client_id: 'r1' }],
      ['show_answer_version', { id: 's1', messageId: 'm3', body: { index: 1 } }],
    ]);
  });

  it('a refused regenerate rejects with the engine sentence', async () => {
    mockIPC(() => Promise.reject({ status: 409, detail: 'There is no answer to regenerate in this chat yet.' }));
    const err = await createTauriApi()
      .chatRegenerate({ session_id: 's1' }, () => {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
  });

  it("turns a command's typed error into ApiError", async () => {
    mockIPC(() => Promise.reject({ status: 404, detail: 'There is no chat with the id s1.' }));
    const err = await createTauriApi().sessionMessages('s1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).detail).toBe('There is no chat with the id s1.');
  });
});

import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { FakeWebSocket } from '../test/fakes';
import { CALLS } from './calls';
import { createHttpApi } from './http';
import { createTauriApi } from './tauri';
import type { SentientApi } from './sentientApi';
import type { ChatEventListener, ChatSendRequest, Task, TaskPatch } from './types';

/** The calls each transport writes by hand (everything else comes from CALLS). */
const SPECIAL = [
  'transport',
  'getRoles',
  'pullModel',
  'modelCheckup',
  'uploadFile',
  'fileContent',
  'importMemories',
  'chatSend',
  'chatSteer',
  'chatRegenerate',
  'chatCancel',
  'setTitle',
  'subscribe',
];

afterEach(() => {
  clearMocks();
});

function httpApi(): SentientApi {
  const fetch = (async () => new Response('{}')) as typeof globalThis.fetch;
  return createHttpApi({ fetch, WebSocket: FakeWebSocket as unknown as typeof WebSocket });
}

describe('the table of plain calls', () => {
  it('gives both transports every entry as a function, next to the hand-written calls only', () => {
    for (const api of [httpApi(), createTauriApi()]) {
      for (const name of Object.keys(CALLS)) {
        expect(typeof api[name as keyof SentientApi], `${api.transport}: ${name}`).toBe('function');
      }
      const handWritten = Object.keys(api).filter((name) => !(name in CALLS));
      expect(handWritten.sort()).toEqual([...SPECIAL].sort());
    }
  });

  it('encodes path parameters', () => {
    expect(CALLS.getTask('a/b c?').http).toEqual({ method: 'GET', path: '/api/tasks/a%2Fb%20c%3F' });
    expect(CALLS.answerRun('t/1', 'r#2', 'yes').http).toEqual({
      method: 'POST',
      path: '/api/tasks/t%2F1/runs/r%232/answer',
      body: { answer: 'yes' },
    });
  });

  it('fills in defaults for both doors alike', async () => {
    expect(CALLS.listNotifications().http).toEqual({
      method: 'GET',
      path: '/api/notifications?limit=50&unread_only=false',
    });
    expect(CALLS.stopAll().http).toEqual({ method: 'POST', path: '/api/stop-all', body: { source: 'desktop' } });

    const sent: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      sent.push([cmd, args]);
      return { notifications: [], unread: 0 };
    });
    await CALLS.listNotifications().tauri();
    expect(sent).toEqual([['list_notifications', { limit: 50, unreadOnly: false }]]);
  });

  it('keeps the methods the components use on SentientApi', () => {
    expectTypeOf<SentientApi['listTasks']>().toEqualTypeOf<() => Promise<Task[]>>();
    expectTypeOf<SentientApi['patchTask']>().toEqualTypeOf<(id: string, patch: TaskPatch) => Promise<Task>>();
    expectTypeOf<SentientApi['chatSend']>().toEqualTypeOf<
      (body: ChatSendRequest, onEvent: ChatEventListener) => Promise<void>
    >();
  });
});

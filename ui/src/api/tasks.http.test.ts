// The HTTP transport's task calls: each goes to its route with its body, and the engine's
// plain-sentence errors (a 502 or 503 from the preview) come back as ApiError.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, jsonResponse } from '../test/fakes';
import { ApiError } from './errors';
import { createHttpApi } from './http';

type Call = { method: string; path: string; body: unknown };

function setup(answer: (method: string, path: string) => Response) {
  window.history.replaceState(null, '', '/#token=task-tok');
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const u = new URL(String(input));
    const method = init.method ?? 'GET';
    calls.push({ method, path: `${u.pathname}${u.search}`, body: init.body ? JSON.parse(String(init.body)) : undefined });
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer task-tok');
    return answer(method, u.pathname);
  });
  const api = createHttpApi({
    fetch: fetch as unknown as typeof globalThis.fetch,
    WebSocket: FakeWebSocket as unknown as typeof WebSocket,
    origin: 'http://127.0.0.1:4321',
  });
  return { api, calls };
}

beforeEach(() => {
  FakeWebSocket.instances = [];
  window.sessionStorage.clear();
});

describe('tasks over HTTP', () => {
  it('sends each call to its route with its body', async () => {
    const task = { task_id: 't 1', status: 'planning', runs: [] };
    const { api, calls } = setup((method, path) => {
      if (path === '/api/tasks' && method === 'GET') return jsonResponse(200, [task]);
      if (path === '/api/tasks/preview') return jsonResponse(200, { name: 'Digest', description: '', priority: 1, schedule: null });
      if (method === 'DELETE') return jsonResponse(200, { ok: true });
      if (path.endsWith('/events')) return jsonResponse(200, []);
      return jsonResponse(200, task);
    });

    expect(await api.listTasks()).toEqual([task]);
    await api.getTask('t 1');
    expect((await api.previewTask('every day at 9')).name).toBe('Digest');
    await api.createTask({ prompt: 'every day at 9' });
    await api.patchTask('t 1', { enabled: false, schedule: { type: 'recurring', frequency: 'daily', time: '07:30' } });
    expect(await api.deleteTask('t 1')).toEqual({ ok: true });
    await api.approveTask('t 1');
    await api.declineTask('t 1');
    await api.rerunTask('t 1');
    await api.runTaskNow('t 1');
    await api.archiveTask('t 1');
    await api.taskChat('t 1', 'Skip Fridays');
    await api.answerClarifications('t 1', [{ question_id: 'q1', answer_text: 'Lisbon' }]);
    await api.cancelRun('t 1', 'r/1');
    await api.answerRun('t 1', 'r/1', 'Air India 09:40');
    await api.retryRun('t 1', 'r/1');
    expect(await api.runEvents('t 1', 'r/1')).toEqual([]);

    expect(calls).toEqual([
      { method: 'GET', path: '/api/tasks', body: undefined },
      { method: 'GET', path: '/api/tasks/t%201', body: undefined },
      { method: 'POST', path: '/api/tasks/preview', body: { prompt: 'every day at 9' } },
      { method: 'POST', path: '/api/tasks', body: { prompt: 'every day at 9' } },
      {
        method: 'PATCH',
        path: '/api/tasks/t%201',
        body: { enabled: false, schedule: { type: 'recurring', frequency: 'daily', time: '07:30' } },
      },
      { method: 'DELETE', path: '/api/tasks/t%201', body: undefined },
      { method: 'POST', path: '/api/tasks/t%201/approve', body: undefined },
      { method: 'POST', path: '/api/tasks/t%201/decline', body: undefined },
      { method: 'POST', path: '/api/tasks/t%201/rerun', body: undefined },
      { method: 'POST', path: '/api/tasks/t%201/run-now', body: undefined },
      { method: 'POST', path: '/api/tasks/t%201/archive', body: undefined },
      { method: 'POST', path: '/api/tasks/t%201/chat', body: { message: 'Skip Fridays' } },
      { method: 'POST', path: '/api/tasks/t%201/clarifications', body: { answers: [{ question_id: 'q1', answer_text: 'Lisbon' }] } },
      { method: 'POST', path: '/api/tasks/t%201/runs/r%2F1/cancel', body: undefined },
      { method: 'POST', path: '/api/tasks/t%201/runs/r%2F1/answer', body: { answer: 'Air India 09:40' } },
      { method: 'POST', path: '/api/tasks/t%201/runs/r%2F1/retry', body: undefined },
      { method: 'GET', path: '/api/tasks/t%201/runs/r%2F1/events', body: undefined },
    ]);
  });

  it("turns the preview's 502 and 503 into their plain sentences", async () => {
    const { api } = setup((_m, path) =>
      path === '/api/tasks/preview'
        ? jsonResponse(503, { detail: 'The planner model is not available right now.' })
        : jsonResponse(502, { detail: 'The planner model answered in the wrong shape.' }),
    );
    const unavailable = await api.previewTask('x').catch((e: unknown) => e);
    expect(unavailable).toBeInstanceOf(ApiError);
    expect((unavailable as ApiError).status).toBe(503);
    expect((unavailable as ApiError).detail).toBe('The planner model is not available right now.');
    const garbled = await api.createTask({ prompt: 'x' }).catch((e: unknown) => e);
    expect((garbled as ApiError).status).toBe(502);
    expect((garbled as ApiError).detail).toBe('The planner model answered in the wrong shape.');
  });

  it('a 409 keeps its sentence', async () => {
    const { api } = setup(() => jsonResponse(409, { detail: 'This run has already finished.' }));
    const err = await api.cancelRun('t1', 'r1').catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).detail).toBe('This run has already finished.');
  });
});

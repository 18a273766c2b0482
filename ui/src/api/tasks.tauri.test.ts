// The Tauri transport's task calls: the generated commands by their Rust names and arguments,
// and a command's typed error as ApiError.
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { createTauriApi } from './tauri';

afterEach(() => {
  clearMocks();
  delete (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__;
});

describe('Tauri transport: tasks', () => {
  it('calls the task commands with their arguments', async () => {
    const task = { task_id: 't1', status: 'planning', runs: [] };
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      switch (cmd) {
        case 'list_tasks':
        case 'run_events':
          return [];
        case 'preview_task':
          return { name: 'Digest', description: '', priority: 1, schedule: null };
        case 'delete_task':
          return { ok: true };
        default:
          return task;
      }
    });
    const api = createTauriApi();
    await api.listTasks();
    expect(await api.getTask('t1')).toEqual(task);
    expect((await api.previewTask('every day')).name).toBe('Digest');
    await api.createTask({ prompt: 'every day' });
    await api.patchTask('t1', { enabled: true });
    await api.deleteTask('t1');
    await api.approveTask('t1');
    await api.declineTask('t1');
    await api.rerunTask('t1');
    await api.runTaskNow('t1');
    await api.archiveTask('t1');
    await api.taskChat('t1', 'Skip Fridays');
    await api.answerClarifications('t1', [{ question_id: 'q1', answer_text: 'Lisbon' }]);
    await api.cancelRun('t1', 'r1');
    await api.answerRun('t1', 'r1', 'Air India 09:40');
    await api.retryRun('t1', 'r1');
    await api.runEvents('t1', 'r1');

    expect(calls.filter(([cmd]) => !cmd.startsWith('plugin:'))).toEqual([
      ['list_tasks', {}],
      ['get_task', { id: 't1' }],
      ['preview_task', { body: { prompt: 'every day' } }],
      ['create_task', { body: { prompt: 'every day' } }],
      ['patch_task', { id: 't1', patch: { enabled: true } }],
      ['delete_task', { id: 't1' }],
      ['approve_task', { id: 't1' }],
      ['decline_task', { id: 't1' }],
      ['rerun_task', { id: 't1' }],
      ['run_task_now', { id: 't1' }],
      ['archive_task', { id: 't1' }],
      ['task_chat', { id: 't1', body: { message: 'Skip Fridays' } }],
      ['answer_clarifications', { id: 't1', body: { answers: [{ question_id: 'q1', answer_text: 'Lisbon' }] } }],
      ['cancel_run', { id: 't1', runId: 'r1' }],
      ['answer_run', { id: 't1', runId: 'r1', body: { answer: 'Air India 09:40' } }],
      ['retry_run', { id: 't1', runId: 'r1' }],
      ['run_events', { id: 't1', runId: 'r1' }],
    ]);
  });

  it('sends the notes and brief changes as they are, a null included (null clears)', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return { task_id: 't1', status: 'active', runs: [] };
    });
    const api = createTauriApi();
    await api.patchTask('t1', { notepad: '- one' });
    await api.patchTask('t1', { notepad: null, forget_earlier_runs: true });
    await api.patchTask('t1', { brief: { goal: 'Only new items', risks: null } });
    expect(calls.filter(([cmd]) => !cmd.startsWith('plugin:'))).toEqual([
      ['patch_task', { id: 't1', patch: { notepad: '- one' } }],
      ['patch_task', { id: 't1', patch: { notepad: null, forget_earlier_runs: true } }],
      ['patch_task', { id: 't1', patch: { brief: { goal: 'Only new items', risks: null } } }],
    ]);
  });

  it("a command's error arrives as ApiError with its sentence", async () => {
    mockIPC(() => {
      throw { status: 409, detail: 'This task is not waiting for approval.' };
    });
    const err = await createTauriApi().approveTask('t1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).detail).toBe('This task is not waiting for approval.');
  });
});

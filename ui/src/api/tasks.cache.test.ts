// Live task events in the query cache: task.updated replaces (or adds) the task in the list and
// its detail, task.deleted removes it, task.run_progress appends to the run's log once.
import { describe, expect, it } from 'vitest';
import { makeRun, makeTask, wireEvent } from '../test/fakes';
import { applyEvent, createQueryClient, putTask, queryKeys } from './queries';
import type { ProgressUpdate, Task } from './types';

const ev = (type: string, data: unknown) => wireEvent(type, data, '2030-05-04T10:00:00Z');

describe('task events in the cache', () => {
  it('task.updated replaces the task in the list and the detail, and adds a new one first', () => {
    const qc = createQueryClient();
    const a = makeTask({ task_id: 'a', name: 'A' });
    const b = makeTask({ task_id: 'b', name: 'B' });
    qc.setQueryData(queryKeys.tasks, [a, b]);
    qc.setQueryData(queryKeys.task('b'), b);
    applyEvent(qc, ev('task.updated', { ...b, name: 'B2', status: 'approval_pending' }));
    expect(qc.getQueryData<Task[]>(queryKeys.tasks)?.map((t) => t.name)).toEqual(['A', 'B2']);
    expect(qc.getQueryData<Task>(queryKeys.task('b'))?.status).toBe('approval_pending');
    applyEvent(qc, ev('task.updated', makeTask({ task_id: 'c', name: 'C' })));
    expect(qc.getQueryData<Task[]>(queryKeys.tasks)?.map((t) => t.name)).toEqual(['C', 'A', 'B2']);
    // Something that isn't a task changes nothing.
    applyEvent(qc, ev('task.updated', { task_id: 'x' }));
    expect(qc.getQueryData<Task[]>(queryKeys.tasks)).toHaveLength(3);
  });

  it('task.deleted removes it from the list and forgets its detail', () => {
    const qc = createQueryClient();
    const a = makeTask({ task_id: 'a' });
    qc.setQueryData(queryKeys.tasks, [a]);
    qc.setQueryData(queryKeys.task('a'), a);
    applyEvent(qc, ev('task.deleted', { task_id: 'a' }));
    expect(qc.getQueryData(queryKeys.tasks)).toEqual([]);
    expect(qc.getQueryData(queryKeys.task('a'))).toBeUndefined();
  });

  it('task.run_progress appends to the run in list and detail, once', () => {
    const qc = createQueryClient();
    const a = makeTask({ task_id: 'a', runs: [makeRun({ run_id: 'r1' }), makeRun({ run_id: 'r2' })] });
    qc.setQueryData(queryKeys.tasks, [a]);
    qc.setQueryData(queryKeys.task('a'), a);
    const update: ProgressUpdate = { timestamp: '2030-05-04T10:00:05Z', message: { type: 'info', content: 'Run started.' } };
    applyEvent(qc, ev('task.run_progress', { task_id: 'a', run_id: 'r2', update }));
    applyEvent(qc, ev('task.run_progress', { task_id: 'a', run_id: 'r2', update }));
    const detail = qc.getQueryData<Task>(queryKeys.task('a'));
    expect(detail?.runs[1].progress_updates).toEqual([update]);
    expect(detail?.runs[1].last_activity_at).toBe('2030-05-04T10:00:05Z');
    expect(detail?.runs[0].progress_updates).toEqual([]);
    expect(qc.getQueryData<Task[]>(queryKeys.tasks)?.[0].runs[1].progress_updates).toEqual([update]);
  });

  it("a call's answer read before the latest event doesn't undo it, nor drop live progress lines", () => {
    const qc = createQueryClient();
    const line = (n: number): ProgressUpdate => ({ timestamp: `2030-05-04T10:00:0${n}.500123Z`, message: { type: 'info', content: `line ${n}` } });
    const planning = makeTask({ task_id: 'a', status: 'planning', updated_at: '2030-05-04T10:00:00.100Z' });
    const planned = makeTask({ task_id: 'a', status: 'approval_pending', updated_at: '2030-05-04T10:00:00.200Z' });
    qc.setQueryData(queryKeys.tasks, []);
    applyEvent(qc, ev('task.updated', planned));
    // The create call's answer, read before planning ended, arrives last.
    putTask(qc, planning);
    expect(qc.getQueryData<Task>(queryKeys.task('a'))?.status).toBe('approval_pending');
    expect(qc.getQueryData<Task[]>(queryKeys.tasks)?.[0].status).toBe('approval_pending');

    // Run now: the run's first lines arrive live before the call's answer (read after line 1).
    const running = makeTask({ task_id: 'a', status: 'processing', updated_at: '2030-05-04T10:00:01Z', runs: [makeRun({ run_id: 'r1' })] });
    applyEvent(qc, ev('task.updated', running));
    applyEvent(qc, ev('task.run_progress', { task_id: 'a', run_id: 'r1', update: line(1) }));
    applyEvent(qc, ev('task.run_progress', { task_id: 'a', run_id: 'r1', update: line(2) }));
    // The store keeps fewer digits of the time than the live event had: still the same line.
    const stored = { ...line(1), timestamp: '2030-05-04T10:00:01.500Z' };
    putTask(qc, { ...running, runs: [makeRun({ run_id: 'r1', progress_updates: [stored] })] });
    expect(qc.getQueryData<Task>(queryKeys.task('a'))?.runs[0].progress_updates).toEqual([stored, line(2)]);
    expect(qc.getQueryData<Task[]>(queryKeys.tasks)?.[0].runs[0].progress_updates).toEqual([stored, line(2)]);
  });
});

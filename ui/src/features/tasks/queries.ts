// Tasks: the list, one task, a run's whole log, planning a new one and every change to it. Each
// change answers the task as it is now, which goes into the cache (putTask in api/queries.ts).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ClarificationAnswer, ModelBusy, OkReply, ProgressUpdate, StopState, Task, TaskPatch, TaskPreview } from '../../api';
import { useApi } from '../../api/context';
import type { ApiError } from '../../api/errors';
import { dropTask, putTask, queryKeys, rejectAsApiError } from '../../api/queries';

export function useTasks() {
  const api = useApi();
  return useQuery<Task[], ApiError>({
    queryKey: queryKeys.tasks,
    queryFn: () => api.listTasks().catch(rejectAsApiError),
  });
}

/** One task, kept live by `task.updated` and `task.run_progress`; starts from its list entry. */
export function useTask(taskId: string | null) {
  const api = useApi();
  const qc = useQueryClient();
  return useQuery<Task, ApiError>({
    queryKey: queryKeys.task(taskId ?? ''),
    queryFn: () => api.getTask(taskId ?? '').catch(rejectAsApiError),
    enabled: taskId !== null,
    initialData: () => qc.getQueryData<Task[]>(queryKeys.tasks)?.find((t) => t.task_id === taskId),
    initialDataUpdatedAt: () => qc.getQueryState(queryKeys.tasks)?.dataUpdatedAt,
  });
}

/** Whether Stop everything is on (kept live by `stop.updated`): scheduled tasks are paused. */
export function useStopped(): boolean {
  const api = useApi();
  const stop = useQuery<StopState, ApiError>({
    queryKey: queryKeys.stop,
    queryFn: () => api.getStop().catch(rejectAsApiError),
  });
  return stop.data?.stopped === true;
}

/** What the local model is doing (kept live by `model.busy`), to say why a run waits. */
export function useModelBusy(enabled: boolean) {
  const api = useApi();
  return useQuery<ModelBusy, ApiError>({
    queryKey: queryKeys.modelBusy,
    queryFn: () => api.modelBusy().catch(rejectAsApiError),
    staleTime: Infinity,
    enabled,
  }).data;
}

/** A run's whole log (only asked for when the embedded last 200 lines are not enough). */
export function useRunEvents(taskId: string, runId: string, enabled: boolean) {
  const api = useApi();
  return useQuery<ProgressUpdate[], ApiError>({
    queryKey: queryKeys.runEvents(taskId, runId),
    queryFn: () => api.runEvents(taskId, runId).catch(rejectAsApiError),
    enabled,
  });
}

export function usePreviewTask() {
  const api = useApi();
  return useMutation<TaskPreview, ApiError, string>({
    mutationFn: (prompt) => api.previewTask(prompt).catch(rejectAsApiError),
  });
}

export function useCreateTask() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Task, ApiError, string>({
    mutationFn: (prompt) => api.createTask({ prompt }).catch(rejectAsApiError),
    onSuccess: (task) => putTask(qc, task),
  });
}

/** Every change to a task answers the task as it is now, which goes straight into the cache. */
export type TaskAction =
  | { kind: 'patch'; patch: TaskPatch }
  | { kind: 'approve' | 'decline' | 'run-now' | 'archive' | 'rerun' }
  | { kind: 'chat'; message: string }
  | { kind: 'clarifications'; answers: ClarificationAnswer[] }
  | { kind: 'cancel-run' | 'retry-run'; runId: string }
  | { kind: 'answer-run'; runId: string; answer: string };

export function useTaskAction(taskId: string) {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Task, ApiError, TaskAction>({
    mutationFn: (action) => {
      const call = (): Promise<Task> => {
        switch (action.kind) {
          case 'patch':
            return api.patchTask(taskId, action.patch);
          case 'approve':
            return api.approveTask(taskId);
          case 'decline':
            return api.declineTask(taskId);
          case 'run-now':
            return api.runTaskNow(taskId);
          case 'archive':
            return api.archiveTask(taskId);
          case 'rerun':
            return api.rerunTask(taskId);
          case 'chat':
            return api.taskChat(taskId, action.message);
          case 'clarifications':
            return api.answerClarifications(taskId, action.answers);
          case 'cancel-run':
            return api.cancelRun(taskId, action.runId);
          case 'retry-run':
            return api.retryRun(taskId, action.runId);
          case 'answer-run':
            return api.answerRun(taskId, action.runId, action.answer);
        }
      };
      return call().catch(rejectAsApiError);
    },
    onSuccess: (task) => putTask(qc, task),
  });
}

export function useDeleteTask() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteTask(id).catch(rejectAsApiError),
    onSuccess: (_res, id) => dropTask(qc, id),
  });
}

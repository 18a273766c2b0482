// The notifications feed (kept live by `notification.*`), its buttons, and answering a task from
// a notification.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Bootstrap, NotificationList, OkReply, Task } from '../../api';
import { useApi } from '../../api/context';
import type { ApiError } from '../../api/errors';
import { dropNotifications, markNotificationsRead, putTask, queryKeys, rejectAsApiError } from '../../api/queries';

/** How many notifications the feed shows (the engine keeps more; the unread count covers all). */
export const FEED_LIMIT = 200;

/** The feed, newest first, with the unread count of the whole feed; live from `notification.*`. */
export function useNotifications() {
  const api = useApi();
  const qc = useQueryClient();
  return useQuery<NotificationList, ApiError>({
    queryKey: queryKeys.notifications,
    queryFn: async () => {
      const feed = await api.listNotifications(FEED_LIMIT, false).catch(rejectAsApiError);
      qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) => (b ? { ...b, unread_notifications: feed.unread } : b));
      return feed;
    },
  });
}

/** The unread count for the sidebar: the feed's, or bootstrap's until the feed is read. */
export function useUnreadCount(fallback: number): number {
  const feed = useNotifications();
  return feed.data?.unread ?? fallback;
}

export type NotificationAction = { kind: 'read' | 'delete'; id: string } | { kind: 'read-all' | 'delete-all' };

/** Mark read, mark all read, delete one, clear all; the cache changes at once on success. */
export function useNotificationAction() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, NotificationAction>({
    mutationFn: (action) => {
      switch (action.kind) {
        case 'read':
          return api.readNotification(action.id).catch(rejectAsApiError);
        case 'delete':
          return api.deleteNotification(action.id).catch(rejectAsApiError);
        case 'read-all':
          return api.readAllNotifications().catch(rejectAsApiError);
        case 'delete-all':
          return api.deleteAllNotifications().catch(rejectAsApiError);
      }
    },
    onSuccess: (_ok, action) => {
      switch (action.kind) {
        case 'read':
          return markNotificationsRead(qc, action.id);
        case 'delete':
          return dropNotifications(qc, action.id);
        case 'read-all':
          return markNotificationsRead(qc, null);
        case 'delete-all':
          return dropNotifications(qc, null);
      }
    },
  });
}

/** Answers a task's question or approves / declines its plan from a notification. */
export type TaskReply =
  | { kind: 'answer'; taskId: string; runId: string; answer: string }
  | { kind: 'approve' | 'decline'; taskId: string };

/** The task as it is now goes into the cache; the notification itself changes by its event. */
export function useTaskReply() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Task, ApiError, TaskReply>({
    mutationFn: (reply) => {
      const call =
        reply.kind === 'answer'
          ? api.answerRun(reply.taskId, reply.runId, reply.answer)
          : reply.kind === 'approve'
            ? api.approveTask(reply.taskId)
            : api.declineTask(reply.taskId);
      return call.catch(rejectAsApiError);
    },
    onSuccess: (task) => putTask(qc, task),
  });
}

// One notification: its title and time, the message once opened (opening marks it read), a link
// to its task and run, and, when it still asks something, the answer or the plan's Approve /
// Decline right here.
import { useState } from 'react';
import type { Notification } from '../../api';
import { useNotificationAction, useTaskReply } from './queries';
import { ErrorNotice } from '../../components/Page';
import { pendingAsk, SETTLED_WORDS, taskDeleted, taskHref, timeOfDay } from './feed';

export function NotificationItem({ notification: n }: { notification: Notification }) {
  const [open, setOpen] = useState(false);
  const action = useNotificationAction();
  const ask = pendingAsk(n);
  const href = taskHref(n);
  const status = typeof n.payload.status === 'string' ? n.payload.status : null;
  const deleted = taskDeleted(n);

  const markRead = () => {
    if (!n.read) action.mutate({ kind: 'read', id: n.id });
  };
  const toggle = () => {
    setOpen((o) => !o);
    markRead();
  };

  return (
    <li
      className={n.read ? 'notification' : 'notification notification-unread'}
      data-testid="notification"
      data-notification-id={n.id}
      data-read={n.read ? 'true' : 'false'}
    >
      <div className="notification-head">
        {n.read ? null : (
          <span className="notification-dot">
            <span className="sr-only">Unread</span>
          </span>
        )}
        <button type="button" className="notification-title" aria-expanded={open} onClick={toggle}>
          {n.title}
        </button>
        <span className="muted notification-time">{timeOfDay(n.created_at)}</span>
        {deleted ? (
          <span className="notification-status" data-testid="notification-status">
            Task deleted
          </span>
        ) : status ? (
          <span className="notification-status" data-testid="notification-status">
            {SETTLED_WORDS[status] ?? status}
          </span>
        ) : null}
        <button
          type="button"
          className="btn btn-quiet notification-delete"
          aria-label={`Delete "${n.title}"`}
          disabled={action.isPending}
          onClick={() => action.mutate({ kind: 'delete', id: n.id })}
        >
          Delete
        </button>
      </div>
      {open || ask ? <p className="notification-message">{n.message}</p> : null}
      {open && deleted ? <p className="muted">This task was deleted, so there is nothing left to do here.</p> : null}
      {ask === 'question' ? <QuestionReply notification={n} onDone={markRead} /> : null}
      {ask === 'approval' ? <ApprovalReply notification={n} onDone={markRead} /> : null}
      {href ? (
        <a className="notification-link" href={href} onClick={markRead}>
          {typeof n.payload.run_id === 'string' ? 'Open the run' : 'Open the task'}
        </a>
      ) : null}
      <ErrorNotice error={action.error} />
    </li>
  );
}

function QuestionReply({ notification: n, onDone }: { notification: Notification; onDone: () => void }) {
  const reply = useTaskReply();
  const [text, setText] = useState('');
  const options = Array.isArray(n.payload.options) ? n.payload.options.filter((o): o is string => typeof o === 'string') : [];
  const question = typeof n.payload.question === 'string' ? n.payload.question : null;
  const answer = (words: string) =>
    reply.mutate(
      { kind: 'answer', taskId: String(n.payload.task_id), runId: String(n.payload.run_id), answer: words },
      { onSuccess: onDone },
    );
  if (reply.isSuccess) return <p className="notification-status">Answered</p>;
  return (
    <div className="notification-reply" role="group" aria-label="Answer the question">
      {question && question !== n.message ? <p className="question-text">{question}</p> : null}
      {options.length > 0 ? (
        <div className="task-actions">
          {options.map((o) => (
            <button key={o} type="button" className="btn" disabled={reply.isPending} onClick={() => answer(o)}>
              {o}
            </button>
          ))}
        </div>
      ) : null}
      <form
        className="task-chat-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) answer(text.trim());
        }}
      >
        <input
          aria-label="Your answer"
          placeholder={options.length > 0 ? 'Or answer in your own words' : 'Your answer'}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="btn btn-primary" disabled={!text.trim() || reply.isPending}>
          Answer
        </button>
      </form>
      <ErrorNotice error={reply.error} prefix="Couldn't send the answer." />
    </div>
  );
}

function ApprovalReply({ notification: n, onDone }: { notification: Notification; onDone: () => void }) {
  const reply = useTaskReply();
  const taskId = String(n.payload.task_id);
  if (reply.isSuccess) return <p className="notification-status">{reply.variables.kind === 'approve' ? 'Approved' : 'Declined'}</p>;
  return (
    <div className="notification-reply task-actions" role="group" aria-label="Approve the plan">
      <button
        type="button"
        className="btn btn-primary"
        disabled={reply.isPending}
        onClick={() => reply.mutate({ kind: 'approve', taskId }, { onSuccess: onDone })}
      >
        Approve
      </button>
      <button
        type="button"
        className="btn"
        disabled={reply.isPending}
        onClick={() => reply.mutate({ kind: 'decline', taskId }, { onSuccess: onDone })}
      >
        Decline
      </button>
      <ErrorNotice error={reply.error} prefix="Couldn't answer the plan." />
    </div>
  );
}

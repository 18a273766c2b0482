// The task's own chat: ask for a change in your words and Sentient plans it again.
import { useState } from 'react';
import type { Task } from '../../../api';
import type { useTaskAction } from '../queries';
import { isBusy } from '../words';

type Action = ReturnType<typeof useTaskAction>;

export function TaskChat({ task, action }: { task: Task; action: Action }) {
  const [text, setText] = useState('');
  const locked = isBusy(task) || task.status === 'archived';
  return (
    <section className="task-section task-chat" aria-label="Change this task">
      <h3>Change this task</h3>
      {task.chat_history.length > 0 ? (
        <ul className="task-chat-lines">
          {task.chat_history.map((line, i) => (
            <li key={i} className={`task-chat-line task-chat-${line.role}`}>
              <span className="task-chat-who">{line.role === 'user' ? 'You' : 'Sentient'}</span> {line.content}
            </li>
          ))}
        </ul>
      ) : null}
      <form
        className="task-chat-form"
        onSubmit={(e) => {
          e.preventDefault();
          const message = text.trim();
          if (!message) return;
          action.mutate({ kind: 'chat', message }, { onSuccess: () => setText('') });
        }}
      >
        <input
          aria-label="Ask for a change"
          placeholder={locked ? 'You can ask for changes once it is not busy.' : 'e.g. Also include the weekend.'}
          value={text}
          disabled={locked}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="btn" disabled={locked || !text.trim() || action.isPending}>
          Send
        </button>
      </form>
    </section>
  );
}

// One task in the list: its name, where it is, and for scheduled ones when it runs next. Hovering
// or focusing it shows what it is doing (its brief, else its latest result), so a task you come
// back to after a week explains itself without opening it. It stays in the list's column (see
// tasks.css), so it never covers the open task, and goes once the row is opened.
import { useId, useState } from 'react';
import type { Task } from '../../api';
import { taskSummary } from './summary';
import { useStopped } from './queries';
import { groupOf, scheduleWords, taskStateWords, taskTime, taskZone } from './words';

/** True when the element's focus shows (keyboard), false after a mouse click. */
function focusVisible(el: Element): boolean {
  try {
    return el.matches(':focus-visible');
  } catch {
    // A browser (or test DOM) that doesn't know :focus-visible: show it, as before.
    return true;
  }
}

export function TaskRow({ task, open, onOpen }: { task: Task; open: boolean; onOpen: () => void }) {
  const scheduled = groupOf(task) === 'scheduled';
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const summaryId = useId();
  const showing = (hovered || focused) && !dismissed;
  const summary = showing ? taskSummary(task) : null;
  const stopped = useStopped();
  return (
    <li
      className={`task-row${open ? ' open' : ''}`}
      data-testid="task-row"
      onMouseEnter={() => {
        setHovered(true);
        setDismissed(false);
      }}
      onMouseLeave={() => setHovered(false)}
    >
      <button
        type="button"
        className="task-row-open"
        onClick={() => {
          // The open task shows it all: its card would only cover the rows below.
          setDismissed(true);
          onOpen();
        }}
        aria-current={open ? 'true' : undefined}
        aria-describedby={summary ? summaryId : undefined}
        onFocus={(e) => {
          // Keyboard focus shows the card; the focus a click leaves behind does not.
          if (!focusVisible(e.currentTarget)) return;
          setFocused(true);
          setDismissed(false);
        }}
        onBlur={() => setFocused(false)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setDismissed(true);
        }}
      >
        <strong className="task-row-name">{task.name}</strong>
        <span className={`task-status task-status-${task.status}`}>{taskStateWords(task, stopped)}</span>
        {scheduled ? (
          <>
            <span className="task-row-meta">{scheduleWords(task.schedule)}</span>
            {task.next_execution_at ? <span className="task-row-meta">Next run: {taskTime(task.next_execution_at, taskZone(task))}</span> : null}
          </>
        ) : null}
      </button>
      {summary ? (
        <div id={summaryId} role="tooltip" className="task-row-summary" data-testid="task-summary">
          {summary.lines.map((line, i) => (
            <p key={i}>
              {line.label ? <span className="task-row-summary-label">{line.label}: </span> : null}
              {line.text}
            </p>
          ))}
        </div>
      ) : null}
    </li>
  );
}

// When the task runs, in plain words and the next time in local time; Change opens a small form
// that saves the new schedule (the engine works out the next run).
import { useState } from 'react';
import type { ScheduleInput, Task } from '../../../api';
import type { useTaskAction } from '../../../api/queries';
import { localTime, scheduleWords } from '../words';

type Action = ReturnType<typeof useTaskAction>;
type Kind = 'now' | 'at' | 'daily' | 'weekly' | 'interval';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function kindOf(task: Task): Kind {
  const s = task.schedule;
  if (!s || s.type === 'triggered') return 'now';
  if (s.type === 'once') return s.run_at ? 'at' : 'now';
  if (s.frequency === 'interval') return 'interval';
  return s.frequency;
}

export function ScheduleEditor({ task, action }: { task: Task; action: Action }) {
  const s = task.schedule;
  const [editing, setEditing] = useState(false);
  const [kind, setKind] = useState<Kind>(kindOf(task));
  const [time, setTime] = useState(s?.type === 'recurring' && s.time ? s.time : '09:00');
  const [days, setDays] = useState<string[]>(s?.type === 'recurring' && s.days?.length ? s.days : DAYS.slice(0, 5));
  const [runAt, setRunAt] = useState(s?.type === 'once' && s.run_at ? s.run_at.slice(0, 16) : '');
  const [minutes, setMinutes] = useState(s?.type === 'recurring' && s.interval_minutes ? String(s.interval_minutes) : '60');
  const [problem, setProblem] = useState<string | null>(null);
  const timezone = s?.timezone;

  const build = (): ScheduleInput | string => {
    const tz = timezone ? { timezone } : {};
    switch (kind) {
      case 'now':
        return { type: 'once', run_at: null, ...tz };
      case 'at':
        return runAt ? { type: 'once', run_at: runAt, ...tz } : 'Pick the day and time it should run.';
      case 'daily':
        return time ? { type: 'recurring', frequency: 'daily', time, ...tz } : 'Pick the time it should run.';
      case 'weekly':
        if (days.length === 0) return 'Pick at least one day.';
        return time ? { type: 'recurring', frequency: 'weekly', days, time, ...tz } : 'Pick the time it should run.';
      case 'interval': {
        const n = Number.parseInt(minutes, 10);
        if (!Number.isFinite(n) || n < 5) return 'Every 5 minutes is the most often a task can run.';
        return { type: 'recurring', frequency: 'interval', interval_minutes: n, ...tz };
      }
    }
  };

  if (!editing) {
    return (
      <section className="task-section" aria-label="Schedule">
        <h3>When it runs</h3>
        <p data-testid="task-schedule">{scheduleWords(s)}</p>
        {task.next_execution_at ? <p className="muted" data-testid="task-next-run">Next run: {localTime(task.next_execution_at)}</p> : null}
        {task.last_execution_at ? <p className="muted">Last run: {localTime(task.last_execution_at)}</p> : null}
        {s?.type === 'triggered' ? null : (
          <button type="button" className="btn btn-quiet" onClick={() => setEditing(true)}>
            Change schedule
          </button>
        )}
      </section>
    );
  }
  return (
    <form
      className="task-section schedule-editor"
      aria-label="Schedule"
      onSubmit={(e) => {
        e.preventDefault();
        const schedule = build();
        if (typeof schedule === 'string') {
          setProblem(schedule);
          return;
        }
        setProblem(null);
        action.mutate({ kind: 'patch', patch: { schedule } }, { onSuccess: () => setEditing(false) });
      }}
    >
      <h3>When it runs</h3>
      <label className="field">
        <span className="field-label">How often</span>
        <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          <option value="now">Once, right away</option>
          <option value="at">Once, at a set time</option>
          <option value="daily">Every day</option>
          <option value="weekly">On chosen days of the week</option>
          <option value="interval">Every few minutes or hours</option>
        </select>
      </label>
      {kind === 'at' ? (
        <label className="field">
          <span className="field-label">Day and time</span>
          <input type="datetime-local" value={runAt} onChange={(e) => setRunAt(e.target.value)} />
        </label>
      ) : null}
      {kind === 'weekly' ? (
        <fieldset className="schedule-days">
          <legend className="field-label">Days</legend>
          {DAYS.map((d) => (
            <label key={d} className="schedule-day">
              <input
                type="checkbox"
                checked={days.includes(d)}
                onChange={(e) => setDays((list) => (e.target.checked ? [...list, d] : list.filter((x) => x !== d)))}
              />
              {d.slice(0, 3)}
            </label>
          ))}
        </fieldset>
      ) : null}
      {kind === 'daily' || kind === 'weekly' ? (
        <label className="field">
          <span className="field-label">Time</span>
          <input type="time" value={time} onChange={(e) => setTime(e.target.value)} />
        </label>
      ) : null}
      {kind === 'interval' ? (
        <label className="field">
          <span className="field-label">Every how many minutes</span>
          <input type="number" min={5} step={5} value={minutes} onChange={(e) => setMinutes(e.target.value)} />
        </label>
      ) : null}
      {problem ? (
        <p className="task-problem" role="alert">
          {problem}
        </p>
      ) : null}
      <div className="task-actions">
        <button type="submit" className="btn btn-primary" disabled={action.isPending}>
          Save schedule
        </button>
        <button type="button" className="btn btn-quiet" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

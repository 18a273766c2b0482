// When the task runs, in plain words and the next time in the task's own time zone (named when
// it isn't this computer's, so the schedule and the next run always agree); Change opens a small form
// that saves the new schedule (the engine works out the next run). A task can also wait for a
// webhook (Settings > Webhooks): each call starts a run, optionally only when the call's fields
// match a filter.
import { useState } from 'react';
import type { ScheduleInput, Task } from '../../../api';
import { useHooks } from '../../settings';
import { type useTaskAction } from '../queries';
import { scheduleWords, taskTime, taskZone } from '../words';

type Action = ReturnType<typeof useTaskAction>;
type Kind = 'now' | 'at' | 'daily' | 'weekly' | 'interval' | 'webhook';

/** `key=value` lines (blank lines skipped) as a filter; a string says what is wrong. */
export function parseFilter(text: string): Record<string, string> | string {
  const filter: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf('=');
    const key = at === -1 ? '' : line.slice(0, at).trim();
    if (!key) return `Write each filter line as name=value (this one isn't: "${line}").`;
    filter[key] = line.slice(at + 1).trim();
  }
  return filter;
}

export function filterText(filter: Record<string, string> | undefined): string {
  return Object.entries(filter ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function kindOf(task: Task): Kind {
  const s = task.schedule;
  if (s?.type === 'triggered') return s.source === 'webhook' ? 'webhook' : 'now';
  if (!s) return 'now';
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
  const [hookId, setHookId] = useState(s?.type === 'triggered' && s.source === 'webhook' ? s.event : '');
  const [filter, setFilter] = useState(s?.type === 'triggered' ? filterText(s.filter) : '');
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
      case 'webhook': {
        if (!hookId) return 'Pick the webhook that starts this task.';
        const parsed = parseFilter(filter);
        if (typeof parsed === 'string') return parsed;
        return { type: 'triggered', source: 'webhook', event: hookId, filter: parsed, ...tz };
      }
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
        {task.next_execution_at ? <p className="muted" data-testid="task-next-run">Next run: {taskTime(task.next_execution_at, taskZone(task))}</p> : null}
        {task.last_execution_at ? <p className="muted" data-testid="task-last-run">Last run: {taskTime(task.last_execution_at, taskZone(task))}</p> : null}
        {s?.type === 'triggered' && s.source === 'webhook' ? <HookName id={s.event} filter={s.filter} /> : null}
        {s?.type === 'triggered' && s.source !== 'webhook' ? null : (
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
          <option value="webhook">When a webhook is called</option>
        </select>
      </label>
      {kind === 'webhook' ? <HookPicker hookId={hookId} onHook={setHookId} filter={filter} onFilter={setFilter} /> : null}
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

/** Which webhook starts the task, by name, and its filter. */
function HookName({ id, filter }: { id: string; filter: Record<string, string> | undefined }) {
  const hooks = useHooks();
  const hook = hooks.data?.find((h) => h.id === id);
  const text = filterText(filter);
  return (
    <p className="muted" data-testid="task-trigger">
      Webhook: {hook ? hook.name : hooks.isPending ? '…' : 'a webhook that no longer exists'}
      {text ? ` · only when ${text.split('\n').join(', ')}` : ''}
    </p>
  );
}

function HookPicker({
  hookId,
  onHook,
  filter,
  onFilter,
}: {
  hookId: string;
  onHook: (id: string) => void;
  filter: string;
  onFilter: (text: string) => void;
}) {
  const hooks = useHooks();
  if (hooks.isPending) return <p className="muted">Loading webhooks…</p>;
  if (hooks.error) return <p className="task-problem">Couldn't load the webhooks. {hooks.error.detail}</p>;
  if (hooks.data.length === 0) {
    return (
      <p className="muted">
        No webhooks yet. Make one in <a href="#/settings/webhooks">Settings &gt; Webhooks</a>, then come back.
      </p>
    );
  }
  return (
    <>
      <label className="field">
        <span className="field-label">Webhook</span>
        <select value={hookId} onChange={(e) => onHook(e.target.value)}>
          <option value="">Pick a webhook</option>
          {hooks.data.map((h) => (
            <option key={h.id} value={h.id}>
              {h.name}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field-label">Only when (optional, one name=value per line)</span>
        <textarea rows={2} placeholder="status=failed" value={filter} onChange={(e) => onFilter(e.target.value)} />
      </label>
    </>
  );
}

// Settings > General, "About you": what onboarding asked, editable. The weather and maps use the
// location; reminders and schedules the time zone.
import { useMemo, useState, type FormEvent } from 'react';
import type { Bootstrap } from '../../api';
import { usePatchConfig } from '../../api/shared';
import { ErrorNotice } from '../../components/Page';
import { timezoneList } from '../../components/timezones';

type Fields = { user_name: string; name: string; timezone: string; location: string };

function fieldsOf(assistant: Bootstrap['assistant']): Fields {
  return {
    user_name: assistant.user_name ?? '',
    name: assistant.name ?? '',
    timezone: assistant.timezone ?? 'auto',
    location: assistant.location ?? '',
  };
}

export function AboutYou({ assistant }: { assistant: Bootstrap['assistant'] }) {
  const patch = usePatchConfig();
  const saved = fieldsOf(assistant);
  const [fields, setFields] = useState<Fields>(saved);
  const [missing, setMissing] = useState<string | null>(null);
  const zones = useMemo(timezoneList, []);
  const changed = (Object.keys(saved) as (keyof Fields)[]).some((k) => fields[k].trim() !== saved[k]);
  const set = (key: keyof Fields) => (value: string) => {
    patch.reset();
    setFields((f) => ({ ...f, [key]: value }));
  };

  const trimmed = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.trim()]));
  // Saved is what was sent last and is still what the form holds.
  const justSaved = patch.isSuccess && JSON.stringify(patch.variables) === JSON.stringify({ assistant: trimmed });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!fields.name.trim()) return setMissing('Give your assistant a name (Sentient is fine).');
    if (!fields.timezone.trim()) return setMissing('Pick a time zone, or type auto to use this computer’s.');
    setMissing(null);
    patch.mutate({ assistant: trimmed });
  }

  const field = (key: keyof Fields, label: string, help: string, extra: Record<string, string> = {}) => (
    <div className="field">
      <label className="field-label" htmlFor={`about-${key}`}>
        {label}
      </label>
      <input
        id={`about-${key}`}
        name={key}
        value={fields[key]}
        onChange={(e) => set(key)(e.target.value)}
        aria-describedby={`about-${key}-help`}
        autoComplete="off"
        {...extra}
      />
      <span className="field-help" id={`about-${key}-help`}>
        {help}
      </span>
    </div>
  );

  return (
    <form className="card settings-section" onSubmit={submit} noValidate aria-labelledby="about-you-title">
      <h2 id="about-you-title">About you</h2>
      {field('user_name', 'Your name', 'What Sentient calls you.')}
      {field('name', "Assistant's name", 'What your assistant is called.')}
      {field('timezone', 'Time zone', 'Used for reminders and schedules; auto follows this computer.', { list: 'about-timezones' })}
      <datalist id="about-timezones">
        {['auto', ...zones].map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      {field('location', 'Where you are', 'Your city, such as Pune, India: the weather and maps start from here.', {
        placeholder: 'City, country',
      })}
      {missing ? (
        <div className="notice notice-error" role="alert">
          <p>{missing}</p>
        </div>
      ) : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save that." />
      <div className="settings-actions">
        <button type="submit" className="btn btn-primary" disabled={!changed || justSaved || patch.isPending}>
          {patch.isPending ? 'Saving…' : 'Save'}
        </button>
        {justSaved ? (
          <span className="muted" role="status">
            Saved.
          </span>
        ) : null}
      </div>
    </form>
  );
}

// First launch: a few questions so Sentient knows who it works for. Posts to onboarding, then
// the app shows.
import { useMemo, useState, type FormEvent } from 'react';
import type { Bootstrap } from '../../api';
import { useOnboarding } from './queries';
import { ErrorNotice } from '../../components/Page';
import { detectTimezone, timezoneList } from '../../components/timezones';
import { writeModelSetup } from './modelSetup';

export function Onboarding({ bootstrap }: { bootstrap: Bootstrap }) {
  const onboarding = useOnboarding();
  const [userName, setUserName] = useState(bootstrap.assistant.user_name ?? '');
  const [assistantName, setAssistantName] = useState(bootstrap.assistant.name || 'Sentient');
  const [timezone, setTimezone] = useState(() => {
    const saved = bootstrap.assistant.timezone;
    return saved && saved !== 'auto' ? saved : detectTimezone();
  });
  const [location, setLocation] = useState(bootstrap.assistant.location ?? '');
  const [missing, setMissing] = useState<string | null>(null);
  const zones = useMemo(timezoneList, []);

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!userName.trim()) return setMissing('Tell Sentient what to call you.');
    if (!assistantName.trim()) return setMissing('Give your assistant a name (Sentient is fine).');
    if (!timezone.trim()) return setMissing('Pick your time zone, so reminders happen at the right time.');
    setMissing(null);
    // Saved first, so a reload keeps what was typed; the model step comes next and a reload
    // during it opens it again (the app shows it while this says so).
    writeModelSetup('pending');
    onboarding.mutate({
      user_name: userName.trim(),
      assistant_name: assistantName.trim(),
      timezone: timezone.trim(),
      location: location.trim(),
      // Asked later, in Settings; the engine keeps its defaults for these.
      professional_context: null,
      personal_context: null,
      persona: null,
      daily_brief: null,
    }, { onError: () => writeModelSetup(null) });
  }

  return (
    <div className="onboarding" role="main">
      <form className="card onboarding-card" onSubmit={submit} noValidate aria-labelledby="onboarding-title">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Sentient</span>
        </div>
        <p className="field-help">Step 1 of 2</p>
        <h1 id="onboarding-title">Welcome</h1>
        <p className="muted">A few quick questions so your assistant knows who it's working for. You can change these later.</p>

        <div className="field">
          <label className="field-label" htmlFor="onb-user_name">
            Your name
          </label>
          <input
            id="onb-user_name"
            name="user_name"
            value={userName}
            onChange={(e) => setUserName(e.target.value)}
            autoComplete="given-name"
            placeholder="What should it call you?"
            autoFocus
            required
          />
        </div>

        <div className="field">
          <label className="field-label" htmlFor="onb-assistant_name">
            Your assistant's name
          </label>
          <input
            id="onb-assistant_name"
            name="assistant_name"
            value={assistantName}
            onChange={(e) => setAssistantName(e.target.value)}
            autoComplete="off"
            required
          />
        </div>

        <div className="field">
          <label className="field-label" htmlFor="onb-timezone">
            Time zone
          </label>
          <input
            id="onb-timezone"
            name="timezone"
            value={timezone}
            onChange={(e) => setTimezone(e.target.value)}
            list="timezones"
            aria-describedby="onb-timezone-help"
            autoComplete="off"
            required
          />
          <span className="field-help" id="onb-timezone-help">
            Filled in from this computer. Used for reminders and schedules.
          </span>
          <datalist id="timezones">
            {zones.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
        </div>

        <div className="field">
          <label className="field-label" htmlFor="onb-location">
            Where you are (optional)
          </label>
          <input
            id="onb-location"
            name="location"
            value={location}
            onChange={(e) => setLocation(e.target.value)}
            autoComplete="address-level2"
            placeholder="City, country"
            aria-describedby="onb-location-help"
          />
          <span className="field-help" id="onb-location-help">
            Helps with weather, local times and places near you.
          </span>
        </div>

        {missing ? (
          <div className="notice notice-error" role="alert">
            <p>{missing}</p>
          </div>
        ) : null}
        <ErrorNotice error={onboarding.error} prefix="Couldn't save that." />

        <button type="submit" className="btn btn-primary btn-wide" disabled={onboarding.isPending} aria-busy={onboarding.isPending}>
          {onboarding.isPending ? 'Saving…' : 'Get started'}
        </button>
      </form>
    </div>
  );
}

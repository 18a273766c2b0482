// Settings > Browser: whether the assistant can use a browser (and what to do when it can't),
// every `browser.*` setting, the sites it may and may not open, and the profiles: each with its own
// sign-ins, opened here for the person to sign in, renamed, noted or deleted.
import { useEffect, useState } from 'react';
import type { BrowserProfiles } from '../../../api';
import { useConfig, usePatchConfig } from '../../../api/shared';
import { ErrorNotice, Loading } from '../../../components/Page';
import { SchemaForm } from '../form/SchemaForm';
import {
  useAddBrowserProfile,
  useBrowserProfiles,
  useBrowserStatus,
  useChangeBrowserProfile,
  useCloseBrowser,
  useDeleteBrowserProfile,
  useOpenBrowser,
} from './queries';
import './browser-settings.css';

const ENGINE_NAMES: Record<string, string> = { msedge: 'Microsoft Edge', chrome: 'Google Chrome', chromium: 'Chromium' };

export function BrowserSettings() {
  return (
    <>
      <BrowserStatusCard />
      <ProfilesCard />
      <SchemaForm
        section={['browser']}
        fields={[
          { key: 'enabled', title: 'Let the assistant use a web browser' },
          { key: 'engine', title: 'Which browser' },
          { key: 'headless', title: 'Keep the browser window hidden' },
          { key: 'idle_minutes', title: 'Close the hidden browser after', unit: 'minutes' },
          { key: 'confirm_purchases', title: 'Always ask before buying or paying' },
          { key: 'live_view', title: 'Show pictures of the page in the chat' },
        ]}
        title="Browser"
        intro="For sites without their own app. It never types passwords, card details or one-time codes: it asks you to."
        testId="browser-form"
      />
      <SiteLists />
      <SchemaForm
        section={['browser']}
        fields={[
          { key: 'max_snapshot_chars', title: 'Longest page description the assistant reads', unit: 'characters' },
          { key: 'max_extract_chars', title: 'Longest page text the assistant reads', unit: 'characters' },
        ]}
        title="How much of a page it reads"
        testId="browser-limits-form"
      />
    </>
  );
}

function BrowserStatusCard() {
  const status = useBrowserStatus();
  const close = useCloseBrowser();
  if (status.isPending) return <Loading label="Checking for a browser…" />;
  if (status.error) return <ErrorNotice error={status.error} prefix="Couldn't check the browser." onRetry={() => void status.refetch()} />;
  const s = status.data;
  const name = s.engine ? (ENGINE_NAMES[s.engine] ?? s.engine) : 'the browser';
  if (!s.available)
    return (
      <p className="settings-status" role="alert" data-testid="browser-status">
        {s.error}
      </p>
    );
  if (!s.running)
    return (
      <p className="settings-status" data-testid="browser-status">
        The assistant uses {name} when a site has no app of its own. It opens on first use and closes when idle.
      </p>
    );
  const tabs = s.tabs.length === 1 ? '1 tab' : `${s.tabs.length} tabs`;
  return (
    <div className="settings-status browser-running" data-testid="browser-status">
      <span>
        {s.attached ? `Connected to your browser (profile ${s.profile}), ${tabs}.` : `${name} is open with the ${s.profile} profile, ${tabs}${s.headless ? ', hidden' : ''}.`}
      </span>
      <button type="button" className="btn btn-quiet" disabled={close.isPending} onClick={() => close.mutate()}>
        {s.attached ? 'Disconnect' : 'Close the browser'}
      </button>
      <ErrorNotice error={close.error} prefix="Couldn't close it." />
    </div>
  );
}

function ProfilesCard() {
  const profiles = useBrowserProfiles();
  return (
    <div className="card settings-section" data-testid="browser-profiles">
      <h2>Profiles</h2>
      <p className="muted">Each profile keeps its own sign-ins, so a task can act as a second account. Sign in once with Open to sign in.</p>
      {profiles.isPending ? (
        <Loading label="Loading profiles…" />
      ) : profiles.error ? (
        <ErrorNotice error={profiles.error} prefix="Couldn't load the profiles." onRetry={() => void profiles.refetch()} />
      ) : (
        <ul className="browser-profile-list" aria-label="Browser profiles">
          {profiles.data.profiles.map((p) => (
            <ProfileRow key={p.name} profile={p} />
          ))}
        </ul>
      )}
      <NewProfileForm />
    </div>
  );
}

type Profile = BrowserProfiles['profiles'][number];

function ProfileRow({ profile }: { profile: Profile }) {
  const open = useOpenBrowser();
  const change = useChangeBrowserProfile();
  const del = useDeleteBrowserProfile();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(profile.name);
  const [confirming, setConfirming] = useState(false);
  const isDefault = profile.name === 'default';
  return (
    <li className="browser-profile" data-testid="browser-profile" data-profile={profile.name}>
      <div className="browser-profile-main">
        <strong>{profile.name}</strong>
        {profile.running ? <span className="badge">Open</span> : null}
        <span className="muted">{profile.kind === 'attach' ? `Connects to your browser at ${profile.endpoint}` : 'Sentient opens its own browser'}</span>
        {profile.notes ? <span className="muted">{profile.notes}</span> : null}
      </div>
      {renaming ? (
        <form
          className="browser-profile-rename"
          onSubmit={(e) => {
            e.preventDefault();
            change.mutate({ name: profile.name, change: { name } }, { onSuccess: () => setRenaming(false) });
          }}
        >
          <label className="field">
            <span className="field-label">New name</span>
            <input value={name} onChange={(e) => setName(e.target.value)} maxLength={60} />
          </label>
          <button type="submit" className="btn" disabled={change.isPending || !name.trim()}>
            Rename
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : confirming ? (
        <span className="task-actions" role="group" aria-label={`Delete ${profile.name}?`}>
          <span>Delete this profile and its sign-ins? Tasks that use it will need another profile.</span>
          <button type="button" className="btn btn-stop" disabled={del.isPending} onClick={() => del.mutate(profile.name)}>
            Yes, delete it
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </span>
      ) : (
        <span className="browser-profile-actions">
          <button type="button" className="btn" disabled={open.isPending} onClick={() => open.mutate(profile.name)}>
            Open to sign in
          </button>
          {isDefault ? null : (
            <>
              <button type="button" className="btn btn-quiet" aria-label={`Rename ${profile.name}`} onClick={() => setRenaming(true)}>
                Rename
              </button>
              <button type="button" className="btn btn-quiet" aria-label={`Delete ${profile.name}`} onClick={() => setConfirming(true)}>
                Delete
              </button>
            </>
          )}
        </span>
      )}
      <ErrorNotice error={open.error} prefix="Couldn't open it." />
      <ErrorNotice error={change.error} prefix="Couldn't rename it." />
      <ErrorNotice error={del.error} prefix="Couldn't delete it." />
    </li>
  );
}

function NewProfileForm() {
  const add = useAddBrowserProfile();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'launch' | 'attach'>('launch');
  const [endpoint, setEndpoint] = useState('');
  const [notes, setNotes] = useState('');
  return (
    <form
      className="browser-profile-new"
      aria-label="Add a profile"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate(
          { name, kind, endpoint: kind === 'attach' ? endpoint : null, notes: notes || null, engine: null },
          {
            onSuccess: () => {
              setName('');
              setEndpoint('');
              setNotes('');
            },
          },
        );
      }}
    >
      <h3>Add a profile</h3>
      <label className="field">
        <span className="field-label">Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Work account" maxLength={60} />
      </label>
      <label className="field">
        <span className="field-label">Kind</span>
        <select value={kind} onChange={(e) => setKind(e.target.value as 'launch' | 'attach')}>
          <option value="launch">Sentient opens its own browser</option>
          <option value="attach">Connect to a browser I started</option>
        </select>
      </label>
      {kind === 'attach' ? (
        <label className="field">
          <span className="field-label">Debugging address on this computer</span>
          <input value={endpoint} onChange={(e) => setEndpoint(e.target.value)} placeholder="http://127.0.0.1:9333" />
        </label>
      ) : null}
      <label className="field">
        <span className="field-label">Notes</span>
        <input value={notes} onChange={(e) => setNotes(e.target.value)} placeholder="What this profile is for" />
      </label>
      <button type="submit" className="btn btn-primary" disabled={add.isPending || !name.trim()}>
        Add profile
      </button>
      <ErrorNotice error={add.error} prefix="Couldn't add it." />
    </form>
  );
}

/** The sites the browser may open (empty: every site) and never opens, one a line. */
function SiteLists() {
  const config = useConfig();
  const patch = usePatchConfig();
  const browser = (config.data as { browser?: { allow_domains?: string[]; block_domains?: string[] } } | undefined)?.browser;
  const [allow, setAllow] = useState('');
  const [block, setBlock] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!browser) return;
    setAllow((browser.allow_domains ?? []).join('\n'));
    setBlock((browser.block_domains ?? []).join('\n'));
  }, [browser]);
  if (config.isPending) return <Loading label="Loading the site lists…" />;
  const lines = (text: string) =>
    text
      .split(/[\n,]/)
      .map((l) => l.trim())
      .filter(Boolean);
  return (
    <form
      className="card settings-section browser-sites"
      data-testid="browser-sites"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        patch.mutate({ browser: { allow_domains: lines(allow), block_domains: lines(block) } }, { onSuccess: () => setSaved(true) });
      }}
    >
      <h2>Sites</h2>
      <p className="muted">One site a line, such as amazon.in; a site covers its subdomains. These hold after redirects too.</p>
      <label className="field">
        <span className="field-label">Only these sites (empty allows every site)</span>
        <textarea value={allow} onChange={(e) => setAllow(e.target.value)} rows={3} />
      </label>
      <label className="field">
        <span className="field-label">Never these sites</span>
        <textarea value={block} onChange={(e) => setBlock(e.target.value)} rows={3} />
      </label>
      <button type="submit" className="btn btn-primary" disabled={patch.isPending}>
        Save the site lists
      </button>
      {saved ? <span className="muted">Saved.</span> : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save them." />
    </form>
  );
}

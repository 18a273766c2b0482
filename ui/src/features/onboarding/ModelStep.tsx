// The last onboarding step, "How should Sentient think?": run a model on this computer (the
// models Ollama or LM Studio already has, with ONE button that sets every job to them; else
// install help, or a download of the model recommended for this computer that switches to the
// "Local only" setup), use a cloud key (save it, check it with one short call, switch to the
// "Cloud" setup), or decide later. A set-up model is then checked in the background and the step
// ends with one plain line about it. Opened again by "Set up now", it closes with Close or Escape.
import { useEffect, useId, useRef, useState } from 'react';
import type { Hardware, LocalModel, LocalModels, LocalPick, Missing, PresetSwitch, ProviderView, RoleChanges } from '../../api';

type Os = Hardware['os'];
import {
  FixButton,
  KeyStoreChoice,
  PullProgressView,
  PullProvider,
  useCheckup,
  useHardware,
  useLocalModels,
  useModelProviders,
  OtherComputer,
  usePull,
  useSetRoles,
  useSetSecret,
  useSwitchPreset,
  useTestModel,
  withoutLatest,
  type CheckupState,
} from '../settings';
import { ErrorNotice, Loading } from '../../components/Page';
import { writeModelSetup } from './modelSetup';
import './onboarding.css';

export type Choice = 'local' | 'cloud' | 'later';

/** The built-in setups' names (GET /api/models/presets). */
export const LOCAL_PRESET = 'Local only';
export const CLOUD_PRESET = 'Cloud';

/** The providers the "Cloud" setup can use, in the order it picks them (contract section 3). */
export const CLOUD_PROVIDERS = ['anthropic', 'openai', 'openrouter'];

/** Download sizes of the models the hardware table recommends, as Ollama's library lists them. */
const DOWNLOAD_GB: Record<string, number> = {
  'qwen3:4b': 2.5,
  'qwen3:8b': 5.2,
  'qwen3:14b': 9.3,
  'qwen3:30b-a3b': 19,
};

/** "Download qwen3:8b (5.2 GB)", or without the size when it isn't known. */
export function downloadLabel(name: string): string {
  const gb = DOWNLOAD_GB[withoutLatest(name)];
  return gb ? `Download ${name} (${gb.toLocaleString('en')} GB)` : `Download ${name}`;
}

/** The computer's system: the engine's answer, else the browser's guess. */
export function systemOf(hardware: Hardware | undefined): Os {
  if (hardware?.os) return hardware.os;
  const platform = `${typeof navigator === 'undefined' ? '' : navigator.platform} ${typeof navigator === 'undefined' ? '' : navigator.userAgent}`;
  if (/Mac|iPhone|iPad/i.test(platform)) return 'macos';
  if (/Win/i.test(platform)) return 'windows';
  return 'linux';
}

const INSTALL: Record<Os, { name: string; steps: string[] }> = {
  macos: {
    name: 'Mac',
    steps: ['Download Ollama for Mac from ollama.com.', 'Open the file, drag Ollama into Applications, then open it.'],
  },
  windows: {
    name: 'Windows',
    steps: ['Download the Windows installer from ollama.com.', 'Run it. Ollama starts by itself and stays in the tray.'],
  },
  linux: {
    name: 'Linux',
    steps: [
      'Open a terminal and run: curl -fsSL https://ollama.com/install.sh | sh',
      'If it isn\'t running afterwards, start it with: ollama serve',
    ],
  },
};

/** The one line the step ends with, from the check-up of the main model. */
export function checkupSummary(state: CheckupState, model: string): { text: string; ok: boolean } | null {
  const name = withoutLatest(model.includes('/') ? model.slice(model.indexOf('/') + 1) : model);
  if (state.phase === 'idle') return null;
  if (state.phase === 'failed') return { text: `Couldn't finish checking ${name}. ${state.error ?? ''}`.trim(), ok: false };
  const result = state.results.primary;
  if (state.phase === 'running' || !result) {
    return { text: `Checking that ${name} answers… A model on this computer can take a minute to load the first time.`, ok: false };
  }
  const failed = result.checks.find((c) => c.status === 'fail');
  if (!failed) {
    const warned = result.checks.some((c) => c.status === 'warn');
    return { text: warned ? 'Your model is ready. A few things are worth a look in Settings > Models.' : 'Your model is ready.', ok: true };
  }
  const answered = result.checks.some((c) => c.id === 'reply' && c.status !== 'fail');
  if (!answered) return { text: `${name} didn't answer: ${failed.detail}`, ok: false };
  if (failed.id === 'tools' || failed.id === 'chain') return { text: `${name} answered, but can't use tools: ${failed.detail}`, ok: true };
  return { text: `${name} answered, but ${failed.label.toLowerCase()} doesn't work: ${failed.detail}`, ok: true };
}

type StepProps = { firstRun?: boolean; onFinish?: () => void; onClose?: () => void };

export function ModelStep({ firstRun = true, onFinish, onClose }: StepProps = {}) {
  return (
    <PullProvider>
      <ModelStepInner firstRun={firstRun} onFinish={onFinish} onClose={onClose} />
    </PullProvider>
  );
}

/** A model that was set up: what the step ends with while the check-up tries it. */
type Ready = { model: string; answered: boolean; missing: Missing[]; note: string };

function ModelStepInner({ firstRun, onFinish, onClose }: StepProps & { firstRun: boolean }) {
  const hardware = useHardware();
  const [picked, setPicked] = useState<Choice | null>(null);
  // The model that was set up, once a setup was switched to; the check-up then tries it.
  const [ready, setReady] = useState<Ready | null>(null);
  const checkup = useCheckup();
  // A download started from "Also worth doing" shows its progress here.
  const pull = usePull();
  const titleId = useId();
  const cloudFirst = hardware.data?.recommendation.cloud_first ?? false;
  const choice: Choice | null = picked ?? (hardware.data ? (cloudFirst ? 'cloud' : 'local') : null);

  const summary = ready ? checkupSummary(checkup.state, ready.model) : null;
  const answered = (ready?.answered ?? false) || (summary?.ok ?? false);

  const onReady = (model: string, missing: Missing[], answeredAlready: boolean, note: string) => {
    setReady({ model, answered: answeredAlready, missing, note });
    // In the background: the person can go on while it runs.
    void checkup.start({ roles: { primary: model } });
  };
  const onSwitched = (switched: PresetSwitch, fallback: string, answeredAlready: boolean, note: string) =>
    onReady(switched.preset?.roles.primary ?? fallback, switched.missing, answeredAlready, note);

  const finish = (state: 'later' | 'unanswered' | null) => {
    writeModelSetup(state);
    onFinish?.();
  };

  // Opened again by "Set up now": Escape closes it like the Close button.
  useEffect(() => {
    if (!onClose) return undefined;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented) onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <div className="onboarding" role="main">
      <section className="card onboarding-card model-step" aria-labelledby={titleId}>
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Sentient</span>
          {onClose ? (
            <button type="button" className="btn btn-quiet model-step-close" onClick={onClose}>
              Close
            </button>
          ) : null}
        </div>
        {firstRun ? <p className="field-help">Step 2 of 2</p> : null}
        <h1 id={titleId}>How should Sentient think?</h1>
        <p className="muted">
          Sentient needs an AI model to understand you and answer. Pick one way; you can change it any time in Settings &gt; Models.
        </p>

        <fieldset className="choice-list" disabled={ready !== null}>
          <legend className="field-label">Where the model runs</legend>
          <ChoiceCard
            value="local"
            current={choice}
            onPick={setPicked}
            title="On this computer"
            text={
              cloudFirst
                ? 'Private and free, but this computer has little memory for it, so replies would be slow.'
                : 'Private and free: nothing you say leaves this computer. Uses a model you already have in Ollama or LM Studio, or a download.'
            }
            badge={hardware.data && !cloudFirst ? 'Recommended' : null}
          />
          <ChoiceCard
            value="cloud"
            current={choice}
            onPick={setPicked}
            title="With a cloud key"
            text="Quick on any computer. Needs a key from Anthropic, OpenAI or OpenRouter; your messages go to that company."
            badge={cloudFirst ? 'Recommended' : null}
          />
          <ChoiceCard
            value="later"
            current={choice}
            onPick={setPicked}
            title="Later"
            text="Look around first. Sentient can't answer until a model is set up."
            badge={null}
          />
        </fieldset>
        {hardware.isPending && picked === null ? <Loading label="Checking what this computer can run…" /> : null}

        {choice === 'local' && !ready ? (
          <LocalSetup
            hardware={hardware.data}
            onUseCloud={() => setPicked('cloud')}
            onSwitched={(res, m, note) => onSwitched(res, m, false, note)}
            onReady={(m, note) => onReady(m, [], false, note)}
            onContinue={() => finish('later')}
          />
        ) : null}
        {choice === 'cloud' && !ready ? <CloudSetup onReady={(res, m, note) => onSwitched(res, m, true, note)} /> : null}
        {choice === 'later' ? (
          <div className="model-panel">
            <p>You can set up a model whenever you like: Chat and Tasks will show a reminder with a button until one answers.</p>
            <button type="button" className="btn btn-primary btn-wide" onClick={() => finish('later')}>
              Finish and set it up later
            </button>
          </div>
        ) : null}

        {ready ? (
          <div className="model-panel" data-testid="model-ready">
            <p>
              <span className="dot dot-ok" aria-hidden="true" /> {ready.note}
            </p>
            {summary ? (
              <p className={summary.ok ? 'model-summary' : 'model-summary model-summary-pending'} role="status" data-testid="model-summary">
                {checkup.busy ? <span className="spinner" aria-hidden="true" /> : null}
                {summary.text}
              </p>
            ) : null}
            <MissingList missing={ready.missing} />
            {ready.missing.length > 0 && pull.state.phase !== 'idle' && pull.state.phase !== 'done' ? <PullProgressView state={pull.state} /> : null}
            {ready.missing.some((m) => m.action?.kind === 'pull_model' && pull.state.phase === 'done' && m.action.name === pull.state.name) ? (
              <p className="muted" role="status">
                {pull.state.phase === 'done' ? `${pull.state.name} is downloaded.` : null}
              </p>
            ) : null}
            <button type="button" className="btn btn-primary btn-wide" onClick={() => finish(answered ? null : 'unanswered')} autoFocus>
              Start using Sentient
            </button>
          </div>
        ) : null}
      </section>
    </div>
  );
}

function ChoiceCard({
  value,
  current,
  onPick,
  title,
  text,
  badge,
}: {
  value: Choice;
  current: Choice | null;
  onPick: (c: Choice) => void;
  title: string;
  text: string;
  badge: string | null;
}) {
  const id = useId();
  return (
    <label className={current === value ? 'choice choice-picked' : 'choice'} htmlFor={id}>
      <input
        id={id}
        type="radio"
        name="model-choice"
        value={value}
        checked={current === value}
        onChange={() => onPick(value)}
        aria-describedby={`${id}-text`}
      />
      <span className="choice-body">
        <span className="choice-title">
          {title} {badge ? <span className="pill pill-ok">{badge}</span> : null}
        </span>
        <span className="choice-text muted" id={`${id}-text`}>
          {text}
        </span>
      </span>
    </label>
  );
}

// ------------------------------------------------------------------------------ on this computer

function LocalSetup({
  hardware,
  onUseCloud,
  onSwitched,
  onReady,
  onContinue,
}: {
  hardware: Hardware | undefined;
  onUseCloud: () => void;
  onSwitched: (switched: PresetSwitch, model: string, note: string) => void;
  onReady: (model: string, note: string) => void;
  onContinue: () => void;
}) {
  const local = useLocalModels();
  const pull = usePull();
  const switcher = useSwitchPreset();
  const rec = hardware?.recommendation;
  const started = useRef(false);

  const apply = () => {
    if (!rec || switcher.isPending) return;
    switcher.mutate({ name: LOCAL_PRESET }, { onSuccess: (res) => onSwitched(res, rec.model, `${rec.name} is downloaded and every job uses it now.`) });
  };

  // The download finished: switch to Local only right away (once).
  const pulled = pull.state.phase === 'done' && rec !== undefined && withoutLatest(pull.state.name) === withoutLatest(rec.name);
  useEffect(() => {
    if (pulled && !started.current) {
      started.current = true;
      apply();
    }
  });

  if (local.isPending) return <Loading label="Looking for Ollama on this computer…" />;
  if (local.error) {
    return <ErrorNotice error={local.error} prefix="Couldn't look for Ollama." onRetry={() => void local.refetch()} />;
  }
  const data: LocalModels | undefined = local.data;
  if (!data) return null;

  // Models already there come first: no download needed.
  if (data.pick && !pulled && !switcher.isPending) {
    return <AlreadyHere local={data} pick={data.pick} rec={rec} onReady={onReady} onDownload={(name) => void pull.start(name)} />;
  }

  if (!data.ollama.reachable) {
    return (
      <InstallOllama
        os={systemOf(hardware)}
        checking={local.isFetching}
        onCheck={() => void local.refetch()}
        onContinue={onContinue}
      />
    );
  }

  if (!rec) return <Loading label="Checking what this computer can run…" />;
  if (rec.cloud_first) {
    return (
      <div className="model-panel" data-testid="local-cloud-first">
        <p>
          <span className="dot dot-ok" aria-hidden="true" /> Ollama is running.
        </p>
        <div className="notice notice-warn">
          <p>
            This computer has little memory for models that run on it ({hardware?.summary ?? 'unknown'}), so they would answer very slowly and
            couldn't use tools. A cloud key works much better here.
          </p>
        </div>
        <button type="button" className="btn btn-primary" onClick={onUseCloud}>
          Use a cloud key instead
        </button>
      </div>
    );
  }

  const installed = data.ollama.models.some((m) => withoutLatest(m.name) === withoutLatest(rec.name));
  const busy = pull.busy || switcher.isPending;
  return (
    <div className="model-panel" data-testid="local-setup">
      <p>
        <span className="dot dot-ok" aria-hidden="true" /> Ollama is running.
      </p>
      <p>
        {/* The model's name only: how much it reads at a time stays in Settings > Models > Advanced. */}
        <strong>Recommended for this computer:</strong> {rec.name}. {rec.note}
      </p>
      {installed ? (
        <>
          <p className="muted">{rec.name} is already downloaded.</p>
          <button type="button" className="btn btn-primary" onClick={apply} disabled={busy}>
            {switcher.isPending ? 'Setting it up…' : `Use ${rec.name}`}
          </button>
        </>
      ) : (
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => {
            started.current = false;
            void pull.start(rec.name);
          }}
          disabled={busy || pulled}
        >
          {pull.busy ? 'Downloading…' : switcher.isPending ? 'Setting it up…' : downloadLabel(rec.name)}
        </button>
      )}
      {pull.state.phase === 'pulling' || pull.state.phase === 'failed' ? <PullProgressView state={pull.state} /> : null}
      {pull.state.phase === 'done' ? (
        <p className="muted" role="status">
          {pull.state.name} is downloaded.
        </p>
      ) : null}
      {switcher.isPending ? <Loading label={`Switching every job to ${rec.name}…`} /> : null}
      <ErrorNotice error={switcher.error} prefix={`Couldn't switch to ${rec.name}.`} onRetry={apply} />
      <OtherComputer onSaved={() => void local.refetch()} />
    </div>
  );
}

/** Whether Ollama (or LM Studio) says the model can use tools. */
export function canUseTools(m: Pick<LocalModel, 'capabilities'>): boolean {
  return m.capabilities.includes('tools');
}

/** The roles one click sets: the main model, every other chat job on it, and the embedding model if there is one. */
export function oneClickRoles(primary: string, embedding: string | null): RoleChanges {
  const roles: RoleChanges = { primary, fast: null, planner: null, executor: null, vision: null, voice: null };
  if (embedding) roles.embedding = embedding;
  return roles;
}

/** The models Ollama (or LM Studio) already has, the pick preselected, one button for every job. */
function AlreadyHere({
  local,
  pick,
  rec,
  onReady,
  onDownload,
}: {
  local: LocalModels;
  pick: LocalPick;
  rec: Hardware['recommendation'] | undefined;
  onReady: (model: string, note: string) => void;
  onDownload: (name: string) => void;
}) {
  const setRoles = useSetRoles();
  const pull = usePull();
  const lmStudio = pick.primary.startsWith('lm_studio/');
  const prefix = lmStudio ? 'lm_studio/' : 'ollama_chat/';
  const server = lmStudio ? 'LM Studio' : 'Ollama';
  const models = (lmStudio ? local.lm_studio.models : local.ollama.models).filter((m) => !m.is_embedding);
  const [chosen, setChosen] = useState(pick.primary);
  const name = withoutLatest(chosen.slice(prefix.length));
  const model = models.find((m) => `${prefix}${m.name}` === chosen);
  const embedding = pick.embedding ? withoutLatest(pick.embedding.slice(pick.embedding.indexOf('/') + 1)) : null;
  const groupId = useId();
  const recInstalled = rec ? local.ollama.models.some((m) => withoutLatest(m.name) === withoutLatest(rec.name)) : true;

  const use = () => {
    if (setRoles.isPending) return;
    setRoles.mutate(oneClickRoles(chosen, pick.embedding), {
      onSuccess: () =>
        onReady(chosen, `${name} is set up for every job${embedding ? `, and ${embedding} for memory search` : ''}. Nothing was downloaded.`),
    });
  };

  return (
    <div className="model-panel" data-testid="local-models">
      <p>
        <span className="dot dot-ok" aria-hidden="true" /> {server} is running and already has {models.length === 1 ? 'a model' : 'these models'}.
      </p>
      <fieldset className="installed-pick" disabled={setRoles.isPending}>
        <legend className="field-label" id={groupId}>
          Already on this computer
        </legend>
        {models.map((m) => (
          <label key={m.name} className={chosen === `${prefix}${m.name}` ? 'choice choice-picked' : 'choice'}>
            <input
              type="radio"
              name="installed-model"
              value={`${prefix}${m.name}`}
              checked={chosen === `${prefix}${m.name}`}
              onChange={() => setChosen(`${prefix}${m.name}`)}
            />
            <span className="choice-body">
              <span className="choice-title">
                {withoutLatest(m.name)}{' '}
                {canUseTools(m) ? <span className="pill pill-ok">Can use tools</span> : null}
              </span>
              <span className="choice-text muted">
                {[m.parameter_size, canUseTools(m) ? null : "Chats, but can't use tools"].filter(Boolean).join(' · ') || 'Ready to use'}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      {embedding ? <p className="muted">Memory search will use {embedding}, which is downloaded too.</p> : null}
      {model && !canUseTools(model) ? (
        <div className="notice notice-warn" role="status">
          <p>{name} can chat but can't use tools, so it can't search, read mail or run tasks for you. A model marked "Can use tools" can.</p>
        </div>
      ) : null}
      <button type="button" className="btn btn-primary" onClick={use} disabled={setRoles.isPending}>
        {setRoles.isPending ? 'Setting it up…' : `Use ${name} for everything`}
      </button>
      <ErrorNotice error={setRoles.error} prefix={`Couldn't set up ${name}.`} onRetry={use} />
      {rec && !rec.cloud_first && !recInstalled && local.ollama.reachable ? (
        <div className="download-instead">
          <p className="muted">Or download the model recommended for this computer: {rec.name}.</p>
          <button type="button" className="btn btn-quiet" onClick={() => onDownload(rec.name)} disabled={pull.busy}>
            {pull.busy ? 'Downloading…' : downloadLabel(rec.name)}
          </button>
          {pull.state.phase === 'pulling' || pull.state.phase === 'failed' ? <PullProgressView state={pull.state} /> : null}
        </div>
      ) : null}
    </div>
  );
}

function InstallOllama({ os, checking, onCheck, onContinue }: { os: Os; checking: boolean; onCheck: () => void; onContinue: () => void }) {
  const how = INSTALL[os];
  const local = useLocalModels();
  return (
    <div className="model-panel" data-testid="install-ollama">
      <div className="notice notice-warn" role="status">
        <p>
          <strong>Ollama isn't running on this computer.</strong> Ollama is a free program that runs AI models on your own computer.
        </p>
      </div>
      <p>To install it on {how.name}:</p>
      <ol className="install-steps">
        {how.steps.map((s) => (
          <li key={s}>{s}</li>
        ))}
        <li>Then come back here and press Check again.</li>
      </ol>
      <div className="role-buttons">
        <a className="btn btn-quiet" href="https://ollama.com/download" target="_blank" rel="noreferrer noopener">
          Get Ollama from ollama.com
        </a>
        <button type="button" className="btn btn-primary" onClick={onCheck} disabled={checking} aria-busy={checking}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
      <OtherComputer onSaved={() => void local.refetch()} />
      <div className="continue-later">
        <p className="muted">Not now? Sentient opens without a model, and Chat shows a reminder with a button until one answers.</p>
        <button type="button" className="btn btn-quiet" onClick={onContinue}>
          Continue
        </button>
      </div>
    </div>
  );
}

// ------------------------------------------------------------------------------ cloud key

type KeyCheck = { ok: true; model: string } | { ok: false; error: string };

function CloudSetup({ onReady }: { onReady: (switched: PresetSwitch, model: string, note: string) => void }) {
  const providers = useModelProviders();
  const save = useSetSecret();
  const test = useTestModel();
  const switcher = useSwitchPreset();
  const [providerId, setProviderId] = useState<string>('');
  const [key, setKey] = useState('');
  const [checked, setChecked] = useState<KeyCheck | null>(null);
  const [missingKey, setMissingKey] = useState(false);
  const providerField = useId();
  const keyField = useId();

  const offered: ProviderView[] = CLOUD_PROVIDERS.map((id) => (providers.data ?? []).find((p) => p.id === id && !p.sign_in)).filter(
    (p): p is ProviderView => p !== undefined,
  );
  const provider = offered.find((p) => p.id === providerId) ?? offered[0];
  const busy = save.isPending || test.isPending || switcher.isPending;

  if (providers.isPending) return <Loading label="Loading the providers…" />;
  if (providers.error) {
    return <ErrorNotice error={providers.error} prefix="Couldn't load the providers." onRetry={() => void providers.refetch()} />;
  }
  if (!provider) return <p className="muted">No cloud providers are available. Set one up later in Settings &gt; Models.</p>;
  const model = provider.suggested[0] ?? '';

  const check = async () => {
    const value = key.trim();
    if (!value) {
      setMissingKey(true);
      return;
    }
    if (busy) return;
    setMissingKey(false);
    setChecked(null);
    try {
      await save.mutateAsync({ name: provider.id, value });
    } catch {
      return; // shown below
    }
    setKey('');
    let outcome: KeyCheck;
    try {
      const tested = await test.mutateAsync({ model, role: 'primary' });
      const result = tested.result as { ok: boolean; error?: string | null };
      outcome = result.ok ? { ok: true, model } : { ok: false, error: result.error ?? 'It did not answer.' };
    } catch (e) {
      outcome = { ok: false, error: (e as { detail?: string }).detail ?? String(e) };
    }
    setChecked(outcome);
    if (outcome.ok) {
      switcher.mutate({ name: CLOUD_PRESET }, { onSuccess: (res) => onReady(res, model, `Your ${provider.label} key works. ${res.preset?.description ?? ''}`.trim()) });
    }
  };

  return (
    <div className="model-panel" data-testid="cloud-setup">
      <div className="field">
        <label className="field-label" htmlFor={providerField}>
          Provider
        </label>
        <select
          id={providerField}
          value={provider.id}
          onChange={(e) => {
            setProviderId(e.target.value);
            setChecked(null);
            save.reset();
          }}
          disabled={busy}
        >
          {offered.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
        <span className="field-help">Other providers can be added later in Settings &gt; Models.</span>
      </div>
      <div className="field">
        <label className="field-label" htmlFor={keyField}>
          {provider.label} key
        </label>
        <input
          id={keyField}
          type="password"
          value={key}
          autoComplete="off"
          spellCheck={false}
          placeholder={provider.key_set ? 'A key is saved; paste another to replace it' : 'Paste the key'}
          aria-describedby={`${keyField}-help`}
          aria-invalid={missingKey || (checked !== null && !checked.ok)}
          onChange={(e) => {
            setKey(e.target.value);
            setMissingKey(false);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void check();
          }}
          disabled={busy}
        />
        <span className="field-help" id={`${keyField}-help`}>
          Kept safe on this computer and never shown again.
          {provider.docs_url ? (
            <>
              {' '}
              Get a key at{' '}
              <a href={provider.docs_url} target="_blank" rel="noreferrer noopener">
                {provider.docs_url.replace(/^https?:\/\//, '').replace(/\/$/, '')}
              </a>
              .
            </>
          ) : null}
        </span>
      </div>
      <div>
        <button type="button" className="btn btn-primary" onClick={() => void check()} disabled={busy}>
          {save.isPending ? 'Saving…' : test.isPending ? 'Checking…' : switcher.isPending ? 'Setting it up…' : 'Check'}
        </button>
      </div>
      {missingKey ? (
        <div className="notice notice-error" role="alert">
          <p>Paste your {provider.label} key first.</p>
        </div>
      ) : null}
      {test.isPending ? <Loading label={`Asking ${withoutLatest(model.split('/').slice(1).join('/'))} for a short answer…`} /> : null}
      <KeyStoreChoice error={save.error} onReady={() => void check()}>
        <ErrorNotice error={save.error} prefix="Couldn't save the key." />
      </KeyStoreChoice>
      {checked?.ok ? (
        <p className="model-summary" role="status" data-testid="key-result">
          Your {provider.label} key works.
        </p>
      ) : null}
      {checked && !checked.ok ? (
        <div className="notice notice-error" role="alert" data-testid="key-result">
          <p>That key didn't work. {checked.error}</p>
        </div>
      ) : null}
      <ErrorNotice error={switcher.error} prefix="The key works, but Sentient couldn't switch to it." />
    </div>
  );
}

function MissingList({ missing }: { missing: Missing[] }) {
  if (missing.length === 0) return null;
  return (
    <div className="missing">
      <p>Also worth doing:</p>
      <ul className="missing-list">
      {missing.map((m) => (
        <li key={`${m.kind}-${m.model}`}>
          <p className="muted">
            {m.detail} {m.fix}
          </p>
          <FixButton action={m.action} />
        </li>
      ))}
      </ul>
    </div>
  );
}

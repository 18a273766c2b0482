// Models on this computer: whether Ollama is running, what it has downloaded, the model that fits
// this computer, and downloading a model with its progress.
import { useId, useState } from 'react';
import type { Hardware, LocalModels } from '../../../api';
import { type PullState } from '../../../api/shared';
import { useHardware, useLocalModels, useModelBusy } from './queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { LocalAddressField } from './LocalAddress';
import { usePull, type Pull } from './pull';
import { withoutLatest } from './roles';
import './models.css';

const JOB_WORDS: Record<string, string> = {
  chat: 'a chat reply',
  interactive: 'something you asked for',
  task: 'a task',
  suggestions: 'suggestions',
  memory: 'memory notes',
  skills: 'skills',
  titles: 'titles',
  background: 'background work',
};

/** "Local model: busy with a task" or "Local model: idle", live from the model.busy event. */
export function BusyLine() {
  const busy = useModelBusy();
  if (!busy.data) return null;
  const b = busy.data;
  let text = 'idle';
  if (b.busy) text = `busy with ${(b.job && JOB_WORDS[b.job]) || 'something'}`;
  const extra: string[] = [];
  if (b.waiting > 0) extra.push(`${b.waiting} more waiting`);
  if (b.deferred > 0) {
    const why = b.deferred_reason === 'battery' ? ' while on battery' : b.deferred_reason === 'chat' ? ' until the chat is done' : '';
    extra.push(`${b.deferred} background job${b.deferred === 1 ? '' : 's'} held back${why}`);
  }
  return (
    <p className="busy-line" data-testid="model-busy" role="status">
      <span className={b.busy ? 'dot dot-busy' : 'dot'} aria-hidden="true" />
      Local model: {text}
      {extra.length > 0 ? <span className="muted"> ({extra.join(', ')})</span> : null}
    </p>
  );
}

function gigabytes(bytes: number | null): string {
  if (!bytes) return '';
  return `${(bytes / 1e9).toLocaleString(undefined, { maximumFractionDigits: 1 })} GB`;
}

export function OllamaCard() {
  // Progress shows here whichever button started the download.
  const local = useLocalModels();
  const hardware = useHardware();
  const pull = usePull();
  const reachable = local.data?.ollama.reachable ?? false;

  return (
    <div className="card settings-section" data-testid="ollama-card">
      <h2>Models on this computer</h2>
      <BusyLine />
      {local.isPending ? <Loading label="Checking Ollama…" /> : null}
      <ErrorNotice error={local.error} prefix="Couldn't check Ollama." onRetry={() => void local.refetch()} />
      {local.data ? <OllamaState local={local.data} onCheck={() => void local.refetch()} checking={local.isFetching} /> : null}

      {hardware.data ? (
        <Recommended hardware={hardware.data} local={local.data} canDownload={reachable} pull={pull} />
      ) : null}
      {hardware.isPending ? <Loading label="Checking what this computer can run…" /> : null}
      <ErrorNotice error={hardware.error} prefix="Couldn't check this computer." onRetry={() => void hardware.refetch()} />

      {local.data ? <DownloadField disabled={!reachable} pull={pull} /> : null}
      <PullProgressView state={pull.state} />

      <h3>Where they run</h3>
      <p className="muted">Change these when Ollama or LM Studio runs on another computer or port. Sentient checks the address before saving it.</p>
      <LocalAddressField server="ollama" />
      <LocalAddressField server="lm_studio" />
    </div>
  );
}

function OllamaState({ local, onCheck, checking }: { local: LocalModels; onCheck: () => void; checking: boolean }) {
  if (!local.ollama.reachable) {
    return (
      <div className="notice notice-warn" data-testid="ollama-status">
        <p>
          Ollama isn't running. Start Ollama, or install it from{' '}
          <a href="https://ollama.com/download" target="_blank" rel="noreferrer noopener">
            ollama.com
          </a>{' '}
          to run models on this computer.
        </p>
        <button type="button" className="btn btn-quiet" onClick={onCheck} disabled={checking}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
    );
  }
  const models = local.ollama.models;
  return (
    <div data-testid="ollama-status">
      <p>
        <span className="dot dot-ok" aria-hidden="true" /> Ollama is running.
      </p>
      {models.length === 0 ? (
        <p className="muted">Nothing is downloaded yet. Download a model below, for example the one recommended for this computer.</p>
      ) : (
        <ul className="installed-list" aria-label="Downloaded models">
          {models.map((m) => (
            <li key={m.name}>
              <span className="installed-name">{withoutLatest(m.name)}</span>
              <span className="muted">
                {[m.parameter_size, gigabytes(m.size), m.is_embedding ? 'for memory search' : null].filter(Boolean).join(' · ')}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Recommended({
  hardware,
  local,
  canDownload,
  pull,
}: {
  hardware: Hardware;
  local: LocalModels | undefined;
  canDownload: boolean;
  pull: Pull;
}) {
  const rec = hardware.recommendation;
  const installed = (local?.ollama.models ?? []).some((m) => withoutLatest(m.name) === withoutLatest(rec.name));
  return (
    <div className="recommended" data-testid="recommended">
      <p>
        <strong>Recommended for this computer:</strong> {rec.summary}
      </p>
      {rec.cloud_first ? (
        <p className="muted">This computer is small for local models, so a cloud model will work better. {rec.note}</p>
      ) : rec.note ? (
        <p className="muted">{rec.note}</p>
      ) : null}
      {hardware.summary && hardware.summary !== 'unknown' ? <p className="field-help">This computer: {hardware.summary}.</p> : null}
      {installed ? (
        <p className="muted">{rec.name} is downloaded.</p>
      ) : canDownload && !rec.cloud_first ? (
        <button type="button" className="btn btn-primary" onClick={() => void pull.start(rec.name)} disabled={pull.busy}>
          Download {rec.name}
        </button>
      ) : null}
    </div>
  );
}

function DownloadField({ disabled, pull }: { disabled: boolean; pull: Pull }) {
  const [name, setName] = useState('');
  const id = useId();
  const start = () => {
    if (!name.trim() || disabled || pull.busy) return;
    void pull.start(name);
  };
  return (
    <div className="download">
      <div className="field download-field">
        <label className="field-label" htmlFor={id}>
          Download a model
        </label>
        <input
          id={id}
          type="text"
          value={name}
          placeholder="for example qwen3:8b"
          autoComplete="off"
          spellCheck={false}
          disabled={disabled}
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') start();
          }}
        />
        <span className="field-help">
          {disabled ? 'Start Ollama first.' : 'Any name from ollama.com/library.'}
        </span>
      </div>
      <button type="button" className="btn btn-primary" onClick={start} disabled={disabled || pull.busy || !name.trim()}>
        {pull.busy ? 'Downloading…' : 'Download'}
      </button>
    </div>
  );
}

export function PullProgressView({ state }: { state: PullState }) {
  if (state.phase === 'idle') return null;
  if (state.phase === 'failed') {
    return (
      <div className="notice notice-error" role="alert" data-testid="pull-error">
        <p>
          Couldn't download {state.name}. {state.error}
        </p>
      </div>
    );
  }
  if (state.phase === 'done') {
    return (
      <p role="status" data-testid="pull-done">
        {state.name} is downloaded. It's ready to use.
      </p>
    );
  }
  return (
    <div className="pull-progress" data-testid="pull-progress">
      <p>
        Downloading {state.name}: <span data-testid="pull-status">{state.status}</span>
        {state.percent !== null ? ` (${state.percent}%)` : ''}
      </p>
      <progress
        max={100}
        value={state.percent ?? undefined}
        aria-label={`Downloading ${state.name}`}
        aria-valuetext={state.percent !== null ? `${state.percent}%` : state.status}
      />
    </div>
  );
}

// The buttons a model error's sentence points at: the engine's sentences name where the fix is
// ("…in Settings > Models", "…or run: ollama pull qwen3:8b", "install it from ollama.com",
// "…try again"), so each becomes the button that does it: open that page, download the model
// with a progress bar, get Ollama, or try again.
import { usePullModel } from '../api/shared';

export type ErrorAction =
  | { kind: 'open'; label: string; href: string }
  | { kind: 'link'; label: string; href: string }
  | { kind: 'pull'; label: string; model: string }
  | { kind: 'retry'; label: string };

const PAGES: Array<[RegExp, string, string]> = [
  [/Settings > Models/, 'Open Settings > Models', '#/settings/models'],
  [/Settings > General/, 'Open Settings > General', '#/settings'],
  [/Settings > Devices/, 'Open Settings > Devices', '#/settings/devices'],
  [/\bApps > |\bIntegrations\b/, 'Open Integrations', '#/integrations'],
];

/** The actions a sentence offers, in the order a person would try them. */
export function actionsFor(sentence: string, canRetry: boolean): ErrorAction[] {
  const actions: ErrorAction[] = [];
  const pull = /ollama pull (\S+?)\.?$/.exec(sentence.trim());
  if (pull) actions.push({ kind: 'pull', label: `Download ${pull[1]}`, model: pull[1] });
  if (/ollama\.com/.test(sentence)) actions.push({ kind: 'link', label: 'Get Ollama', href: 'https://ollama.com/download' });
  // Once the model is downloaded, the same message can go again.
  if (canRetry && (/try again/i.test(sentence) || pull)) actions.push({ kind: 'retry', label: 'Try again' });
  for (const [pattern, label, href] of PAGES) {
    if (pattern.test(sentence)) actions.push({ kind: 'open', label, href });
  }
  return actions;
}

export function ErrorActions({ sentence, onRetry }: { sentence: string; onRetry?: () => void }) {
  const pull = usePullModel();
  const actions = actionsFor(sentence, onRetry !== undefined);
  if (actions.length === 0) return null;
  const state = pull.state;
  return (
    <div className="error-actions">
      {actions.map((action) => {
        switch (action.kind) {
          case 'open':
            return (
              <a key={action.label} className="btn btn-quiet" href={action.href}>
                {action.label}
              </a>
            );
          case 'link':
            return (
              <a key={action.label} className="btn btn-quiet" href={action.href} target="_blank" rel="noreferrer">
                {action.label}
              </a>
            );
          case 'retry':
            return (
              <button key={action.label} type="button" className="btn btn-primary" onClick={onRetry}>
                {action.label}
              </button>
            );
          case 'pull':
            return (
              <button
                key={action.label}
                type="button"
                className="btn btn-primary"
                disabled={pull.busy || state.phase === 'done'}
                onClick={() => void pull.start(action.model)}
              >
                {pull.busy ? 'Downloading…' : state.phase === 'done' ? 'Downloaded' : action.label}
              </button>
            );
        }
      })}
      {state.phase === 'pulling' ? (
        <div className="error-actions-progress" role="status" aria-live="polite">
          <progress max={100} value={state.percent ?? undefined} aria-label={`Downloading ${state.name}`} />
          <span className="muted">
            {state.status}
            {state.percent !== null ? ` · ${state.percent}%` : ''}
          </span>
        </div>
      ) : null}
      {state.phase === 'done' ? (
        <p className="muted" role="status">
          {state.name} is downloaded.{onRetry ? ' Try again to use it.' : ''}
        </p>
      ) : null}
      {state.phase === 'failed' ? (
        <p className="chat-error" role="alert">
          {state.error}
        </p>
      ) : null}
    </div>
  );
}

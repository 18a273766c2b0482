// The expert settings of Settings > Models, shown under "Advanced": backup models for each job,
// how hard each job thinks, how much text a local model reads at once, and the local model's
// queue. Each card starts with one plain sentence on what it changes. Numbers and switches come
// from the settings' schema through the generic form (../form/), so their ranges are the engine's.
import { useEffect, useId, useState } from 'react';
import type { RoleName } from '../../../api';
import { toApiError } from '../../../api/errors';
import { useConfig, usePatchConfig } from '../../../api/shared';
import { ErrorNotice, Loading } from '../../../components/Page';
import { SchemaField, SchemaForm, useSchemaFields } from '../form/SchemaForm';
import { ROLES, looksLikeModel } from './roles';

type ModelsSection = {
  fallbacks?: Record<string, string[]>;
  reasoning?: Record<string, string>;
  context_length_per_role?: Record<string, number>;
};

function modelsOf(config: unknown): ModelsSection {
  return ((config as { models?: ModelsSection } | undefined)?.models ?? {}) as ModelsSection;
}

/** Jobs that answer in words (memory search turns text into numbers, so it has no backups or reasoning). */
const TALKING_ROLES = ROLES.filter((r) => r.role !== 'embedding');

/** Backup models: tried in order when a job's own model fails. */
export function FallbacksCard() {
  const config = useConfig();
  return (
    <section className="card settings-section" aria-labelledby="fallbacks-heading" data-testid="fallbacks-card">
      <h2 id="fallbacks-heading">Backup models</h2>
      <p className="muted">When a job's model doesn't answer, Sentient tries these instead, in order.</p>
      {config.isPending ? <Loading label="Loading settings…" /> : null}
      <ErrorNotice error={config.error ? toApiError(config.error) : null} prefix="Couldn't load the settings." onRetry={() => void config.refetch()} />
      {config.data ? (
        <div className="advanced-rows">
          {TALKING_ROLES.map((r) => (
            <FallbackRow key={r.role} role={r.role} title={r.title} saved={modelsOf(config.data).fallbacks?.[r.role] ?? []} />
          ))}
        </div>
      ) : null}
    </section>
  );
}

function FallbackRow({ role, title, saved }: { role: RoleName; title: string; saved: string[] }) {
  const patch = usePatchConfig();
  const id = useId();
  const savedText = saved.join(', ');
  const [text, setText] = useState(savedText);
  useEffect(() => setText(savedText), [savedText]);
  const list = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((m) => !looksLikeModel(m));
  const changed = list.join(', ') !== savedText;
  const save = () => {
    if (bad || !changed) return;
    patch.mutate({ models: { fallbacks: { [role]: list.length > 0 ? list : null } } });
  };
  return (
    <div className="advanced-row" data-testid={`fallbacks-${role}`}>
      <div className="field download-field">
        <label className="field-label" htmlFor={id}>
          Backups for {title}
        </label>
        <input
          id={id}
          type="text"
          value={text}
          placeholder="None"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={bad ? true : undefined}
          onChange={(e) => {
            setText(e.target.value);
            patch.reset();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') save();
          }}
        />
      </div>
      <button type="button" className="btn btn-quiet" onClick={save} disabled={!changed || Boolean(bad) || patch.isPending}>
        {patch.isPending ? 'Saving…' : 'Save'}
      </button>
      {bad ? (
        <p className="field-problem" role="alert">
          Write each model as provider/model, separated by commas ("{bad}" isn't one).
        </p>
      ) : null}
      {patch.isSuccess && !changed ? (
        <span className="muted" role="status">
          Saved.
        </span>
      ) : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save that." />
    </div>
  );
}

const EFFORTS: Array<{ value: string; label: string }> = [
  { value: '', label: "The model's own default" },
  { value: 'none', label: 'No extra thinking (fastest)' },
  { value: 'low', label: 'A little' },
  { value: 'medium', label: 'Some' },
  { value: 'high', label: 'A lot (slowest)' },
];

/** How hard each job thinks before answering. */
export function ReasoningCard() {
  const config = useConfig();
  return (
    <section className="card settings-section" aria-labelledby="reasoning-heading" data-testid="reasoning-card">
      <h2 id="reasoning-heading">How hard each job thinks</h2>
      <p className="muted">Models that can think before answering do better on hard questions, but answer more slowly.</p>
      {config.isPending ? <Loading label="Loading settings…" /> : null}
      <ErrorNotice error={config.error ? toApiError(config.error) : null} prefix="Couldn't load the settings." onRetry={() => void config.refetch()} />
      {config.data ? (
        <div className="advanced-rows">
          {TALKING_ROLES.map((r) => (
            <ReasoningRow key={r.role} role={r.role} title={r.title} saved={modelsOf(config.data).reasoning?.[r.role] ?? ''} />
          ))}
        </div>
      ) : null}
    </section>
  );
}

function ReasoningRow({ role, title, saved }: { role: RoleName; title: string; saved: string }) {
  const patch = usePatchConfig();
  const id = useId();
  return (
    <div className="advanced-row" data-testid={`reasoning-${role}`}>
      <div className="field download-field">
        <label className="field-label" htmlFor={id}>
          {title}
        </label>
        <select
          id={id}
          className="select"
          value={saved}
          disabled={patch.isPending}
          onChange={(e) => patch.mutate({ models: { reasoning: { [role]: e.target.value === '' ? null : e.target.value } } })}
        >
          {EFFORTS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      {patch.isPending ? (
        <span className="muted" role="status">
          Saving…
        </span>
      ) : patch.isSuccess ? (
        <span className="muted" role="status">
          Saved.
        </span>
      ) : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save that." />
    </div>
  );
}

/**
 * How much text a local model reads at once (the context length), and a different length for
 * particular jobs. The per-job boxes take the range the schema gives the main setting (the
 * engine checks per-job lengths against the same limits); an empty box removes that job's length.
 */
export function ReadingLengthCard() {
  const config = useConfig();
  const { models } = useSchemaFields(['models'], [{ key: 'context_length', unit: 'tokens', step: 1024 }]);
  const base = models[0];
  const perRole = modelsOf(config.data).context_length_per_role ?? {};
  return (
    <section className="card settings-section" aria-labelledby="reading-heading" data-testid="context-card">
      <h2 id="reading-heading">How much a local model reads at once</h2>
      <p className="muted">
        Longer lets a model on this computer see more of a chat or document, but needs more graphics memory. Cloud models ignore it.
      </p>
      <SchemaForm section={['models']} fields={[{ key: 'context_length', title: 'Reading length for local models (context length)', unit: 'tokens', step: 1024 }]} />
      {base && config.data ? (
        <details className="per-role">
          <summary>A different length for one job</summary>
          <div className="schema-fields">
            {TALKING_ROLES.map((r) => (
              <SchemaField
                key={r.role}
                field={{
                  ...base,
                  path: ['models', 'context_length_per_role', r.role],
                  key: r.role,
                  title: `Reading length for ${r.title}`,
                  description: 'Leave it empty to use the length above.',
                  nullable: true,
                  defaultValue: null,
                }}
                value={perRole[r.role] ?? null}
              />
            ))}
          </div>
        </details>
      ) : null}
    </section>
  );
}

/** The local model's queue: one job at a time, chat first, background work held back. */
export function QueueCard() {
  return (
    <section className="card settings-section" aria-labelledby="queue-heading" data-testid="queue-card">
      <h2 id="queue-heading">Taking turns on this computer</h2>
      <p className="muted">
        A model on this computer does one job at a time, so your chats go first and background work waits. What it is doing now shows
        under Models on this computer.
      </p>
      <SchemaForm section={['models']} fields={['local_queue', 'background_quiet_s', 'background_on_battery']} />
    </section>
  );
}

/** Limits on one reply: tool rounds and how long to wait for a model. */
export function ReplyLimitsCard() {
  return (
    <SchemaForm
      section={['models']}
      fields={[
        { key: 'max_tool_rounds', title: 'Most steps in one reply' },
        { key: 'request_timeout_s', title: 'Seconds to wait for a model' },
      ]}
      title="Limits for one reply"
      intro="How far one reply may go before the assistant has to answer, and how long Sentient waits for a model."
      testId="reply-limits-card"
    />
  );
}

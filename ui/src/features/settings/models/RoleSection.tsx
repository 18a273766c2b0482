// One role in Settings > Models: which model it uses, a picker to change it, Save and Test.
import { useId, useState } from 'react';
import type { LocalModels, ProviderView, Roles } from '../../../api';
import { useSetRoles, useTestModel, type ModelTest } from './queries';
import { ErrorNotice } from '../../../components/Page';
import { looksLikeModel, optionGroups, roleTitle, sameModel, withoutLatest, type RoleInfo } from './roles';

/** The picker's two special choices (real choices are model strings, which always have a slash). */
const USE_MAIN = '';
const TYPE_IT = '__type__';

export function RoleSection({
  info,
  roles,
  providers,
  local,
}: {
  info: RoleInfo;
  roles: Roles;
  providers: ProviderView[];
  local: LocalModels | undefined;
}) {
  const { role, title, description, optional } = info;
  const saved = roles[role] ?? null;
  const groups = optionGroups(role, providers, local);
  const known = groups.flatMap((g) => g.options);
  const savedOption = saved ? known.find((o) => sameModel(o.value, saved)) : undefined;
  const savedChoice = saved === null ? USE_MAIN : (savedOption?.value ?? saved);

  // null = follow what is saved (so a change made elsewhere shows up); else the person's pick.
  const [draft, setDraft] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const choice = draft ?? savedChoice;
  const value = choice === TYPE_IT ? typed.trim() : choice;
  const changed = choice === TYPE_IT ? value !== '' && !sameModel(value, saved) : value !== savedChoice;
  const typedBadly = choice === TYPE_IT && value !== '' && !looksLikeModel(value);

  const save = useSetRoles();
  const test = useTestModel();
  const headingId = useId();
  const selectId = useId();
  const typedId = useId();

  const onSave = () => {
    if (!changed || typedBadly) return;
    save.mutate(
      { [role]: value === USE_MAIN ? null : value },
      {
        onSuccess: () => {
          setDraft(null);
          setTyped('');
        },
      },
    );
  };

  // Test what is picked; "use the main model" tests the main model in this role.
  const testModel = value === USE_MAIN ? roles.primary : value;
  const onTest = () => {
    if (!testModel || typedBadly) return;
    test.mutate({ model: testModel, role });
  };

  return (
    <section className="role" aria-labelledby={headingId} data-testid={`role-${role}`}>
      <div className="role-head">
        <h3 id={headingId}>{title}</h3>
        <p className="muted">{description}</p>
      </div>
      <p className="role-now">
        {saved ? (
          <>
            Uses <code>{saved}</code>
          </>
        ) : (
          <>
            Uses the main model{roles.primary ? <> (<code>{roles.primary}</code>)</> : null}
          </>
        )}
      </p>

      <div className="role-controls">
        <div className="field role-field">
          <label className="field-label" htmlFor={selectId}>
            Model
          </label>
          <select
            id={selectId}
            className="select"
            value={choice}
            onChange={(e) => {
              setDraft(e.target.value);
              save.reset();
              test.reset();
            }}
            disabled={save.isPending}
          >
            {optional ? <option value={USE_MAIN}>Use the main model</option> : null}
            {saved && !savedOption ? (
              <optgroup label="In use now">
                <option value={saved}>{saved}</option>
              </optgroup>
            ) : null}
            {groups.map((g) => (
              <optgroup key={g.label} label={g.label}>
                {g.options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </optgroup>
            ))}
            <option value={TYPE_IT}>Type a model name…</option>
          </select>
        </div>
        {choice === TYPE_IT ? (
          <div className="field role-field">
            <label className="field-label" htmlFor={typedId}>
              Model name
            </label>
            <input
              id={typedId}
              type="text"
              value={typed}
              placeholder="provider/model, for example ollama_chat/qwen3:8b"
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => {
                setTyped(e.target.value);
                save.reset();
                test.reset();
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter') onSave();
              }}
            />
          </div>
        ) : null}
        <div className="role-buttons">
          <button type="button" className="btn btn-primary" onClick={onSave} disabled={!changed || typedBadly || save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
          <button type="button" className="btn btn-quiet" onClick={onTest} disabled={!testModel || typedBadly || test.isPending}>
            {test.isPending ? 'Testing…' : 'Test'}
          </button>
        </div>
      </div>

      {typedBadly ? (
        <p className="field-help">Write it as provider/model, for example ollama_chat/qwen3:8b or anthropic/claude-sonnet-5.</p>
      ) : null}
      {save.isSuccess && draft === null ? (
        <p className="muted" role="status">
          Saved.
          {(save.data.followed ?? []).map((f) => (
            <span key={f.role} data-testid="role-followed">
              {' '}
              {roleTitle(f.role)} used {f.from ? withoutLatest(f.from.slice(f.from.indexOf('/') + 1)) : 'the main model'}, which isn't downloaded, so it
              now uses {f.to ? withoutLatest(f.to.slice(f.to.indexOf('/') + 1)) : 'the main model'}.
            </span>
          ))}
        </p>
      ) : null}
      <ErrorNotice error={save.error} prefix="Couldn't save that." />
      {test.isPending ? (
        <p className="muted" role="status">
          Trying {testModel}… A local model may take a minute to load.
        </p>
      ) : null}
      <ErrorNotice error={test.error} prefix="Couldn't test it." />
      {test.data ? <TestOutcome test={test.data} model={test.variables?.model ?? testModel} /> : null}
    </section>
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toLocaleString(undefined, { maximumFractionDigits: 1 })} s`;
}

/** What a test found, in plain words. */
function TestOutcome({ test, model }: { test: ModelTest; model: string }) {
  if (test.kind === 'embedding') {
    const r = test.result;
    if (!r.ok) {
      return (
        <div className="notice notice-error" role="alert">
          <p>{r.error || `${model} didn't work for memory search.`}</p>
        </div>
      );
    }
    return (
      <div className="test-result" data-testid="test-result">
        <p>
          <strong>It works.</strong> {model} can be used for memory search
          {r.dim ? ` (it turns each text into ${r.dim.toLocaleString()} numbers)` : ''}.
        </p>
      </div>
    );
  }
  const r = test.result;
  if (!r.ok) {
    return (
      <div className="notice notice-error" role="alert">
        <p>{r.error || `${model} didn't answer.`}</p>
      </div>
    );
  }
  return (
    <div className="test-result" data-testid="test-result">
      <p>
        <strong>It works.</strong> Answered in {seconds(r.latency_ms)}.{' '}
        {r.supports_tools === true ? (
          <span className="tools-yes">Can use tools.</span>
        ) : r.supports_tools === false ? (
          <span className="tools-no">Can't use tools, so it can chat but can't do things for you.</span>
        ) : null}
      </p>
      {r.reply ? (
        <blockquote className="test-reply">
          <span className="muted">Its reply: </span>
          {r.reply}
        </blockquote>
      ) : null}
    </div>
  );
}

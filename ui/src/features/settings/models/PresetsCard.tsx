// Setups (model presets): switch every job's model in one step, and undo the last switch. The
// top of Settings > Models shows the three built-in setups as cards (`PresetsCard`): each says
// what it needs before its models can answer (a download, a key, Ollama running) and offers that
// fix, never a dead switch. Under Advanced, `OwnPresetsCard` lists the person's own setups and
// saves the current one under a name. After a switch either lists what changed and what the new
// models still need, with a fix where there is one. A setup whose models can't answer yet (not
// downloaded, no key) is never switched to on one click: the card first asks, naming what would
// change and what is missing.
import { useId, useState } from 'react';
import type { Preset, PresetSwitch, Roles } from '../../../api';
import { ROLE_NAMES } from '../../../api';
import { useDeletePreset, useLocalModels, useModelPresets, useModelProviders, useRoles, useSavePreset, useSwitchPreset } from './queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { FixButton } from './FixButton';
import { OtherComputer } from './LocalAddress';
import { revealKeyField } from './keys';
import { PullProgressView } from './OllamaCard';
import { usePull } from './pull';
import { roleTitle } from './roles';
import { BUILTIN_SETUPS, modelName, needOf, presetNeeds, setupWords, type Need } from './summary';

/** The three built-in setups as cards, with their fixes, undo and what the last switch did. */
export function PresetsCard() {
  const presets = useModelPresets();
  const switcher = useSwitchPreset();
  const pull = usePull();
  const list = presets.data;
  const builtins = (list?.presets ?? []).filter((p) => p.builtin || (BUILTIN_SETUPS as readonly string[]).includes(p.name));

  return (
    <section className="card settings-section" aria-labelledby="setups-heading" data-testid="presets-card">
      <h2 id="setups-heading">Setups</h2>
      <p className="muted">Pick where Sentient's models run. You can switch at any time and undo the last switch.</p>
      {presets.isPending ? <Loading label="Loading setups…" /> : null}
      <ErrorNotice error={presets.error} prefix="Couldn't load the setups." onRetry={() => void presets.refetch()} />
      {list ? (
        <>
          {list.active && list.modified ? (
            <p className="muted">You changed a model by hand since you picked {list.active}.</p>
          ) : list.active && !builtins.some((p) => p.active) ? (
            <p className="muted">You're using your own setup, {list.active}.</p>
          ) : null}
          <ul className="setup-cards">
            {builtins.map((p) => (
              <SetupCard
                key={p.name}
                preset={p}
                busy={switcher.isPending}
                onApply={() => switcher.mutate({ name: p.name })}
                modified={list.modified}
              />
            ))}
          </ul>
          {list.can_undo ? (
            <div>
              <button
                type="button"
                className="btn btn-quiet"
                onClick={() => switcher.mutate({ undo: true })}
                disabled={switcher.isPending}
              >
                {list.undo_preset ? `Undo the last switch (back to ${list.undo_preset})` : 'Undo the last switch'}
              </button>
            </div>
          ) : null}
        </>
      ) : null}
      {switcher.isPending ? (
        <p className="muted" role="status">
          Switching…
        </p>
      ) : null}
      <ErrorNotice error={switcher.error} prefix="Couldn't switch." />
      {switcher.data ? <SwitchResult result={switcher.data} undone={'undo' in (switcher.variables ?? {})} /> : null}
      <PullProgressView state={pull.state} />
    </section>
  );
}

/** The roles a setup would change: "Main model: claude-sonnet-5 → qwen3:8b". */
export function setupChanges(preset: Preset, roles: Roles | undefined): { role: string; from: string | null; to: string | null }[] {
  if (!roles) return [];
  const out: { role: string; from: string | null; to: string | null }[] = [];
  for (const role of ROLE_NAMES) {
    if (!(role in (preset.roles ?? {}))) continue;
    const to = preset.roles[role] ?? null;
    const from = roles[role] ?? null;
    if ((from ?? '') !== (to ?? '')) out.push({ role, from, to });
  }
  return out;
}

function SetupCard({ preset, busy, onApply, modified }: { preset: Preset; busy: boolean; onApply: () => void; modified: boolean }) {
  const providers = useModelProviders();
  const local = useLocalModels();
  const roles = useRoles();
  const headingId = useId();
  const [asking, setAsking] = useState(false);
  const current = preset.active && !modified;
  const needs = preset.available ? presetNeeds(preset, providers.data, local.data) : [];
  // "In use" only for a setup whose main model can answer; otherwise it is only picked.
  const mainNeed = preset.roles?.primary ? needOf(preset.roles.primary, providers.data, local.data) : null;
  const changes = setupChanges(preset, roles.data);
  const pick = () => {
    if (needs.length > 0) setAsking(true);
    else onApply();
  };
  return (
    <li
      className={current ? 'setup-card setup-card-current' : 'setup-card'}
      aria-labelledby={headingId}
      data-testid={`preset-${preset.name}`}
    >
      <h3 id={headingId}>
        {preset.name}{' '}
        {preset.active ? mainNeed ? <span className="pill pill-warn">Picked, not ready</span> : <span className="pill pill-ok">In use</span> : null}
      </h3>
      <p className="muted">{setupWords(preset, providers.data)}</p>
      {!preset.available ? (
        <div className="setup-need" data-testid="setup-need">
          <p>{preset.reason ?? 'This setup needs a cloud provider first.'}</p>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => revealKeyField(preset.provider ?? null)}
          >
            Add a key
          </button>
        </div>
      ) : (
        <>
          {needs.length > 0 ? (
            <ul className="setup-needs" data-testid="setup-need">
              {needs.map((n) => (
                <NeedRow key={`${n.kind}-${n.model}`} need={n} />
              ))}
            </ul>
          ) : null}
          {asking && !current ? (
            <div className="notice notice-warn setup-confirm" role="alertdialog" aria-labelledby={`${headingId}-ask`} data-testid="setup-confirm">
              <p id={`${headingId}-ask`}>
                <strong>Switch to {preset.name} before its models are ready?</strong> Sentient couldn't answer until this is
                done: {needs.map((n) => n.text).join(' ')}
              </p>
              {changes.length > 0 ? (
                <ul className="change-list">
                  {changes.map((c) => (
                    <li key={c.role}>
                      {roleTitle(c.role)}: {c.from ? modelName(c.from) : 'the main model'} → {c.to ? modelName(c.to) : 'the main model'}
                    </li>
                  ))}
                </ul>
              ) : null}
              <div className="role-buttons">
                <button type="button" className="btn btn-primary" onClick={() => setAsking(false)} autoFocus>
                  Keep my current setup
                </button>
                <button
                  type="button"
                  className="btn btn-quiet"
                  onClick={() => {
                    setAsking(false);
                    onApply();
                  }}
                  disabled={busy}
                >
                  Switch anyway
                </button>
              </div>
            </div>
          ) : null}
          {current || asking ? null : (
            <div className="setup-actions">
              <button type="button" className={needs.length > 0 ? 'btn' : 'btn btn-primary'} onClick={pick} disabled={busy}>
                Use {preset.name}
              </button>
            </div>
          )}
        </>
      )}
    </li>
  );
}

/** One thing a setup's model still needs, with its fix as a button (or a link). */
export function NeedRow({ need }: { need: Need }) {
  const pull = usePull();
  const local = useLocalModels();
  return (
    <li className="setup-need-row">
      <span>{need.text}</span>
      {need.kind === 'pull' ? (
        <button type="button" className="btn btn-primary" onClick={() => void pull.start(need.name)} disabled={pull.busy}>
          {pull.state.phase === 'pulling' && pull.state.name === need.name ? 'Downloading…' : `Download ${need.name}`}
        </button>
      ) : need.kind === 'ollama' ? (
        <span className="setup-fix">
          <a href="https://ollama.com/download" target="_blank" rel="noreferrer noopener">
            Get Ollama
          </a>
          <button type="button" className="btn btn-quiet" onClick={() => void local.refetch()} disabled={local.isFetching}>
            {local.isFetching ? 'Checking…' : 'Check again'}
          </button>
        </span>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => revealKeyField(need.provider)}>
          {need.kind === 'sign_in' ? `Sign in to ${need.label}` : `Add a key for ${need.label}`}
        </button>
      )}
      {need.kind === 'ollama' ? <OtherComputer lmStudio={false} /> : null}
    </li>
  );
}

/** Under Advanced: your own setups (use, delete) and saving the current setup under a name. */
export function OwnPresetsCard() {
  const presets = useModelPresets();
  const switcher = useSwitchPreset();
  const list = presets.data;
  const own = (list?.presets ?? []).filter((p) => !p.builtin && !(BUILTIN_SETUPS as readonly string[]).includes(p.name));
  return (
    <section className="card settings-section" aria-labelledby="own-setups-heading" data-testid="own-presets-card">
      <h2 id="own-setups-heading">Your own setups</h2>
      <p className="muted">Save the models you picked for each job under a name, and switch back to them in one step.</p>
      {presets.isPending ? <Loading label="Loading setups…" /> : null}
      <ErrorNotice error={presets.error} prefix="Couldn't load the setups." onRetry={() => void presets.refetch()} />
      {list && own.length === 0 ? <p className="muted">You haven't saved a setup of your own yet.</p> : null}
      {own.length > 0 ? (
        <ul className="preset-list">
          {own.map((p) => (
            <PresetRow key={p.name} preset={p} busy={switcher.isPending} onApply={() => switcher.mutate({ name: p.name })} modified={list?.modified ?? false} />
          ))}
        </ul>
      ) : null}
      {switcher.isPending ? (
        <p className="muted" role="status">
          Switching…
        </p>
      ) : null}
      <ErrorNotice error={switcher.error} prefix="Couldn't switch." />
      {switcher.data ? <SwitchResult result={switcher.data} undone={false} /> : null}
      <SaveCurrent />
    </section>
  );
}

function PresetRow({
  preset,
  busy,
  onApply,
  modified,
}: {
  preset: Preset;
  busy: boolean;
  onApply: () => void;
  modified: boolean;
}) {
  const remove = useDeletePreset();
  const headingId = useId();
  const current = preset.active && !modified;
  return (
    <li className="preset" aria-labelledby={headingId} data-testid={`preset-${preset.name}`}>
      <div className="preset-text">
        <h3 id={headingId}>
          {preset.name} {preset.active ? <span className="pill pill-ok">In use</span> : null}
        </h3>
        {preset.description ? <p className="muted">{preset.description}</p> : null}
        {!preset.available && preset.reason ? <p className="field-help">{preset.reason}</p> : null}
        <ErrorNotice error={remove.error} prefix="Couldn't delete it." />
      </div>
      <div className="role-buttons">
        <button
          type="button"
          className="btn btn-primary"
          onClick={onApply}
          disabled={busy || !preset.available || current}
        >
          {current ? 'In use' : `Use ${preset.name}`}
        </button>
        <button
          type="button"
          className="btn btn-quiet"
          onClick={() => remove.mutate(preset.name)}
          disabled={remove.isPending}
          aria-label={`Delete ${preset.name}`}
        >
          Delete
        </button>
      </div>
    </li>
  );
}

function SwitchResult({ result, undone }: { result: PresetSwitch; undone: boolean }) {
  const name = result.preset?.name;
  return (
    <div className="switch-result" data-testid="switch-result" role="status">
      <p>
        <strong>{undone ? (name ? `Back to ${name}.` : 'Back to your earlier setup.') : name ? `Switched to ${name}.` : 'Switched.'}</strong>{' '}
        {result.changed.length === 0 ? 'No job changed its model.' : null}
      </p>
      {result.changed.length > 0 ? (
        <ul className="change-list">
          {result.changed.map((c) => (
            <li key={c.role}>
              {roleTitle(c.role)}: {c.from ?? 'the main model'} → {c.to ?? 'the main model'}
            </li>
          ))}
        </ul>
      ) : null}
      {result.missing.length > 0 ? (
        <div className="missing" data-testid="missing">
          <p>Before these models can answer:</p>
          <ul className="missing-list">
            {result.missing.map((m) => (
              <li key={`${m.kind}-${m.model}`}>
                <p>
                  {m.detail} {m.fix}
                </p>
                <FixButton action={m.action} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

function SaveCurrent() {
  const [name, setName] = useState('');
  const save = useSavePreset();
  const id = useId();
  const taken = save.error?.status === 409;
  const submit = (overwrite: boolean) => {
    const n = name.trim();
    if (!n) return;
    save.mutate({ name: n, overwrite }, { onSuccess: () => setName('') });
  };
  return (
    <div className="save-preset">
      <div className="download">
        <div className="field download-field">
          <label className="field-label" htmlFor={id}>
            Save the current setup as
          </label>
          <input
            id={id}
            type="text"
            value={name}
            maxLength={40}
            placeholder="for example Work"
            autoComplete="off"
            onChange={(e) => {
              setName(e.target.value);
              save.reset();
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') submit(false);
            }}
          />
        </div>
        <button type="button" className="btn btn-quiet" onClick={() => submit(false)} disabled={!name.trim() || save.isPending}>
          {save.isPending ? 'Saving…' : 'Save setup'}
        </button>
      </div>
      {save.isSuccess ? (
        <p className="muted" role="status">
          Saved as {save.data.name}.
        </p>
      ) : null}
      <ErrorNotice error={save.error} prefix="Couldn't save it." />
      {taken ? (
        <button type="button" className="btn btn-quiet" onClick={() => submit(true)} disabled={save.isPending}>
          Replace it
        </button>
      ) : null}
    </div>
  );
}

// Ready-made setups (model presets): switch every job's model in one step, undo the last switch,
// and save the current setup under a name. After a switch it lists what changed and what the new
// models still need (a download, a key, Ollama running), with a fix where there is one.
import { useId, useState } from 'react';
import type { Preset, PresetSwitch } from '../../../api';
import { useDeletePreset, useModelPresets, useSavePreset, useSwitchPreset } from '../../../api/queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { FixButton } from './FixButton';
import { roleTitle } from './roles';

export function PresetsCard() {
  const presets = useModelPresets();
  const switcher = useSwitchPreset();
  const list = presets.data;

  return (
    <div className="card settings-section" data-testid="presets-card">
      <h2>Ready-made setups</h2>
      <p className="muted">Switch every job to another setup in one step. You can undo the last switch.</p>
      {presets.isPending ? <Loading label="Loading setups…" /> : null}
      <ErrorNotice error={presets.error} prefix="Couldn't load the setups." onRetry={() => void presets.refetch()} />
      {list ? (
        <>
          {list.active && list.modified ? (
            <p className="muted">You changed a model by hand since you picked {list.active}.</p>
          ) : null}
          <ul className="preset-list">
            {list.presets.map((p) => (
              <PresetRow
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
      <SaveCurrent />
    </div>
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
          aria-label={`Use ${preset.name}`}
        >
          {current ? 'In use' : 'Use this'}
        </button>
        {!preset.builtin ? (
          <button
            type="button"
            className="btn btn-quiet"
            onClick={() => remove.mutate(preset.name)}
            disabled={remove.isPending}
            aria-label={`Delete ${preset.name}`}
          >
            Delete
          </button>
        ) : null}
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

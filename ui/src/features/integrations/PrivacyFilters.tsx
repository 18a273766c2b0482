// Privacy filters of an app that takes them (email, calendar): words, people and labels whose
// messages Sentient never reads. Chips with a remove button each, and a field to add one; every
// change is saved at once.
import { useId, useState, type FormEvent } from 'react';
import type { FilterLists, Integration } from '../../api/calls';
import { usePrivacyFilters, useSetPrivacyFilters } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { FILTER_FIELDS, type FilterField } from './words';

export function PrivacyFilters({ app }: { app: Integration }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const filters = usePrivacyFilters(app.id, open);
  const save = useSetPrivacyFilters();
  const fields = FILTER_FIELDS.filter((f) => app.privacy_filters.fields.includes(f.key));
  if (!app.privacy_filters.supported || fields.length === 0) return null;

  const change = (key: FilterField, next: string[]) => {
    if (!filters.data) return;
    save.mutate({ id: app.id, filters: { ...filters.data, [key]: next } });
  };

  return (
    <div className="int-filters">
      <button type="button" className="int-disclosure" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        <span className="int-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        Privacy filters
      </button>
      {open ? (
        <div id={id} className="int-filters-body" role="group" aria-label={`Privacy filters for ${app.display_name}`}>
          <p className="muted">Sentient never reads what matches these in {app.display_name}.</p>
          {filters.isPending ? <Loading label="Loading filters…" /> : null}
          <ErrorNotice error={filters.error} prefix="Couldn't load the filters." onRetry={() => void filters.refetch()} />
          {filters.data
            ? fields.map((f) => (
                <FilterGroup
                  key={f.key}
                  appId={app.id}
                  field={f}
                  items={filters.data[f.key as keyof FilterLists] ?? []}
                  busy={save.isPending}
                  onChange={(next) => change(f.key, next)}
                />
              ))
            : null}
          <ErrorNotice error={save.error} prefix="Couldn't save the filters." />
        </div>
      ) : null}
    </div>
  );
}

function FilterGroup({
  appId,
  field,
  items,
  busy,
  onChange,
}: {
  appId: string;
  field: (typeof FILTER_FIELDS)[number];
  items: string[];
  busy: boolean;
  onChange: (next: string[]) => void;
}) {
  const [draft, setDraft] = useState('');
  const inputId = `filter-${appId}-${field.key}`;
  const add = (e: FormEvent) => {
    e.preventDefault();
    const value = draft.trim();
    if (!value) return;
    if (!items.some((i) => i.toLowerCase() === value.toLowerCase())) onChange([...items, value]);
    setDraft('');
  };
  return (
    <form className="int-filter-group" onSubmit={add} data-testid={`filter-${field.key}`}>
      <label className="field-label" htmlFor={inputId}>
        {field.label}
      </label>
      <span className="field-help" id={`${inputId}-help`}>
        {field.help}
      </span>
      {items.length > 0 ? (
        <ul className="int-chips" aria-label={field.label}>
          {items.map((item) => (
            <li key={item} className="int-chip">
              <span>{item}</span>
              <button
                type="button"
                className="int-chip-remove"
                aria-label={`Remove ${item}`}
                disabled={busy}
                onClick={() => onChange(items.filter((i) => i !== item))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="int-filter-add">
        <input
          id={inputId}
          value={draft}
          placeholder={field.placeholder}
          aria-describedby={`${inputId}-help`}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit" className="btn btn-quiet" disabled={busy || !draft.trim()}>
          Add
        </button>
      </div>
    </form>
  );
}

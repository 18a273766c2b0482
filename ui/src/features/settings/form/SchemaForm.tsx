// A settings form generated from the settings' JSON schema: give it a section path and the fields
// to show, and each field gets its title and description, the right control (a number box with
// the schema's range and a unit, a switch, a choice, a text box), a check against the schema's
// range before saving (a plain sentence under the field, nothing sent), and a save of that one
// field (PATCH /api/config) with "Saving…" and "Saved." beside it.
//
// Fields the schema doesn't have, or marks hidden or "Not used yet", are not shown; a form left
// with no field at all shows nothing.
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { ConfigSchema } from '../../../api/calls';
import { toApiError } from '../../../api/errors';
import { useConfig, usePatchConfig } from '../../../api/shared';
import { useConfigSchema } from '../queries';
import { ErrorNotice, Loading } from '../../../components/Page';
import { checkValue, fieldModel, patchFor, valueAt, type FieldModel, type FieldSpec } from './schema';
import './schema-form.css';

export type { FieldSpec } from './schema';

type Props = {
  /** Where the fields live in the settings, e.g. ['nodes'] or ['tasks', 'continuity']. */
  section: readonly string[];
  fields: ReadonlyArray<FieldSpec | string>;
  /** A heading and a sentence for the card; without a title the fields render bare (no card). */
  title?: string;
  intro?: ReactNode;
  /** Called after a field saved, with the patch it sent. */
  onSaved?: (patch: Record<string, unknown>) => void;
  testId?: string;
};

/** The fields of `section` the schema shows, in the order asked for. */
export function useSchemaFields(section: readonly string[], fields: ReadonlyArray<FieldSpec | string>) {
  const schema = useConfigSchema();
  const models = schema.data ? buildFields(schema.data, section, fields) : [];
  return { schema, models };
}

export function buildFields(root: ConfigSchema, section: readonly string[], fields: ReadonlyArray<FieldSpec | string>): FieldModel[] {
  return fields
    .map((f) => fieldModel(root, section, typeof f === 'string' ? { key: f } : f))
    .filter((f): f is FieldModel => f !== null);
}

export function SchemaForm({ section, fields, title, intro, onSaved, testId }: Props) {
  const { schema, models } = useSchemaFields(section, fields);
  const config = useConfig();
  const headingId = useId();

  let body: ReactNode;
  if (schema.isPending || config.isPending) body = <Loading label="Loading settings…" />;
  else if (schema.error)
    body = <ErrorNotice error={schema.error} prefix="Couldn't load the settings' descriptions." onRetry={() => void schema.refetch()} />;
  else if (config.error)
    body = <ErrorNotice error={toApiError(config.error)} prefix="Couldn't load the settings." onRetry={() => void config.refetch()} />;
  else if (models.length === 0) return null;
  else
    body = (
      <div className="schema-fields">
        {models.map((f) => (
          <SchemaField key={f.path.join('.')} field={f} value={valueAt(config.data, f.path) ?? f.defaultValue} onSaved={onSaved} />
        ))}
      </div>
    );

  if (!title) return <div data-testid={testId}>{body}</div>;
  return (
    <section className="card settings-section" aria-labelledby={headingId} data-testid={testId}>
      <h2 id={headingId}>{title}</h2>
      {intro ? <p className="muted">{intro}</p> : null}
      {body}
    </section>
  );
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value);
}

/** One field: its control, its description, the range sentence, and its own save state. */
export function SchemaField({
  field,
  value,
  onSaved,
}: {
  field: FieldModel;
  value: unknown;
  onSaved?: (patch: Record<string, unknown>) => void;
}) {
  const patch = usePatchConfig();
  const [draft, setDraft] = useState(shown(value));
  const [problem, setProblem] = useState<string | null>(null);
  // The value last sent, so Enter and the blur after it save once.
  const sent = useRef<unknown>(undefined);
  const id = `setting-${field.path.join('-')}`;
  const helpId = `${id}-help`;
  const problemId = `${id}-problem`;

  useEffect(() => {
    setDraft(shown(value));
    sent.current = undefined;
  }, [value]);

  const save = (next: unknown) => {
    const body = patchFor(field.path, next);
    sent.current = next;
    patch.mutate(body, { onSuccess: () => onSaved?.(body) });
  };

  const commit = (input: string | boolean) => {
    const checked = checkValue(field, input);
    if (!checked.ok) {
      setProblem(checked.problem);
      return;
    }
    setProblem(null);
    if (field.kind === 'number') setDraft(shown(checked.value));
    if (checked.value === value || (sent.current !== undefined && checked.value === sent.current)) return;
    save(checked.value);
  };

  const describedBy = [field.description ? helpId : null, problem ? problemId : null].filter(Boolean).join(' ') || undefined;
  const status = (
    <>
      {patch.isPending ? (
        <span className="muted schema-status" role="status">
          Saving…
        </span>
      ) : patch.isSuccess ? (
        <span className="muted schema-status" role="status">
          Saved.
        </span>
      ) : null}
    </>
  );
  const after = (
    <>
      {problem ? (
        <p className="field-problem" id={problemId} role="alert">
          {problem}
        </p>
      ) : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save that." />
    </>
  );

  if (field.kind === 'switch') {
    return (
      <div className="schema-field schema-switch" data-setting={field.path.join('.')}>
        <div className="toggle-row">
          <input
            id={id}
            type="checkbox"
            role="switch"
            className="toggle"
            checked={Boolean(value)}
            disabled={patch.isPending}
            aria-describedby={describedBy}
            onChange={(e) => {
              patch.reset();
              save(e.target.checked);
            }}
          />
          <span className="toggle-text">
            <label htmlFor={id} className="field-label">
              {field.title}
            </label>
            {field.description ? (
              <span className="field-help" id={helpId}>
                {field.description}
              </span>
            ) : null}
          </span>
          {status}
        </div>
        {after}
      </div>
    );
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    commit(draft);
  };

  return (
    <form className="schema-field" onSubmit={onSubmit} noValidate data-setting={field.path.join('.')}>
      <label className="field-label" htmlFor={id}>
        {field.title}
      </label>
      {field.description ? (
        <span className="field-help" id={helpId}>
          {field.description}
        </span>
      ) : null}
      <div className="schema-control">
        {field.kind === 'select' ? (
          <select
            id={id}
            className="select schema-select"
            value={draft}
            disabled={patch.isPending}
            aria-describedby={describedBy}
            onChange={(e) => {
              setDraft(e.target.value);
              patch.reset();
              commit(e.target.value);
            }}
          >
            {field.nullable ? <option value="">Not set</option> : null}
            {field.options.map((o) => (
              <option key={o.value} value={o.value} title={o.description || undefined}>
                {o.label}
              </option>
            ))}
          </select>
        ) : (
          <input
            id={id}
            className={field.kind === 'number' ? 'schema-number' : 'schema-text'}
            type={field.kind === 'number' ? 'number' : 'text'}
            inputMode={field.kind === 'number' ? (field.integer ? 'numeric' : 'decimal') : undefined}
            min={field.kind === 'number' && field.min !== null ? field.min : undefined}
            max={field.kind === 'number' && field.max !== null ? field.max : undefined}
            step={field.kind === 'number' ? (field.step ?? 'any') : undefined}
            autoComplete="off"
            spellCheck={field.kind === 'text' ? false : undefined}
            value={draft}
            aria-invalid={problem ? true : undefined}
            aria-describedby={describedBy}
            onChange={(e) => {
              setDraft(e.target.value);
              setProblem(null);
              patch.reset();
              sent.current = undefined;
            }}
            onBlur={() => commit(draft)}
          />
        )}
        {field.kind === 'number' && field.unit ? (
          <span className="schema-unit" aria-hidden="true">
            {field.unit}
          </span>
        ) : null}
        {status}
      </div>
      {after}
    </form>
  );
}

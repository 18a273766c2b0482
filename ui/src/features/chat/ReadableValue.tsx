// A tool's JSON shown the way a person reads it: fields as "Name: value" lines, lists as lists,
// long text cut with an ellipsis. Deep or very long values fall back to compact JSON.
const MAX_TEXT = 600;
const MAX_ITEMS = 20;
const MAX_DEPTH = 3;

/** "modified_at" → "Modified at". */
export function fieldLabel(key: string): string {
  const words = key.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').trim();
  return words ? words[0].toUpperCase() + words.slice(1).toLowerCase() : key;
}

function cut(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

export function ReadableValue({ value, depth = 0 }: { value: unknown; depth?: number }) {
  if (value === null || value === undefined || value === '') return <span className="muted">none</span>;
  if (typeof value === 'boolean') return <>{value ? 'yes' : 'no'}</>;
  if (typeof value === 'number') return <>{String(value)}</>;
  if (typeof value === 'string') return <span className="readable-text">{cut(value)}</span>;
  if (depth >= MAX_DEPTH) return <code>{cut(JSON.stringify(value))}</code>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">none</span>;
    const shown = value.slice(0, MAX_ITEMS);
    return (
      <ol className="readable-list">
        {shown.map((item, i) => (
          <li key={i}>
            <ReadableValue value={item} depth={depth + 1} />
          </li>
        ))}
        {value.length > shown.length ? <li className="muted">and {value.length - shown.length} more</li> : null}
      </ol>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <dl className="readable-fields">
      {entries.map(([key, item]) => (
        <div key={key} className="readable-field">
          <dt>{fieldLabel(key)}</dt>
          <dd>
            <ReadableValue value={item} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

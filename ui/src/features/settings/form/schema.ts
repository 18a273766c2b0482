// Reading the settings' JSON schema (`GET /api/config/schema`, made by schemars from the engine's
// settings types) into what a form needs: a field's kind (number, switch, choice or text), its
// title and description, its range and its choices; then checking what was typed against that
// range, in a plain sentence, and building the PATCH that changes only that field.
//
// Nothing here knows a setting by name: the limits come from the schema only.
import type { ConfigSchema } from '../../../api/calls';

export type FieldKind = 'number' | 'switch' | 'select' | 'text';

export type FieldOption = { value: string; label: string; description: string };

/** What a caller asks for: a field of the section, optionally with a shorter title or a unit. */
export type FieldSpec = {
  key: string;
  /** A short title; without one the schema's title, else its description, is the label. */
  title?: string;
  /** The unit a number is counted in ("seconds"), shown beside the box and in the sentence. */
  unit?: string;
  /** The step between numbers (whole numbers step by 1 unless this says otherwise). */
  step?: number;
  /** Labels for an enum's choices, by value (the schema's description is the default label). */
  optionLabels?: Record<string, string>;
};

export type FieldModel = {
  /** The setting's path in the settings object, e.g. ['nodes', 'lan_port']. */
  path: string[];
  key: string;
  kind: FieldKind;
  title: string;
  /** The schema's description, or '' when the title already is it. */
  description: string;
  integer: boolean;
  min: number | null;
  max: number | null;
  step: number | null;
  unit: string;
  options: FieldOption[];
  nullable: boolean;
  defaultValue: unknown;
};

const NOT_USED_YET = /^not used yet\b/i;

/** Follows `$ref` (and a lone `allOf` wrapper) to the schema it names, keeping the outer description. */
export function resolve(root: ConfigSchema, node: ConfigSchema | undefined, depth = 0): ConfigSchema | undefined {
  if (!node || depth > 20) return node;
  let target: ConfigSchema | undefined;
  if (node.$ref) {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref);
    if (m) target = (m[1] === '$defs' ? root.$defs : root.definitions)?.[decodeURIComponent(m[2])];
  } else if (node.allOf && node.allOf.length === 1 && Object.keys(node).every((k) => ['allOf', 'description', 'default', 'title'].includes(k))) {
    target = node.allOf[0];
  }
  if (!target) return node;
  const inner = resolve(root, target, depth + 1) ?? target;
  const { $ref: _ref, allOf: _allOf, ...outer } = node;
  return { ...inner, ...outer };
}

/**
 * Whether the contract keeps a setting out of sight: marked hidden (`x-hidden`, `readOnly`,
 * `deprecated`) or described as "Not used yet" (a part of Sentient that arrives later).
 */
export function isHidden(node: ConfigSchema | undefined): boolean {
  if (!node) return true;
  if (node['x-hidden'] === true || node.readOnly === true || node.deprecated === true) return true;
  return NOT_USED_YET.test((node.description ?? '').trim());
}

/**
 * The schema of the object at `path` (e.g. ['nodes'] or ['tasks', 'continuity']), resolved; none
 * when a part of the path is missing or hidden.
 */
export function sectionSchema(root: ConfigSchema, path: readonly string[]): ConfigSchema | undefined {
  let node: ConfigSchema | undefined = resolve(root, root);
  for (const part of path) {
    const raw = node?.properties?.[part];
    if (!raw || isHidden(raw)) return undefined;
    node = resolve(root, raw);
    if (!node) return undefined;
  }
  return node;
}

/**
 * Whether a settings section has anything to show: it exists, it isn't hidden, and when bootstrap
 * reports a feature by the section's name, that feature is on.
 */
export function sectionShown(root: ConfigSchema, section: string, features?: Record<string, boolean>): boolean {
  const top = resolve(root, root)?.properties?.[section];
  if (!top || isHidden(top)) return false;
  if (features && section in features && !features[section]) return false;
  return true;
}

function types(node: ConfigSchema): string[] {
  if (Array.isArray(node.type)) return node.type;
  return node.type ? [node.type] : [];
}

/** The non-null branch of `anyOf: [X, {type: null}]` (how schemars writes an optional enum). */
function withoutNull(root: ConfigSchema, node: ConfigSchema): { node: ConfigSchema; nullable: boolean } {
  const branches = node.anyOf ?? null;
  if (branches && branches.length === 2) {
    const isNull = (b: ConfigSchema) => types(b).length === 1 && types(b)[0] === 'null';
    const other = branches.find((b) => !isNull(b));
    if (other && branches.some(isNull)) {
      const { anyOf: _anyOf, ...outer } = node;
      return { node: { ...(resolve(root, other) ?? other), ...outer }, nullable: true };
    }
  }
  const t = types(node);
  return { node, nullable: t.includes('null') };
}

/** The first sentence, for a label when no title was given. */
function firstSentence(text: string): string {
  const m = /^(.+?[.!?])(\s|$)/.exec(text.trim());
  return (m ? m[1] : text).trim();
}

function choices(node: ConfigSchema, labels: Record<string, string> | undefined): FieldOption[] | null {
  const opts: FieldOption[] = [];
  const one = node.oneOf ?? node.anyOf;
  if (node.enum) {
    for (const v of node.enum) if (typeof v === 'string') opts.push({ value: v, label: labels?.[v] ?? v, description: '' });
  } else if (one && one.length > 0) {
    for (const b of one) {
      // A choice that does nothing yet (a later version's) is not offered.
      if (isHidden(b)) continue;
      const values = b.const !== undefined ? [b.const] : (b.enum ?? []);
      for (const v of values) {
        if (typeof v !== 'string') continue;
        const description = (b.description ?? '').trim();
        opts.push({ value: v, label: labels?.[v] ?? (description ? firstSentence(description).replace(/\.$/, '') : v), description });
      }
    }
  }
  return opts.length > 0 ? opts : null;
}

const UNIT_FROM_KEY: Array<[RegExp, string]> = [
  [/(_s|_seconds)$/, 'seconds'],
  [/_minutes$/, 'minutes'],
  [/_hours$/, 'hours'],
  [/_kb$/, 'KB'],
  [/_mb$/, 'MB'],
  [/_chars$/, 'characters'],
  [/_usd$/, 'US dollars'],
  [/_per_minute$/, 'per minute'],
];

/**
 * A field of a section as a form shows it, or null when the schema doesn't have it, hides it, or it
 * is not something a form field can change (a list or a map).
 */
export function fieldModel(root: ConfigSchema, section: readonly string[], spec: FieldSpec): FieldModel | null {
  const parent = sectionSchema(root, section);
  const raw = parent?.properties?.[spec.key];
  if (!raw || isHidden(raw)) return null;
  const resolved = resolve(root, raw);
  if (!resolved || isHidden(resolved)) return null;
  const { node, nullable } = withoutNull(root, resolved);
  const t = types(node).filter((x) => x !== 'null');
  const description = (raw.description ?? node.description ?? '').trim();
  const title = spec.title ?? node.title ?? firstSentence(description).replace(/\.$/, '');
  const base = {
    path: [...section, spec.key],
    key: spec.key,
    title,
    description: description && description.replace(/\.$/, '') !== title ? description : '',
    integer: false,
    min: null,
    max: null,
    step: null,
    unit: '',
    options: [] as FieldOption[],
    nullable,
    defaultValue: node.default ?? raw.default,
  };

  const opts = choices(node, spec.optionLabels);
  if (opts) return { ...base, kind: 'select', options: opts };
  if (t.includes('boolean')) return { ...base, kind: 'switch' };
  if (t.includes('integer') || t.includes('number')) {
    const integer = t.includes('integer') && !t.includes('number');
    const min = node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum : null);
    const max = node.maximum ?? (node.exclusiveMaximum !== undefined ? node.exclusiveMaximum : null);
    const unit = spec.unit ?? UNIT_FROM_KEY.find(([re]) => re.test(spec.key))?.[1] ?? '';
    return { ...base, kind: 'number', integer, min, max, step: spec.step ?? (integer ? 1 : (node.multipleOf ?? null)), unit };
  }
  if (t.includes('string')) return { ...base, kind: 'text' };
  return null;
}

function plain(n: number): string {
  return String(n);
}

/** The range in words: "from 2 to 120", "of at least 1", "of at most 20", or "". */
export function rangeWords(field: Pick<FieldModel, 'min' | 'max'>): string {
  const { min, max } = field;
  if (min !== null && max !== null) return `from ${plain(min)} to ${plain(max)}`;
  if (min !== null) return `of at least ${plain(min)}`;
  if (max !== null) return `of at most ${plain(max)}`;
  return '';
}

/** The sentence under a number that doesn't fit: "Use a whole number from 2 to 120 (seconds)." */
export function rangeSentence(field: Pick<FieldModel, 'min' | 'max' | 'integer' | 'unit'>): string {
  const what = field.integer ? 'a whole number' : 'a number';
  const range = rangeWords(field);
  const unit = field.unit && field.unit !== 'per minute' ? ` of ${field.unit}` : '';
  return `Use ${what}${unit}${range ? ` ${range}` : ''}.`;
}

export type Checked = { ok: true; value: unknown } | { ok: false; problem: string };

/** What was typed as the setting's value, or the plain sentence saying why it can't be saved. */
export function checkValue(field: FieldModel, input: string | boolean): Checked {
  if (field.kind === 'switch') return { ok: true, value: Boolean(input) };
  const text = String(input);
  if (field.kind === 'select') {
    if (field.nullable && text === '') return { ok: true, value: null };
    return field.options.some((o) => o.value === text)
      ? { ok: true, value: text }
      : { ok: false, problem: `Choose one of: ${field.options.map((o) => o.label).join(', ')}.` };
  }
  if (field.kind === 'text') return { ok: true, value: field.nullable && text.trim() === '' ? null : text };
  const t = text.trim();
  if (t === '' && field.nullable) return { ok: true, value: null };
  const pattern = field.integer ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)$/;
  const n = Number(t);
  if (!pattern.test(t) || !Number.isFinite(n)) return { ok: false, problem: rangeSentence(field) };
  if ((field.min !== null && n < field.min) || (field.max !== null && n > field.max)) return { ok: false, problem: rangeSentence(field) };
  return { ok: true, value: n };
}

/** The value at `path` in the settings, or undefined. */
export function valueAt(config: unknown, path: readonly string[]): unknown {
  let v: unknown = config;
  for (const part of path) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** The PATCH body that changes only the setting at `path`: `{nodes: {lan_port: 8443}}`. */
export function patchFor(path: readonly string[], value: unknown): Record<string, unknown> {
  let body: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) body = { [path[i]]: body };
  return body as Record<string, unknown>;
}

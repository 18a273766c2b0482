// The model roles as Settings names them, and the models a role's picker offers: what Ollama
// has downloaded, each provider's suggestions, and whatever the person types.
import type { LocalModels, ProviderView, RoleName } from '../../../api';

export type RoleInfo = { role: RoleName; title: string; description: string; optional: boolean };

export const ROLES: RoleInfo[] = [
  { role: 'primary', title: 'Main model', description: 'Chats with you and uses tools to get things done.', optional: false },
  { role: 'fast', title: 'Quick jobs', description: 'Small background jobs such as memory notes, summaries and titles.', optional: true },
  { role: 'planner', title: 'Planning tasks', description: 'Works out the steps of a task before it runs.', optional: true },
  { role: 'executor', title: 'Running tasks', description: 'Carries out long tasks step by step.', optional: true },
  {
    role: 'embedding',
    title: 'Memory search',
    description: 'Turns text into numbers so Sentient can search its memory. Changing it re-indexes your memories.',
    optional: true,
  },
  { role: 'vision', title: 'Pictures', description: 'Looks at pictures you attach.', optional: true },
  { role: 'voice', title: 'Voice', description: 'Spoken conversations, where a quick answer matters most.', optional: true },
];

export type ModelOption = { value: string; label: string };
export type OptionGroup = { label: string; options: ModelOption[] };

/** Ollama's `:latest` tag is what a name without a tag means. */
export function withoutLatest(name: string): string {
  return name.replace(/:latest$/, '');
}

/** Two model strings that name the same model (`ollama/x:latest` is `ollama/x`). */
export function sameModel(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  return withoutLatest(a.trim()) === withoutLatest(b.trim());
}

function isEmbeddingName(model: string): boolean {
  return /embed/i.test(model);
}

/** The part after `provider/`, for a shorter label. */
function shortName(model: string): string {
  const slash = model.indexOf('/');
  return slash === -1 ? model : model.slice(slash + 1);
}

/**
 * The groups a role's picker shows. Downloaded Ollama models come first (only embedding models
 * for the embedding role, and none of those for the others), then each provider's suggestions
 * with a word on what they still need (a download or a key).
 */
export function optionGroups(role: RoleName, providers: ProviderView[], local: LocalModels | undefined): OptionGroup[] {
  const forEmbedding = role === 'embedding';
  const groups: OptionGroup[] = [];
  const installed = (local?.ollama.models ?? []).filter((m) => m.is_embedding === forEmbedding);
  const installedNames = new Set((local?.ollama.models ?? []).map((m) => withoutLatest(m.name)));
  if (installed.length > 0) {
    groups.push({
      label: 'Downloaded to this computer',
      options: installed.map((m) => {
        const name = withoutLatest(m.name);
        return { value: `${forEmbedding ? 'ollama' : 'ollama_chat'}/${name}`, label: name };
      }),
    });
  }
  const lmStudio = (local?.lm_studio.models ?? []).filter((m) => m.is_embedding === forEmbedding);
  if (lmStudio.length > 0) {
    groups.push({
      label: 'LM Studio',
      options: lmStudio.map((m) => ({ value: `lm_studio/${m.name}`, label: m.name })),
    });
  }
  const offered = new Set(groups.flatMap((g) => g.options.map((o) => withoutLatest(o.value))));
  for (const p of providers) {
    const options = p.suggested
      .filter((model) => isEmbeddingName(model) === forEmbedding)
      .filter((model) => !offered.has(withoutLatest(model)))
      .map((model) => {
        let note = '';
        if (p.kind === 'local' && (p.id === 'ollama' || p.id === 'ollama_chat')) {
          if (!installedNames.has(withoutLatest(shortName(model)))) note = ' (not downloaded yet)';
        } else if (p.key_required && !p.key_set) {
          note = p.sign_in ? ' (sign in first)' : ' (needs a key)';
        }
        return { value: model, label: `${shortName(model)}${note}` };
      });
    if (options.length > 0) groups.push({ label: p.label, options });
  }
  return groups;
}

/** A model string looks like `provider/model`. */
export function looksLikeModel(text: string): boolean {
  const t = text.trim();
  const slash = t.indexOf('/');
  return slash > 0 && slash < t.length - 1 && !/\s/.test(t);
}

/** A role's name as Settings shows it ("Quick jobs" for fast). */
export function roleTitle(role: string): string {
  return ROLES.find((r) => r.role === role)?.title ?? role;
}

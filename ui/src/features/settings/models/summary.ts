// The top of Settings > Models in plain words: one sentence on what Sentient thinks with, and what
// a model still needs before it can answer (a download, a key, Ollama running), with the fix.
import type { LocalModels, Preset, ProviderView, Roles } from '../../../api';
import { withoutLatest } from './roles';

/** Providers whose models run on this computer. */
const LOCAL_PROVIDERS = new Set(['ollama', 'ollama_chat', 'lm_studio']);

export function providerId(model: string): string {
  const slash = model.indexOf('/');
  return slash === -1 ? '' : model.slice(0, slash);
}

/** The model's own name: `qwen3:8b` for `ollama_chat/qwen3:8b:latest`, `claude-sonnet-5` for `anthropic/claude-sonnet-5`. */
export function modelName(model: string): string {
  const slash = model.indexOf('/');
  return withoutLatest(slash === -1 ? model : model.slice(slash + 1));
}

export function isLocal(model: string, providers: ProviderView[] | undefined): boolean {
  const id = providerId(model);
  const p = providers?.find((x) => x.id === id);
  return p ? p.kind === 'local' : LOCAL_PROVIDERS.has(id);
}

function providerLabel(model: string, providers: ProviderView[] | undefined): string {
  const id = providerId(model);
  return providers?.find((x) => x.id === id)?.label ?? id;
}

/** "qwen3:8b on this computer" or "claude-sonnet-5 from Anthropic". */
function where(model: string, providers: ProviderView[] | undefined): string {
  return isLocal(model, providers) ? `${modelName(model)} on this computer` : `${modelName(model)} from ${providerLabel(model, providers)}`;
}

/**
 * The one sentence at the top: "Sentient thinks with qwen3:8b on this computer." When quick jobs
 * run elsewhere than the main model (a mixed setup), the sentence says so too; a main model that
 * can't answer yet is only "set to".
 */
export function inUseSentence(roles: Roles, providers: ProviderView[] | undefined, assistant = 'Sentient', ready = true): string {
  const main = roles.primary;
  if (!main) return `${assistant} has no model to think with yet.`;
  // Never "thinks with" a model that can't answer yet (not downloaded, no key, Ollama stopped).
  if (!ready) return `${assistant} is set to think with ${where(main, providers)}, but it isn't ready yet.`;
  const fast = roles.fast;
  if (fast && isLocal(fast, providers) !== isLocal(main, providers)) {
    return `${assistant} thinks with ${where(main, providers)} and does quick jobs with ${where(fast, providers)}.`;
  }
  return `${assistant} thinks with ${where(main, providers)}.`;
}

/** What a model still needs before it answers, and the fix the window can offer. */
export type Need =
  | { kind: 'pull'; model: string; name: string; text: string }
  | { kind: 'ollama'; model: string; text: string }
  | { kind: 'key'; model: string; provider: string; label: string; text: string }
  | { kind: 'sign_in'; model: string; provider: string; label: string; text: string };

/** Whether Ollama has `name` downloaded (`:latest` is the same as no tag). */
export function isDownloaded(name: string, local: LocalModels | undefined): boolean {
  return (local?.ollama.models ?? []).some((m) => withoutLatest(m.name) === withoutLatest(name));
}

/** What `model` needs, or null when nothing is known to be missing (or it can't be told yet). */
export function needOf(model: string, providers: ProviderView[] | undefined, local: LocalModels | undefined): Need | null {
  const id = providerId(model);
  if (id === 'ollama' || id === 'ollama_chat') {
    if (!local) return null;
    if (!local.ollama.reachable) return { kind: 'ollama', model, text: "Ollama isn't running on this computer." };
    const name = modelName(model);
    if (!isDownloaded(name, local)) return { kind: 'pull', model, name, text: `${name} isn't downloaded yet.` };
    return null;
  }
  const p = providers?.find((x) => x.id === id);
  if (p && p.kind === 'cloud' && p.key_required && !p.key_set) {
    if (p.sign_in) return { kind: 'sign_in', model, provider: p.id, label: p.label, text: `Sign in to ${p.label} first.` };
    return { kind: 'key', model, provider: p.id, label: p.label, text: `${modelName(model)} needs a key from ${p.label}.` };
  }
  return null;
}

/** Every distinct need of a setup's models (one per model). */
export function presetNeeds(preset: Preset, providers: ProviderView[] | undefined, local: LocalModels | undefined): Need[] {
  const seen = new Set<string>();
  const needs: Need[] = [];
  for (const model of Object.values(preset.roles ?? {})) {
    if (!model || seen.has(withoutLatest(model))) continue;
    seen.add(withoutLatest(model));
    const need = needOf(model, providers, local);
    // One line for Ollama not running, however many of its models the setup uses.
    if (need && !(need.kind === 'ollama' && needs.some((n) => n.kind === 'ollama'))) needs.push(need);
  }
  return needs;
}

/** The built-in setups, in the contract's order. */
export const BUILTIN_SETUPS = ['Local only', 'Cloud', 'Mixed'] as const;

/**
 * A built-in setup in one plain line, without the expert words the engine's own description
 * uses (reading lengths, re-indexing): where its models run, and its main model.
 */
export function setupWords(preset: Preset, providers: ProviderView[] | undefined): string {
  const main = preset.roles?.primary ?? null;
  const provider = preset.provider ? (providers?.find((p) => p.id === preset.provider)?.label ?? preset.provider) : null;
  const using = main ? ` Main model: ${modelName(main)}.` : '';
  switch (preset.name) {
    case 'Local only':
      return `Everything runs on this computer, so nothing you write leaves it.${using}`;
    case 'Cloud':
      return `Every job uses ${provider ? `${provider}'s` : 'a cloud provider\'s'} models: quick and capable, but needs a key.${using}`;
    case 'Mixed':
      return `Chats and tasks use ${provider ?? 'a cloud provider'}; quick jobs and your memory stay on this computer.${using}`;
    default:
      return preset.description ?? '';
  }
}

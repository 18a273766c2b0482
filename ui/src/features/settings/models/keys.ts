// Finding a provider's key field from anywhere in Settings > Models: a fix such as "Add a key"
// asks the keys card to show (and focus) the field, even when that provider isn't listed yet.

export const REVEAL_KEY_EVENT = 'sentient:reveal-key-field';

/** The id of a provider's key field. */
export function keyFieldId(provider: string): string {
  return `key-input-${provider}`;
}

/**
 * Shows and focuses the key field of `provider`, adding it to the listed providers when needed;
 * with null, focuses the "Add another provider" picker.
 */
export function revealKeyField(provider: string | null) {
  window.dispatchEvent(new CustomEvent<string | null>(REVEAL_KEY_EVENT, { detail: provider }));
}

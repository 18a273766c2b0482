// The one-click fix a check-up finding or a preset's missing model may offer, with the label the
// engine gave it: use another model for a role, download a model, change a role's reasoning or
// the reading length, or go to a provider's key field.
import type { CheckAction, MissingAction } from '../../../api';
import { usePatchConfig } from '../../../api/shared';
import { useSetRoles } from './queries';
import { ErrorNotice } from '../../../components/Page';
import { keyFieldId, revealKeyField } from './keys';
import { usePull } from './pull';
import './models.css';

export { keyFieldId } from './keys';

export function FixButton({ action }: { action: CheckAction | MissingAction | null | undefined }) {
  const pull = usePull();
  const setRoles = useSetRoles();
  const patch = usePatchConfig();
  if (!action) return null;

  const busy = setRoles.isPending || patch.isPending;
  const done = setRoles.isSuccess || patch.isSuccess;
  let onClick: (() => void) | null = null;
  let disabled = busy || done;

  switch (action.kind) {
    case 'use_model':
      onClick = () => setRoles.mutate({ [action.role]: action.model });
      break;
    case 'pull_model':
      disabled = pull.busy;
      onClick = () => void pull.start(action.name);
      break;
    case 'set_reasoning':
      onClick = () => patch.mutate({ models: { reasoning: { [action.role]: action.value } } });
      break;
    case 'set_context_length':
      onClick = () =>
        patch.mutate({
          models: action.role ? { context_length_per_role: { [action.role]: action.value } } : { context_length: action.value },
        });
      break;
    case 'add_key':
      disabled = false;
      // A key field on the page is focused at once; one hidden until its provider is added is
      // shown and focused by the keys card.
      onClick = () => {
        const field = document.getElementById(keyFieldId(action.provider));
        field?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
        field?.focus();
        revealKeyField(action.provider);
      };
      break;
    case 'start_ollama':
      // Only the person can start Ollama; the fix sentence says how.
      return null;
  }

  return (
    <span className="fix">
      <button type="button" className="btn btn-quiet" onClick={onClick ?? undefined} disabled={disabled}>
        {action.label}
      </button>
      {done ? (
        <span className="muted" role="status">
          Done.
        </span>
      ) : null}
      <ErrorNotice error={setRoles.error ?? patch.error} prefix="Couldn't do that." />
    </span>
  );
}

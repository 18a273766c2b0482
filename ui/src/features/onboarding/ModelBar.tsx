// The reminder on Chat and Tasks after "Later" (or a model that hasn't answered yet): "No model
// set up yet · Set up now". It goes away by itself once a model has answered: a chat reply (at
// once, through modelAnswered; later from the engine's own record, a chat whose transcript has a
// reply from the assistant, never a saved error) or a successful Test in Settings > Models in
// this window. "Set up now" opens the model step again.
import { useMutationState, useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { MessageRow, Session } from '../../api';
import { useApi } from '../../api/context';
import { toApiError, type ApiError } from '../../api/errors';
import { queryKeys } from '../../api/queries';
import { useModelSetup, writeModelSetup } from './modelSetup';
import './onboarding.css';

/** How many of the newest chats are looked at for a reply. */
const CHATS_LOOKED_AT = 5;

/** A row that shows a model answered: an assistant message with text or a tool call. */
export function isAnswer(row: Pick<MessageRow, 'role' | 'content' | 'tool_calls'>): boolean {
  if (row.role !== 'assistant') return false;
  return row.content.trim() !== '' || (Array.isArray(row.tool_calls) && row.tool_calls.length > 0);
}

/** Whether any of the newest chats holds a model's reply (null while it is being looked up). */
function useModelAnswered(enabled: boolean): boolean | null {
  const api = useApi();
  // The chat list as Chat keeps it (same key and call), asked only while the bar may show.
  const sessions = useQuery<Session[], ApiError>({
    queryKey: queryKeys.sessions,
    queryFn: () => api.listSessions(100).catch((e: unknown) => Promise.reject(toApiError(e))),
    enabled,
  });
  const newest = (sessions.data ?? []).slice(0, CHATS_LOOKED_AT);
  // A chat's updated_at moves with each message, so a new reply asks again.
  const stamp = newest.map((s) => `${s.id}@${s.updated_at}`).join(',');
  const answered = useQuery({
    queryKey: ['model-answered', stamp],
    enabled: enabled && sessions.data !== undefined,
    queryFn: async () => {
      for (const s of newest) {
        const rows = await api.sessionMessages(s.id, 500);
        if (rows.some(isAnswer)) return true;
      }
      return false;
    },
  });
  if (!enabled) return null;
  return answered.data ?? null;
}

/** Whether a model Test in Settings answered in this window (the Test's mutation is kept). */
function useTestAnswered(): boolean {
  const tests = useMutationState({
    filters: { mutationKey: queryKeys.modelTest, status: 'success' },
    select: (m) => m.state.data,
  });
  return tests.some((t) => {
    if (typeof t !== 'object' || t === null || !('kind' in t) || !('result' in t)) return false;
    const result = t.result as { ok?: unknown } | null;
    return t.kind === 'chat' && result?.ok === true;
  });
}

export function ModelBar() {
  const state = useModelSetup();
  const shown = state === 'later' || state === 'unanswered';
  const tested = useTestAnswered();
  const answered = useModelAnswered(shown) || tested;
  useEffect(() => {
    // Seen once is enough: a model answered, so the reminder is done for good.
    if (shown && answered) writeModelSetup(null);
  }, [shown, answered]);

  if (!shown || answered) return null;
  const text = state === 'later' ? 'No model set up yet' : "Your model hasn't answered yet";
  const more = state === 'later' ? "Sentient can't answer until a model is set up." : 'Send a message, or set it up again.';
  return (
    <div className="notice notice-warn model-bar" role="region" aria-label="Model set-up" data-testid="model-bar">
      <p>
        <strong>{text}</strong>
        <span aria-hidden="true"> · </span>
        <span className="muted">{more}</span>
      </p>
      <div className="role-buttons">
        <button type="button" className="btn btn-primary" onClick={() => writeModelSetup('reopened')}>
          Set up now
        </button>
        <a className="btn btn-quiet" href="#/settings/models">
          Open Settings &gt; Models
        </a>
      </div>
    </div>
  );
}

// A chat's helpers (contract section 10): what each one works on, where it stands, and Cancel on
// a running one. Shown only once the chat has started a helper; `subagent.updated` refreshes it.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Subagent } from '../../api';
import { useApi } from '../../api/context';
import { toApiError, type ApiError } from '../../api/errors';
import { queryKeys, rejectAsApiError } from '../../api/queries';

const STATUS: Record<Subagent['status'], string> = {
  running: 'Working…',
  completed: 'Done',
  error: "Couldn't finish",
  cancelled: 'Cancelled',
};

export function useHelpers(sessionId: string | null) {
  const api = useApi();
  return useQuery<Subagent[], ApiError>({
    queryKey: queryKeys.subagents(sessionId ?? ''),
    queryFn: () => api.listSubagents(sessionId ?? '').catch(rejectAsApiError),
    enabled: sessionId !== null,
  });
}

function HelperRow({ helper }: { helper: Subagent }) {
  const api = useApi();
  const qc = useQueryClient();
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    setCancelling(true);
    setError(null);
    try {
      await api.cancelSubagent(helper.subagent_id);
      if (helper.session_id) void qc.invalidateQueries({ queryKey: queryKeys.subagents(helper.session_id) });
    } catch (e) {
      setError(toApiError(e).detail);
    } finally {
      setCancelling(false);
    }
  };
  const detail = helper.error ?? helper.summary;
  return (
    <li className={`helper helper-${helper.status}`} data-testid="helper">
      <div className="helper-head">
        <span className="helper-goal">{helper.goal}</span>
        <span className="helper-status muted">
          {STATUS[helper.status]}
          {helper.background ? ' · in the background' : ''}
        </span>
        {helper.status === 'running' ? (
          <button type="button" className="btn" onClick={() => void cancel()} disabled={cancelling}>
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        ) : null}
      </div>
      {detail ? <p className="helper-detail">{detail}</p> : null}
      {error ? (
        <p role="alert" className="tool-error">
          {error}
        </p>
      ) : null}
    </li>
  );
}

/** The chat's helpers, newest first; nothing until it has one. */
export function Helpers({ sessionId }: { sessionId: string | null }) {
  const helpers = useHelpers(sessionId);
  const list = helpers.data ?? [];
  if (list.length === 0) return null;
  return (
    <section className="helpers" aria-label="Helpers">
      <h3 className="helpers-title">Helpers</h3>
      <ul className="helpers-list">
        {list.map((h) => (
          <HelperRow key={h.subagent_id} helper={h} />
        ))}
      </ul>
    </section>
  );
}

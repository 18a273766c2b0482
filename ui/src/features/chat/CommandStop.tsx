// Stop on a command the assistant is running on this computer (contract section 18): the
// command's whole process tree ends and the tool returns what it printed so far.
import { useState } from 'react';
import { useApi } from '../../api/context';
import { toApiError } from '../../api/errors';

/** The tool that runs commands on this computer. */
export const TERMINAL_TOOL = 'terminal_run';

export function CommandStop({ callId }: { callId: string }) {
  const api = useApi();
  const [state, setState] = useState<'idle' | 'stopping' | 'gone'>('idle');
  const [error, setError] = useState<string | null>(null);
  const stop = async () => {
    setState('stopping');
    setError(null);
    try {
      const answer = await api.terminalStop({ id: callId });
      setState(answer.stopped ? 'stopping' : 'gone');
    } catch (e) {
      setState('idle');
      setError(toApiError(e).detail);
    }
  };
  return (
    <div className="tool-section" data-testid="command-stop">
      <button type="button" className="btn" onClick={() => void stop()} disabled={state !== 'idle'}>
        {state === 'stopping' ? 'Stopping…' : 'Stop'}
      </button>
      {state === 'gone' ? <span className="muted"> It had already finished.</span> : null}
      {error ? (
        <span role="alert" className="tool-error">
          {' '}
          {error}
        </span>
      ) : null}
    </div>
  );
}

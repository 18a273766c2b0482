// The title bar's "Stop everything" button; while stopped it turns into "Resume".
import { useResume, useStopAll, useStopState } from './queries';
import { PlayIcon, StopIcon } from '../../components/icons';

export function StopButton() {
  const stop = useStopState();
  const stopAll = useStopAll();
  const resume = useResume();
  const stopped = stop.data?.stopped ?? false;
  const busy = stopAll.isPending || resume.isPending;

  if (stopped) {
    return (
      <button
        type="button"
        className="btn btn-resume"
        data-testid="titlebar-stop"
        onClick={() => resume.mutate()}
        disabled={busy}
        aria-busy={busy}
        title="Let Sentient start work again"
      >
        <PlayIcon size={14} />
        {resume.isPending ? 'Resuming…' : 'Resume'}
      </button>
    );
  }
  return (
    <button
      type="button"
      className="btn btn-stop"
      data-testid="titlebar-stop"
      onClick={() => stopAll.mutate()}
      disabled={busy || stop.isPending}
      aria-busy={busy}
      title="Stop all of Sentient's work right now"
    >
      <StopIcon size={14} />
      Stop everything
    </button>
  );
}


// The banner across the top while Sentient is stopped. It comes from the stop state (bootstrap
// on load, `stop.updated` live), so it survives a reload and follows a stop made anywhere.
import { useResume, useStopControlError, useStopState } from '../../api/queries';
import { ErrorNotice } from '../../components/Page';
import { PlayIcon } from '../../components/icons';
import { describeSource, formatWhen } from './describe';

export function StopBanner() {
  const stop = useStopState();
  const resume = useResume();
  const error = useStopControlError();
  const state = stop.data;

  return (
    <>
      {state?.stopped ? (
        <div className="stop-banner" role="region" aria-label="Sentient is stopped" data-testid="stop-banner">
          <div className="stop-banner-text">
            <strong>Sentient is stopped. Nothing new will start until you resume.</strong>
            <StopDetails stoppedAt={state.stopped_at} source={state.source} />
          </div>
          <button
            type="button"
            className="btn btn-resume"
            onClick={() => resume.mutate()}
            disabled={resume.isPending}
            aria-busy={resume.isPending}
          >
            <PlayIcon size={14} />
            {resume.isPending ? 'Resuming…' : 'Resume'}
          </button>
        </div>
      ) : null}
      {error ? (
        <div className="banner-slot">
          <ErrorNotice error={error} />
        </div>
      ) : null}
      {stop.isError && !state ? (
        <div className="banner-slot">
          <ErrorNotice error={stop.error} prefix="Couldn't check whether Sentient is stopped." onRetry={() => void stop.refetch()} />
        </div>
      ) : null}
    </>
  );
}

/** "Stopped at 3:04 PM from the tray menu." with whichever parts are known. */
function StopDetails({ stoppedAt, source }: { stoppedAt: string | null; source: string | null }) {
  const when = formatWhen(stoppedAt);
  const where = describeSource(source);
  if (!when && !where) return null;
  return (
    <span className="stop-banner-meta" data-testid="stop-details">
      Stopped{' '}
      {when && stoppedAt ? <time dateTime={stoppedAt}>{when}</time> : null}
      {when && where ? ' ' : null}
      {where}.
    </span>
  );
}

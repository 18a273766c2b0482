// The banner across the top while Sentient is stopped: what is paused and what still works
// (contract section 17). It comes from the stop state (bootstrap on load, `stop.updated` live),
// so it survives a reload and follows a stop made anywhere. Resume is the title bar's button, the
// one that stopped it, so there is one Resume, not two.
import { useStopControlError, useStopState } from './queries';
import { ErrorNotice } from '../../components/Page';
import { describeSource, formatWhen } from './describe';

export const STOPPED_HEADLINE = 'Sentient is stopped. Scheduled tasks, triggers and suggestions are paused until you resume.';
export const STILL_WORKS = 'What you start yourself still works: chat, Run now and answering a task’s question.';

export function StopBanner() {
  const stop = useStopState();
  const error = useStopControlError();
  const state = stop.data;

  return (
    <>
      {state?.stopped ? (
        <div className="stop-banner" role="region" aria-label="Sentient is stopped" data-testid="stop-banner">
          <div className="stop-banner-text">
            <strong>{STOPPED_HEADLINE}</strong>
            <span className="stop-banner-meta">{STILL_WORKS}</span>
            <StopDetails stoppedAt={state.stopped_at} source={state.source} />
          </div>
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

// A connected app's change feed: "Checked 2 min ago · Sync now", or what went wrong and when
// Sentient tries again; Sync now checks at once and says what it found.
import type { FeedStatus } from '../../api/calls';
import { useSyncFeed } from './queries';
import { ErrorNotice } from '../../components/Page';
import { feedWords, syncWords } from './words';

export function FeedLine({ feed, now }: { feed: FeedStatus; now: Date }) {
  const sync = useSyncFeed();
  const failed = feed.status === 'error';
  return (
    <div className="int-feed" data-testid="feed">
      <p className={failed ? 'int-feed-text int-feed-error' : 'int-feed-text muted'}>
        <span data-testid="feed-status">{feedWords(feed, now)}</span>
        <span aria-hidden="true"> · </span>
        <button
          type="button"
          className="int-link-button"
          disabled={sync.isPending}
          aria-label={`${sync.isPending ? 'Checking…' : 'Sync now'} ${feed.display_name}`}
          onClick={() => sync.mutate(feed.source)}
        >
          {sync.isPending ? 'Checking…' : 'Sync now'}
        </button>
      </p>
      {sync.data && !sync.isPending ? (
        <p className={sync.data.ok ? 'int-result muted' : 'int-result int-result-bad'} role="status" data-testid="sync-result">
          {syncWords(sync.data)}
        </p>
      ) : null}
      {feed.note && feed.status !== 'off' ? <p className="field-help">{feed.note}</p> : null}
      <ErrorNotice error={sync.error} prefix="Couldn't check it." />
    </div>
  );
}

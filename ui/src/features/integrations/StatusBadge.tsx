// An app's or tool server's state as a small coloured badge, with the account it is signed in as.
import type { Badge } from './words';

export function StatusBadge({ badge, detail }: { badge: Badge; detail?: string | null }) {
  return (
    <span className={`int-badge int-badge-${badge.tone}`} data-testid="status">
      <span className="int-badge-dot" aria-hidden="true" />
      {badge.words}
      {detail ? <span className="int-badge-detail"> · {detail}</span> : null}
    </span>
  );
}

// Review: memories that did not come from your own words in a clean chat (a web page, an email,
// an imported file). Nothing here reaches a reply until you approve it; unreviewed ones are
// deleted after the days shown.
import { useState, type FormEvent } from 'react';
import type { ReviewItem } from '../../api';
import { EmptyState, ErrorNotice, Loading } from '../../components/Page';
import { MemoryIcon } from '../../components/icons';
import { asError, useApproveAllMemories, useApproveMemory, useDiscardMemory, useMemoryReview } from './queries';

export const EMPTY_REVIEW = 'Nothing waiting. Memories from web pages, emails and files wait here for you first.';

/** Whole days from `now` until `until`, never below 0. */
export function daysLeft(until: string, now: Date = new Date()): number {
  return Math.max(0, Math.ceil((new Date(until).getTime() - now.getTime()) / 86_400_000));
}

export function ReviewTab() {
  const review = useMemoryReview();
  const approveAll = useApproveAllMemories();
  if (review.isPending) return <Loading label="Loading what waits for review…" />;
  if (review.error)
    return <ErrorNotice error={asError(review.error)} prefix="Couldn't load the review inbox." onRetry={() => void review.refetch()} />;
  const { items, count, expire_days } = review.data;
  if (items.length === 0)
    return (
      <EmptyState icon={<MemoryIcon size={28} />} title="Nothing to review">
        <p>{EMPTY_REVIEW}</p>
      </EmptyState>
    );
  const froms = [...new Set(items.map((i) => i.from))];
  return (
    <div className="memory-review">
      <p className="muted">
        {count === 1 ? '1 memory waits' : `${count} memories wait`} for you. Unreviewed ones are deleted after {expire_days} days.
      </p>
      <div className="task-actions" role="group" aria-label="Approve all">
        {froms.map((from) => (
          <button key={from} type="button" className="btn" disabled={approveAll.isPending} onClick={() => approveAll.mutate(from)}>
            Approve all from {from}
          </button>
        ))}
      </div>
      <ErrorNotice error={asError(approveAll.error)} prefix="Couldn't approve them." />
      <ul className="memory-list" aria-label="Waiting for review">
        {items.map((item) => (
          <ReviewRow key={`${item.kind}-${item.id}`} item={item} />
        ))}
      </ul>
    </div>
  );
}

function ReviewRow({ item }: { item: ReviewItem }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.text);
  const approve = useApproveMemory();
  const discard = useDiscardMemory();
  const busy = approve.isPending || discard.isPending;
  const saveEdited = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    approve.mutate({ kind: item.kind, id: item.id, content: text.trim() });
  };
  const left = daysLeft(item.expires_at);
  return (
    <li className="card memory-fact" data-testid="review-item" data-id={item.id}>
      {editing ? (
        <form className="memory-edit" onSubmit={saveEdited}>
          <textarea className="input" aria-label="In your words" value={text} onChange={(e) => setText(e.target.value)} rows={2} />
          <span className="task-actions">
            <button type="submit" className="btn btn-primary" disabled={!text.trim() || busy}>
              Save and approve
            </button>
            <button type="button" className="btn btn-quiet" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </span>
        </form>
      ) : (
        <p className="memory-content">{item.text}</p>
      )}
      <p className="muted memory-meta">
        From {item.from} · {left === 1 ? '1 day left' : `${left} days left`}
      </p>
      {item.snippet ? <blockquote className="memory-snippet">{item.snippet}</blockquote> : null}
      {editing ? null : (
        <span className="task-actions">
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => approve.mutate({ kind: item.kind, id: item.id })}>
            Approve
          </button>
          <button type="button" className="btn" disabled={busy} onClick={() => setEditing(true)}>
            Edit and approve
          </button>
          <button type="button" className="btn btn-quiet" disabled={busy} onClick={() => discard.mutate({ kind: item.kind, id: item.id })}>
            Discard
          </button>
        </span>
      )}
      <ErrorNotice error={asError(approve.error ?? discard.error)} prefix="Couldn't do that." />
    </li>
  );
}

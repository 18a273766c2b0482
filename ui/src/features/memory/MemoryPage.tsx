// The Memory page: what Sentient knows about you, in six tabs. Facts (search, topics, sources,
// add, edit, delete, forget a source), Review (memories from outside your own words that wait
// for you), Map (facts linked by meaning), Past chats (summaries), Notes (SOUL.md, USER.md,
// MEMORY.md and the daily notes) and Import (facts from a file, which wait in Review). Live:
// every `memory.updated` refreshes what is shown.
import { useRef, useState, type KeyboardEvent } from 'react';
import { useConfig, usePatchConfig } from '../../api/shared';
import { ErrorNotice, Page } from '../../components/Page';
import { FactsTab } from './FactsTab';
import { ImportTab } from './ImportTab';
import { MapTab } from './MapTab';
import { NotesTab } from './NotesTab';
import { PastChatsTab } from './PastChatsTab';
import { ReviewTab } from './ReviewTab';
import { asError, useMemoryReview } from './queries';
import './memory.css';

export const TABS = [
  { id: 'facts', label: 'Facts' },
  { id: 'review', label: 'Review' },
  { id: 'map', label: 'Map' },
  { id: 'past', label: 'Past chats' },
  { id: 'notes', label: 'Notes' },
  { id: 'import', label: 'Import' },
] as const;
export type TabId = (typeof TABS)[number]['id'];

/** The tab named in the address (`#/memory/review`), else Facts. */
export function tabFromHash(hash: string): TabId {
  const part = hash.replace(/^#\/?/, '').split(/[/?&]/)[1];
  return TABS.some((t) => t.id === part) ? (part as TabId) : 'facts';
}

export const OFF_WORDS = "Memory is off: Sentient doesn't remember anything new from your chats.";

export function MemoryPage() {
  const [tab, setTab] = useState<TabId>(() => tabFromHash(window.location.hash));
  const review = useMemoryReview();
  const config = useConfig();
  const patch = usePatchConfig();
  const waiting = review.data?.count ?? 0;
  const off = config.data?.memory?.enabled === false;

  const choose = (id: TabId) => {
    setTab(id);
    window.history.replaceState(window.history.state, '', `#/memory/${id}`);
  };

  // The tabs are one stop for Tab; the arrow keys, Home and End move between them (and open the
  // one they land on), as screen readers expect of a tab list.
  const tabRefs = useRef<Partial<Record<TabId, HTMLButtonElement | null>>>({});
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const at = TABS.findIndex((t) => t.id === tab);
    const to =
      e.key === 'ArrowRight' ? (at + 1) % TABS.length
      : e.key === 'ArrowLeft' ? (at - 1 + TABS.length) % TABS.length
      : e.key === 'Home' ? 0
      : e.key === 'End' ? TABS.length - 1
      : null;
    if (to === null) return;
    e.preventDefault();
    const next = TABS[to].id;
    choose(next);
    tabRefs.current[next]?.focus();
  };

  return (
    <Page title="Memory" intro="What Sentient knows about you, so you don't have to repeat yourself. Change or remove anything.">
      {off ? (
        <div className="notice" role="status" data-testid="memory-off">
          <p>{OFF_WORDS}</p>
          <button
            type="button"
            className="btn btn-primary"
            disabled={patch.isPending}
            onClick={() => patch.mutate({ memory: { enabled: true } })}
          >
            Turn memory on
          </button>
        </div>
      ) : null}
      <ErrorNotice error={asError(patch.error)} prefix="Couldn't turn memory on." />
      <div className="memory-tabs" role="tablist" aria-label="Memory">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`memory-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={tab === t.id ? `memory-panel-${t.id}` : undefined}
            tabIndex={tab === t.id ? 0 : -1}
            ref={(el) => {
              tabRefs.current[t.id] = el;
            }}
            className={tab === t.id ? 'memory-tab active' : 'memory-tab'}
            onClick={() => choose(t.id)}
            onKeyDown={onTabKey}
          >
            {t.label}
            {t.id === 'review' && waiting > 0 ? (
              <span className="badge">
                {waiting > 99 ? '99+' : waiting}
                <span className="sr-only"> waiting</span>
              </span>
            ) : null}
          </button>
        ))}
      </div>
      <section role="tabpanel" id={`memory-panel-${tab}`} aria-labelledby={`memory-tab-${tab}`} className="memory-panel">
        {tab === 'facts' ? <FactsTab /> : null}
        {tab === 'review' ? <ReviewTab /> : null}
        {tab === 'map' ? <MapTab /> : null}
        {tab === 'past' ? <PastChatsTab /> : null}
        {tab === 'notes' ? <NotesTab /> : null}
        {tab === 'import' ? <ImportTab onOpenReview={() => choose('review')} /> : null}
      </section>
    </Page>
  );
}

// Facts: search (by meaning and words), topic chips with counts, a source filter with "Forget
// this source", add a fact, and each fact with its topics, where it came from, what it said
// before its last change, inline edit and delete.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Memory, WriteResult } from '../../api';
import { EmptyState, ErrorNotice, Loading } from '../../components/Page';
import { MemoryIcon } from '../../components/icons';
import { asError, useAddMemory, useDeleteMemory, useEditMemory, useForgetSource, useMemories, useMemoryTopics } from './queries';

export const EMPTY_FACTS = 'Nothing remembered yet. Tell Sentient about yourself in a chat, or add a fact here.';
export const WORDS_ONLY =
  "Search matches your exact words for now: the model that finds facts by meaning isn't answering. Settings > Models shows what it needs.";

/** The fact a link asked for (`#/memory?fact=12`, from a reply's memory sources). */
export function factFromHash(hash: string): number | null {
  const match = /[?&]fact=(\d+)/.exec(hash);
  return match ? Number(match[1]) : null;
}

/** What adding a fact did, in words. */
export function addedWords(result: WriteResult): string {
  switch (result.action) {
    case 'ADD':
      return 'Remembered.';
    case 'UPDATE':
      return 'Updated what Sentient knew.';
    case 'DELETE':
      return 'Forgot what that replaces.';
    case 'SKIP':
      return 'Sentient already knew that.';
  }
}

/** Where a fact came from, in words. */
export function sourceWords(source: string): string {
  if (source.startsWith('file:')) return `from ${source.slice(5)}`;
  switch (source) {
    case 'manual':
      return 'added by you';
    case 'conversation':
      return 'from a chat';
    case 'onboarding':
      return 'from setup';
    default:
      return `from ${source}`;
  }
}

export function FactsTab() {
  const [q, setQ] = useState('');
  const [topic, setTopic] = useState<string | null>(null);
  const [source, setSource] = useState('');
  const query = { q: q.trim() || undefined, topic: topic ?? undefined, source: source || undefined };
  const facts = useMemories(query);
  const everything = useMemories({});
  const topics = useMemoryTopics();
  const forget = useForgetSource();
  const [confirmForget, setConfirmForget] = useState(false);
  const [wanted] = useState(() => factFromHash(window.location.hash));

  const sources = [...new Set((everything.data ?? []).map((m) => m.source))].sort();
  const wordsOnly = Boolean(query.q) && (facts.data?.length ?? 0) > 0 && facts.data?.every((m) => m.similarity === null);

  let list;
  if (facts.isPending) list = <Loading label="Loading memories…" />;
  else if (facts.error)
    list = <ErrorNotice error={asError(facts.error)} prefix="Couldn't load your memories." onRetry={() => void facts.refetch()} />;
  else if (facts.data.length === 0)
    list =
      query.q || query.topic || query.source ? (
        <p className="muted" data-testid="no-match">
          No memories match.
        </p>
      ) : (
        <EmptyState icon={<MemoryIcon size={28} />} title="No memories yet">
          <p>{EMPTY_FACTS}</p>
        </EmptyState>
      );
  else
    list = (
      <ul className="memory-list" aria-label="Memories">
        {facts.data.map((m) => (
          <FactRow key={m.id} fact={m} wanted={m.id === wanted} />
        ))}
      </ul>
    );

  return (
    <div className="memory-facts">
      <AddFact />
      <div className="memory-filters">
        <input
          type="search"
          className="input"
          placeholder="Search memories"
          aria-label="Search memories"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <select className="input" aria-label="Source" value={source} onChange={(e) => setSource(e.target.value)}>
          <option value="">All sources</option>
          {sources.map((s) => (
            <option key={s} value={s}>
              {sourceWords(s)}
            </option>
          ))}
        </select>
        {source ? (
          confirmForget ? (
            <span className="task-actions" role="group" aria-label="Forget this source?">
              <button
                type="button"
                className="btn btn-stop"
                disabled={forget.isPending}
                onClick={() =>
                  forget.mutate(source, {
                    onSuccess: () => {
                      setSource('');
                      setConfirmForget(false);
                    },
                  })
                }
              >
                Forget everything {sourceWords(source)}
              </button>
              <button type="button" className="btn btn-quiet" onClick={() => setConfirmForget(false)}>
                Keep
              </button>
            </span>
          ) : (
            <button type="button" className="btn btn-quiet" onClick={() => setConfirmForget(true)}>
              Forget this source
            </button>
          )
        ) : null}
      </div>
      <ErrorNotice error={asError(forget.error)} prefix="Couldn't forget that source." />
      {topics.data ? (
        <div className="memory-chips" role="group" aria-label="Topics">
          {topics.data
            .filter((t) => t.count > 0 || t.name === topic)
            .map((t) => (
              <button
                key={t.name}
                type="button"
                className={t.name === topic ? 'chip active' : 'chip'}
                aria-pressed={t.name === topic}
                title={t.description}
                onClick={() => setTopic(t.name === topic ? null : t.name)}
              >
                {t.name} <span className="chip-count">{t.count}</span>
              </button>
            ))}
        </div>
      ) : null}
      {wordsOnly ? (
        <p className="notice" role="status" data-testid="words-only">
          {WORDS_ONLY} <a href="#/settings/models">Open Settings</a>
        </p>
      ) : null}
      {list}
    </div>
  );
}

function AddFact() {
  const [text, setText] = useState('');
  const add = useAddMemory();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    add.mutate(text.trim(), { onSuccess: () => setText('') });
  };
  return (
    <form className="memory-add" onSubmit={submit}>
      <input
        className="input"
        aria-label="A fact to remember"
        placeholder="Something Sentient should know, like “My sister Meera lives in Lisbon”"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" className="btn btn-primary" disabled={!text.trim() || add.isPending}>
        {add.isPending ? 'Remembering…' : 'Remember'}
      </button>
      {add.data && !add.isPending ? (
        <span className="muted" role="status" data-testid="added">
          {addedWords(add.data)}
        </span>
      ) : null}
      <ErrorNotice error={asError(add.error)} prefix="Couldn't remember that." />
    </form>
  );
}

function FactRow({ fact, wanted }: { fact: Memory; wanted: boolean }) {
  const [mode, setMode] = useState<'idle' | 'edit' | 'delete'>('idle');
  const row = useRef<HTMLLIElement>(null);
  useEffect(() => {
    // jsdom has no scrolling; a real window brings the fact a link pointed at into view.
    if (wanted) row.current?.scrollIntoView?.({ block: 'center' });
  }, [wanted]);
  const [text, setText] = useState(fact.content);
  const edit = useEditMemory();
  const remove = useDeleteMemory();
  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    edit.mutate({ id: fact.id, content: text.trim() }, { onSuccess: () => setMode('idle') });
  };
  return (
    <li
      ref={row}
      className={wanted ? 'card memory-fact memory-wanted' : 'card memory-fact'}
      data-testid="memory-fact"
      data-id={fact.id}
      aria-current={wanted ? 'true' : undefined}
    >
      {mode === 'edit' ? (
        <form className="memory-edit" onSubmit={save}>
          <textarea className="input" aria-label="The fact" value={text} onChange={(e) => setText(e.target.value)} rows={2} />
          <span className="task-actions">
            <button type="submit" className="btn btn-primary" disabled={!text.trim() || edit.isPending}>
              Save
            </button>
            <button type="button" className="btn btn-quiet" onClick={() => setMode('idle')}>
              Cancel
            </button>
          </span>
        </form>
      ) : (
        <p className="memory-content">{fact.content}</p>
      )}
      {fact.previous_content ? (
        <p className="muted memory-previous" data-testid="previous">
          Before: {fact.previous_content}
        </p>
      ) : null}
      <p className="muted memory-meta">
        {fact.topics.join(' · ')} · {sourceWords(fact.source)}
        {fact.memory_type === 'short-term' && fact.expires_at
          ? ` · until ${new Date(fact.expires_at).toLocaleDateString()}`
          : ''}
      </p>
      {mode === 'delete' ? (
        <span className="task-actions" role="group" aria-label="Forget this memory?">
          <button type="button" className="btn btn-stop" disabled={remove.isPending} onClick={() => remove.mutate(fact.id)}>
            Forget it
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setMode('idle')}>
            Keep
          </button>
        </span>
      ) : mode === 'idle' ? (
        <span className="task-actions">
          <button
            type="button"
            className="btn btn-quiet"
            onClick={() => {
              setText(fact.content);
              setMode('edit');
            }}
          >
            Edit
          </button>
          <button type="button" className="btn btn-quiet" onClick={() => setMode('delete')}>
            Delete
          </button>
        </span>
      ) : null}
      <ErrorNotice error={asError(edit.error ?? remove.error)} prefix="Couldn't change that memory." />
    </li>
  );
}

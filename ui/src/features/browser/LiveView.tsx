// The live view of a browser page waiting for the person (beyond the contract): the newest
// picture of the page, where a tap goes to the same spot in the page, and a box whose text is
// typed straight into the page. What is typed is sent once and never kept here.
import { useState } from 'react';
import type { NeedsYou } from '../../api';
import { useBrowserFrame, useBrowserInput } from './queries';
import './browser.css';

export function LiveView({ needsYou }: { needsYou: NeedsYou }) {
  const frame = useBrowserFrame();
  const input = useBrowserInput();
  const [typed, setTyped] = useState('');
  const image = frame.data?.image;
  const tap = (event: React.MouseEvent<HTMLImageElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    const x = Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width));
    const y = Math.min(1, Math.max(0, (event.clientY - rect.top) / rect.height));
    input.mutate({ kind: 'tap', x, y });
  };
  const send = (event: React.FormEvent) => {
    event.preventDefault();
    if (!typed) return;
    input.mutate({ kind: 'text', text: typed });
    setTyped('');
  };
  return (
    <div className="live-view" data-testid="live-view">
      {image ? (
        <img
          className="live-view-page"
          src={image}
          alt={`The page ${needsYou.title || needsYou.url}. Click where you would click in the page.`}
          onClick={tap}
          data-testid="live-view-page"
        />
      ) : (
        <p className="live-view-wait">Loading the page…</p>
      )}
      <form className="live-view-form" onSubmit={send} autoComplete="off">
        <label htmlFor={`live-text-${needsYou.id}`}>Type into the page</label>
        <input
          id={`live-text-${needsYou.id}`}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="btn" disabled={!typed || input.isPending}>
          Type
        </button>
        <button type="button" className="btn" onClick={() => input.mutate({ kind: 'key', key: 'enter' })}>
          Enter
        </button>
      </form>
      {input.error ? (
        <p className="live-view-error" role="alert">
          {input.error.message}
        </p>
      ) : (
        <p className="live-view-hint">What you type goes straight to the page; Sentient doesn't keep it.</p>
      )}
    </div>
  );
}

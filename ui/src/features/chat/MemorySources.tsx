// What a reply had in mind (memory): the facts recalled into its prompt or looked up by a tool,
// each linking to the fact on the Memory page.
import type { MemorySource } from '../../api';

export function MemorySources({ sources }: { sources: MemorySource[] }) {
  if (sources.length === 0) return null;
  return (
    <details className="chat-memory" data-testid="memory-sources">
      <summary>What this reply had in mind</summary>
      <ul>
        {sources.map((s) => (
          <li key={`${s.kind}-${s.id}`}>
            {s.kind === 'fact' ? <a href={`#/memory?fact=${encodeURIComponent(String(s.id))}`}>{s.text}</a> : s.text}
            <span className="muted"> ({s.via === 'tool' ? 'looked up' : 'remembered'})</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

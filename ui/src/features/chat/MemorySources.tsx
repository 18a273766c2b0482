// What a reply had in mind (memory). Memory comes in a later version: until then `done` and the
// stored rows carry an empty list and nothing shows. This is the place to link each item to its
// memory (a fact's id, an insight's id) once the Memory page exists.
import type { MemorySource } from '../../api';

export function MemorySources({ sources }: { sources: MemorySource[] }) {
  if (sources.length === 0) return null;
  return (
    <details className="chat-memory" data-testid="memory-sources">
      <summary>What this reply had in mind</summary>
      <ul>
        {sources.map((s) => (
          <li key={`${s.kind}-${s.id}`}>
            {s.text}
            <span className="muted"> ({s.via === 'tool' ? 'looked up' : 'remembered'})</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

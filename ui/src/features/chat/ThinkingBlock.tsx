// The model's thinking, folded away unless the person wants to read it.
export function ThinkingBlock({ text, running }: { text: string; running: boolean }) {
  if (!text.trim()) return null;
  return (
    <details className="chat-thinking">
      <summary>{running ? 'Thinking…' : 'How it thought about this'}</summary>
      <div className="chat-thinking-text">{text}</div>
    </details>
  );
}

// The little markdown an app's setup steps use: paragraphs, numbered and bulleted lists, **bold**,
// `code` and [links](https://…). Built as React elements, so the engine's text never becomes HTML.
import type { ReactNode } from 'react';

type Block = { kind: 'p' | 'ol' | 'ul'; lines: string[] };

const NUMBERED = /^\s*\d+[.)]\s+/;
const BULLET = /^\s*[-*]\s+/;

function blocks(text: string): Block[] {
  const out: Block[] = [];
  let current: Block | null = null;
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    if (line === '') {
      current = null;
      continue;
    }
    const kind: Block['kind'] = NUMBERED.test(line) ? 'ol' : BULLET.test(line) ? 'ul' : 'p';
    const body = line.replace(kind === 'ol' ? NUMBERED : kind === 'ul' ? BULLET : /^/, '');
    if (current && current.kind === kind) current.lines.push(body);
    else {
      current = { kind, lines: [body] };
      out.push(current);
    }
  }
  return out;
}

const INLINE = /(\*\*[^*]+\*\*|`[^`]+`|\[[^\]]+\]\([^)\s]+\))/g;

/** Bold, code and links inside one line. */
export function inline(text: string): ReactNode[] {
  return text.split(INLINE).map((part, i) => {
    if (part.startsWith('**') && part.endsWith('**') && part.length > 4) return <strong key={i}>{part.slice(2, -2)}</strong>;
    if (part.startsWith('`') && part.endsWith('`') && part.length > 2) return <code key={i}>{part.slice(1, -1)}</code>;
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
    if (link) {
      const href = link[2];
      return /^https?:\/\//i.test(href) ? (
        <a key={i} href={href} target="_blank" rel="noreferrer noopener">
          {link[1]}
        </a>
      ) : (
        <span key={i}>{link[1]}</span>
      );
    }
    return part;
  });
}

export function SimpleMarkdown({ text, className }: { text: string; className?: string }) {
  const parts = blocks(text);
  if (parts.length === 0) return null;
  return (
    <div className={className}>
      {parts.map((b, i) => {
        if (b.kind === 'p') return <p key={i}>{inline(b.lines.join(' '))}</p>;
        const items = b.lines.map((l, j) => <li key={j}>{inline(l)}</li>);
        return b.kind === 'ol' ? <ol key={i}>{items}</ol> : <ul key={i}>{items}</ul>;
      })}
    </div>
  );
}

// A reply's markdown: headings, lists, links, bold and italic, inline code, tables and code
// blocks (each with a Copy button). Parsed by `marked`, cleaned by `DOMPurify` (no scripts, no
// event handlers, no `javascript:` links); HTML the model writes is shown as text, never run.
// Rendered block by block, so while a reply streams in only its last block changes (no flicker),
// and a code fence that is still open already shows as code.
import DOMPurify from 'dompurify';
import { Marked, type Token, type Tokens } from 'marked';
import { memo, useMemo } from 'react';
import { CopyButton } from './CopyButton';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const markdown = new Marked({ gfm: true, breaks: true });
markdown.use({
  renderer: {
    // HTML in a reply is words to read, not markup.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    // The page has its own h1 and h2: a reply's headings sit below them.
    heading({ tokens, depth }: Tokens.Heading) {
      const level = Math.min(depth + 2, 6);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
  },
});

let hooked = false;
function sanitize(html: string): string {
  if (!hooked) {
    hooked = true;
    // Links open outside the window, and the page they open can't reach back to this one.
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A' && node.getAttribute('href')) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
    });
  }
  return DOMPurify.sanitize(html, { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'] });
}

type Block = { kind: 'code'; code: string; lang: string } | { kind: 'html'; html: string };

/** The reply as blocks: code blocks on their own (for their Copy button), the rest as clean HTML. */
export function toBlocks(text: string): Block[] {
  const tokens = markdown.lexer(text);
  const blocks: Block[] = [];
  for (const token of tokens as Token[]) {
    if (token.type === 'space') continue;
    if (token.type === 'code') {
      const code = token as Tokens.Code;
      blocks.push({ kind: 'code', code: code.text, lang: (code.lang ?? '').trim().split(/\s+/)[0] ?? '' });
      continue;
    }
    const html = sanitize(markdown.parser(Object.assign([token], { links: tokens.links })));
    if (html.trim()) blocks.push({ kind: 'html', html });
  }
  return blocks;
}

export function CodeBlock({ code, lang }: { code: string; lang: string }) {
  return (
    <div className="chat-code" data-testid="code-block">
      <div className="chat-code-head">
        <span className="chat-code-lang">{lang || 'Code'}</span>
        <CopyButton text={() => code} label="Copy code" />
      </div>
      <pre tabIndex={0} aria-label={lang ? `${lang} code` : 'Code'}>
        <code>{code}</code>
      </pre>
    </div>
  );
}

const HtmlBlock = memo(function HtmlBlock({ html }: { html: string }) {
  return <div className="chat-md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

export function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => toBlocks(text), [text]);
  return (
    <div className="chat-text chat-md">
      {blocks.map((b, i) => (b.kind === 'code' ? <CodeBlock key={i} code={b.code} lang={b.lang} /> : <HtmlBlock key={i} html={b.html} />))}
    </div>
  );
}
